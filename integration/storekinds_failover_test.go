package integration

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestFailoverOfEachStoreKind runs the failover scenario on the real
// broker for a window store with a standby and a timestamped key-value
// store without one: two Kafka Streams instances of the kv topology over
// the kind's fill while the write load continues the fill's generator
// through the input topic, the one with the most tasks SIGKILLed once.
// The survivor takes the killed tasks over (a promoted standby; without
// one, a restore), every task's gap is measured, the record names the
// store kind, and the survivor's store, digested as the kind's, equals
// the expected state of the fill plus the load's records (windows the
// new event times expired included).
func TestFailoverOfEachStoreKind(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	for _, tc := range []struct {
		kind    loadgen.StoreKind
		standby bool
	}{{loadgen.KindWindow, true}, {loadgen.KindTimestampedKeyValue, false}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			app := ksApp(t, env)
			spec := kindWarmFill(tc.kind)
			fill := ksFill(t, env, app, spec, "lz4")
			c := kindFailoverCase(t, spec, tc.standby)
			recs, took := runKSCase(t, env, fill, app, c, 2*time.Minute)
			checkRecords(t, recs...)
			checkKindFailover(t, c, recs)
			t.Logf("%s failover (standby %v) took %s", tc.kind, tc.standby, took.Round(time.Millisecond))
		})
	}
}

// kindFailoverCase is a one-kill failover of fill's kind under 300
// writes/s.
func kindFailoverCase(t *testing.T, fill loadgen.Spec, standby bool) config.Case {
	t.Helper()
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario, c.StoreKind = "failover-"+string(fill.StoreKind), config.EngineKafkaStreams, config.ScenarioFailover, fill.StoreKind
	c.Retention = config.Duration(time.Duration(fill.RetentionMs) * time.Millisecond)
	c.JVMHeap = 256 << 20
	c.Failover = &config.FailoverSettings{Rate: 300, Accounts: 1, Kills: 1, Standby: standby, Persistent: true,
		Run: config.Duration(2 * time.Second), Partitions: 2, Seed: 1}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkKindFailover checks a one-kill failover's record: verified against
// the fill's expected state (not the ledger), the kind named, every victim
// task's gap measured and taken over as a standby promotes or a restore
// does.
func checkKindFailover(t *testing.T, c config.Case, recs []runs.Restore) {
	t.Helper()
	if len(recs) != 1 {
		t.Fatalf("%d records, want one per kill", len(recs))
	}
	r, f := recs[0], recs[0].Failover
	if f == nil || !r.Verified || r.Error != "" || r.Verification.Mode == runs.VerificationLedger || f.Ledger != nil {
		t.Fatalf("verified %v, error %q, verification %+v, failover %+v", r.Verified, r.Error, r.Verification, f)
	}
	if f.StoreKind != c.StoreKind || f.Standby != c.Failover.Standby || len(f.Tasks) == 0 || f.MaxGapSeconds <= 0 {
		t.Fatalf("failover record %+v", f)
	}
	for _, task := range f.Tasks {
		want := task.Takeover == runs.TakeoverPromoted
		if !c.Failover.Standby {
			want = task.Takeover == runs.TakeoverRestored || task.Takeover == runs.TakeoverWarm
		}
		if task.GapSeconds <= 0 || task.GapSeconds > 60 || !want {
			t.Errorf("task %s: gap %.3fs, takeover %s (standby %v)", task.Task, task.GapSeconds, task.Takeover, c.Failover.Standby)
		}
	}
	if n := served(r); n == 0 {
		t.Fatalf("the survivor's store served nothing")
	}
	t.Logf("%s: %s killed (tasks %v), max gap %.2fs, detection %.2fs, RUNNING after %.2fs, takeover %s, %d records restored; %d entries served, verified",
		c.StoreKind, f.Killed, f.VictimTasks, f.MaxGapSeconds, f.DetectionSeconds, f.RunningSeconds, f.Takeover, f.RestoredRecords, served(r))
}
