package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// outage is what lookups through the survivor met after a kill.
type outage struct {
	// longest is the longest span between two answered lookups of the
	// victim's keys, from the kill on: how long its keys could not be read.
	longest                    time.Duration
	answered, refused, fromSby int
	stale, wrong               int
}

// TestFailoverReadOutageStandbyAndStaleReads kills one of two real Kafka
// Streams instances with num.standby.replicas=1 while lookups of the keys
// it owned go to the survivor's API layer, with stale reads and without
// (and, for the record, once without a standby either). No answer may be
// wrong (a stale one only from a standby or a store not restored); with
// stale reads the survivor answers from its standby copy at once, so the
// longest span the victim's keys go unanswered must be shorter than
// without, when they wait for the session timeout and the rebalance that
// promotes the standby.
func TestFailoverReadOutageStandbyAndStaleReads(t *testing.T) {
	needDriver(t)
	env := connect(t, bench.Options{})
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 200_000, 20_000, 16, 200, 4
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct{ standby, stale bool }{{true, true}, {true, false}, {false, false}}
	got := make([]outage, len(variants))
	for i, v := range variants {
		app := ksApp(t, env)
		ksFill(t, env, app, spec, "lz4")
		ensureInputOf(t, env, app, spec.Partitions)
		got[i] = killAndRead(t, env, app, check, spec.Partitions, v.standby, v.stale)
		t.Logf("standby %v, stale reads %v: longest outage %s; %d answered (%d from a standby, %d stale), %d refused",
			v.standby, v.stale, got[i].longest, got[i].answered, got[i].fromSby, got[i].stale, got[i].refused)
		if got[i].wrong != 0 || got[i].answered == 0 {
			t.Fatalf("standby %v, stale %v: %+v", v.standby, v.stale, got[i])
		}
	}
	if got[0].fromSby == 0 || got[0].longest >= got[1].longest {
		t.Fatalf("with a standby the outage was %s with stale reads (%d answers from the standby) and %s without: want it shorter with them",
			got[0].longest, got[0].fromSby, got[1].longest)
	}
}

// killAndRead runs two instances of app, SIGKILLs the one owning
// partition 0 once the group is stable, and reads the victim's keys
// through the survivor until it is RUNNING with every partition and 2 s
// more.
func killAndRead(t *testing.T, env *bench.Env, app string, check *loadgen.ReadChecker, partitions int32, standby, stale bool) outage {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	extra := map[string]string{"session.timeout.ms": "6000", "heartbeat.interval.ms": "2000", "num.standby.replicas": "0"}
	if standby {
		extra["num.standby.replicas"] = "1"
	}
	a := startAPIInstance(ctx, t, env, app, "a", extra)
	b := startAPIInstance(ctx, t, env, app, "b", extra)
	owners := settledOwners(ctx, t, partitions, a, b)
	if standby {
		awaitStandbys(ctx, t, partitions, a, b)
	}
	victim, survivor := a, b
	if owners[0] != "a" {
		victim, survivor = b, a
	}
	var keys []int64 // the victim's
	for id := int64(0); id < check.Keys() && len(keys) < 2000; id++ {
		if _, p := check.Key(id); owners[p] == victim.ID() {
			keys = append(keys, id)
		}
	}
	victim.Kill()
	killed := time.Now()
	o := readThrough(ctx, t, survivor, check, keys, stale, func() bool { return ownsAll(t, survivor, partitions) }, killed)
	if err := survivor.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	return o
}

// readThrough looks the keys up through the survivor every 5 ms until
// done has held for 2 s, judging each answer.
func readThrough(ctx context.Context, t *testing.T, survivor *ksdriver.Instance, check *loadgen.ReadChecker, keys []int64, stale bool, done func() bool, from time.Time) outage {
	client := &http.Client{Timeout: ksdriver.DefaultLookupTimeout}
	rng := rand.New(rand.NewPCG(1, 2))
	var o outage
	last := from
	var doneAt time.Time
	for doneAt.IsZero() || time.Since(doneAt) < 2*time.Second {
		if doneAt.IsZero() && done() {
			doneAt = time.Now()
		}
		id := keys[rng.IntN(len(keys))]
		key, _ := check.Key(id)
		ans, err := ksdriver.Lookup(ctx, client, survivor.APIAddr(), key, stale)
		if err != nil || ans.Refused {
			o.refused++
		} else {
			judge(t, &o, check, id, &ans, stale)
			o.longest = max(o.longest, time.Since(last))
			last = time.Now()
		}
		if ctx.Err() != nil {
			t.Fatalf("the survivor did not take over: %v", ctx.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return o
}

// ownsAll says whether the instance is RUNNING with every partition's
// task active.
func ownsAll(t *testing.T, in *ksdriver.Instance, partitions int32) bool {
	state, tasks := lastStateAndTasks(in)
	n := 0
	for _, th := range tasks {
		n += len(th.Active)
	}
	return state == ksdriver.StateRunning && n == int(partitions)
}

// judge counts one answer: stale only from a standby or a store that is
// not restored, when stale reads are allowed.
func judge(t *testing.T, o *outage, check *loadgen.ReadChecker, id int64, a *ksdriver.Answer, stale bool) {
	o.answered++
	if a.Copy == ksdriver.CopyStandby {
		o.fromSby++
	}
	v, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	verdict, _ := check.Check(id, v, a.Found)
	switch {
	case verdict == loadgen.ReadStale && stale && a.State != "restored":
		o.stale++
	case verdict != loadgen.ReadCorrect:
		o.wrong++
		t.Errorf("key %d: verdict %d from %s", id, verdict, fmt.Sprintf("%+v", *a))
	}
}

// awaitStandbys waits until every partition is also a standby task on
// one of the instances.
func awaitStandbys(ctx context.Context, t *testing.T, partitions int32, ins ...*ksdriver.Instance) {
	for {
		seen := map[int32]bool{}
		for _, in := range ins {
			_, tasks := lastStateAndTasks(in)
			for _, th := range tasks {
				for _, task := range th.Standby {
					seen[taskPartition(t, task)] = true
				}
			}
		}
		if len(seen) == int(partitions) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("standbys of only %d of %d partitions", len(seen), partitions)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
