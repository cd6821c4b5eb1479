package queryload

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
)

// testKSQueries is a kafka-streams query load, not started, over a fill
// of 10 keys in 2 partitions, its lookups addressed to a fake instance.
func testKSQueries(t *testing.T) *KSQueryLoad {
	t.Helper()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 100, 10, 2
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	c := config.DefaultCase()
	c.Queries = config.DefaultQueryLoad()
	return NewKSQueriesWith(fleet.Request{Case: c}, check, FixedTargets{Addr: "x"})
}

// TestMoveReadsSplitARestart: a restart's row counts the lookups of the
// stopped instance's keys from its stop until the next stop, not before
// nor after; its before, during and after latencies are the windows the
// stop and ready cut; answers by instance are those until ready.
func TestMoveReadsSplitARestart(t *testing.T) {
	l := testKSQueries(t)
	send := func(p int32, answer bool, by string, lat time.Duration) {
		l.Mu.Lock()
		defer l.Mu.Unlock()
		w := l.Watching(p)
		if answer {
			w.Answered(false, by, lat)
		} else {
			w.Refused(false)
		}
	}
	l.Mark()
	send(0, true, "i0", time.Millisecond) // before the stop: not followed
	o := l.Follow([]int32{0})
	l.Mark()
	send(0, false, "", 0) // i0's key refused while it is down
	send(1, true, "i1", 2*time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	send(0, true, "i1", 3*time.Millisecond) // served by i1
	ready := time.Now()
	l.Mark()
	send(0, true, "i0", time.Millisecond)
	l.EndFollow(o)
	send(0, false, "", 0) // after the next stop: another restart's
	m := MoveReads(o, ready, l.Window(0), l.Window(1), l.Window(2))
	out := m.Outage
	if out == nil || out.Lookups != 3 || out.Refused != 1 || out.Answered != 2 || out.LongestUnansweredSeconds < 0.03 || out.ServedAgainSeconds == nil {
		t.Fatalf("outage %+v", out)
	}
	if m.Lookups != 3 || m.Refused != 1 || m.Answered != 2 || m.ByInstance["i1"] != 2 || m.ByInstance["i0"] != 0 {
		t.Fatalf("during the restart: %+v", m)
	}
	if m.Before.Count != 1 || m.During.Count != 2 || m.After.Count != 1 || m.During.MaxMs < 2.9 {
		t.Fatalf("latencies before %+v during %+v after %+v", m.Before, m.During, m.After)
	}
	if out.TakenOverSeconds < 0.03 || m.RefusedShare() != 1.0/3 {
		t.Fatalf("taken over %.3fs, refused share %v", out.TakenOverSeconds, m.RefusedShare())
	}
}
