package scenario

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// TestScaleOutRecordsOnlyMovedTasksReads: a scale-out follows every
// partition's keys from its start, and records only those of the tasks
// that moved: their outages one by one, and merged as the queries'
// outage; a task that stayed adds nothing, however its lookups went.
func TestScaleOutRecordsOnlyMovedTasksReads(t *testing.T) {
	l := testKSQueries(t)
	s := &scaleOut{rec: &runs.Restore{}, sr: &runs.ScaleOutRecord{Tasks: 2}, q: &queryload.FleetQueries{KSQueryLoad: l}}
	s.followMoves()
	send := func(p int32, answer bool) {
		l.Mu.Lock()
		defer l.Mu.Unlock()
		w := l.Watching(p)
		if answer {
			w.Answered(false, "i1", time.Millisecond)
		} else {
			w.Refused(false)
		}
	}
	send(0, false) // partition 0 stays on i0: its refusal is not a move's
	send(1, false)
	time.Sleep(20 * time.Millisecond)
	send(1, true)
	send(0, true)
	close(l.Done) // the load never ran: stop waits for its done
	s.rec.Queries = l.Stop()
	s.sr.TaskTimelines = []runs.TaskTimeline{{Task: "0_0", Partition: 0, From: "i0", To: "i0"}, {Task: "0_1", Partition: 1, From: "i0", To: "i1"}}
	s.movedReads()
	if len(s.sr.MovedReads) != 1 {
		t.Fatalf("moved reads %+v, want partition 1's only", s.sr.MovedReads)
	}
	m, o := s.sr.MovedReads[0], s.rec.Queries.Outage
	if m.Partitions[0] != 1 || m.Lookups != 2 || m.Refused != 1 || m.LongestUnansweredSeconds < 0.02 || m.ServedAgainSeconds == nil {
		t.Fatalf("partition 1's outage %+v", m)
	}
	if o == nil || o.Lookups != 2 || len(o.Partitions) != 1 || s.rec.Queries.Before == nil {
		t.Fatalf("the queries' outage %+v, before %+v", o, s.rec.Queries.Before)
	}
}

// testKSQueries is a kafka-streams query load, not started, over a fill
// of 10 keys in 2 partitions, its lookups addressed to a fake instance.
func testKSQueries(t *testing.T) *queryload.KSQueryLoad {
	t.Helper()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 100, 10, 2
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	c := config.DefaultCase()
	c.Queries = config.DefaultQueryLoad()
	return queryload.NewKSQueriesWith(fleet.Request{Case: c}, check, queryload.FixedTargets{Addr: "x"})
}
