package queryload

import (
	"context"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// A kv fleet scenario with a query load (a failover's kills, a
// scale-out, a rolling restart) runs its lookups beside a write load
// that continues the fill's generator: every answer is judged with
// ReadChecker.CheckLive against the fill plus what the load may have
// written by then. A scale-out and a rolling restart send them to every
// live instance's API layer (fleetTargets: in turn, or to the key's
// owner), an instance being stopped taken out of rotation first, and
// follow the moved keys with readOutages as a failover follows a kill's.

// NewLiveQueries is a kafka-streams query load, not started, against
// targets, judged against check's fill (its first fill records) plus
// what ld writes.
func NewLiveQueries(req fleet.Request, check *loadgen.ReadChecker, targets queryTargets, fill int64, ld *fleet.Load) *KSQueryLoad {
	l := NewKSQueriesWith(req, check, targets)
	l.tally.upTo = func() int64 { return fill + ld.MayHaveWritten() }
	return l
}

// FleetQueries is a kv fleet's query load with its targets.
type FleetQueries struct {
	*KSQueryLoad
	Targets *fleetTargets
}

// StartFleetQueries starts, when the case has a query load, lookups of
// f's instances judged against spec (the changelog as it held before ld
// began: the changer's Spec) plus what ld writes; nil without one.
func StartFleetQueries(req fleet.Request, f *fleet.Fleet, spec loadgen.Spec, ld *fleet.Load) (*FleetQueries, error) {
	if req.Case.Queries == nil {
		return nil, nil
	}
	check, err := NewReadChecker(&spec)
	if err != nil {
		return nil, err
	}
	t := NewFleetTargets(f)
	q := &FleetQueries{KSQueryLoad: NewLiveQueries(req, check, t, spec.Records, ld), Targets: t}
	go q.Run()
	return q, nil
}

// WithAPI turns on every instance's API layer (setAPIProps: any free
// port, the load's retry; setRouteProps: its partitioner) when the case
// has a query load.
func WithAPI(f *fleet.Fleet, req fleet.Request) {
	SetAPIProps(f.Base, req.Case.Queries)
	SetRouteProps(f.Base, req)
}

// ActivePartitions are the store partitions p holds active by its
// latest task list.
func ActivePartitions(p *fleet.Proc) []int32 {
	var out []int32
	for _, task := range fleet.LatestTasks(p.Inst.Events()).Active {
		if n, err := fleet.TaskPartition(task); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// MonoTime is the wall-clock time of CLOCK_MONOTONIC ns.
func MonoTime(ns int64) time.Time {
	return time.Now().Add(-time.Duration(ksdriver.NowMonoNs() - ns))
}

// finishQueries, when q runs, marks every move done at endNs (0: none
// ended), lets the lookups go on for queries.after (none after a failed
// run, whose ctx may be over) and returns the record.
func (q *FleetQueries) Finish(ctx context.Context, endNs int64, failed bool) *runs.QueryFigures {
	if q == nil {
		return nil
	}
	if endNs > 0 {
		q.Restored(endNs)
	}
	if failed {
		return q.Stop()
	}
	return q.KSQueryLoad.Finish(ctx)
}

// WrongReads is an ErrUnverified error when rec's lookups met a wrong
// answer (nil otherwise), and marks the restore record unverified.
func WrongReads(rec *runs.Restore, req fleet.Request) error {
	q := rec.Queries
	if q == nil || q.Wrong == 0 {
		return nil
	}
	rec.Verified = false
	msg := WrongReadsText(q.Wrong, q.Answered, q.Misrouted, q.WrongReads[0])
	return fmt.Errorf("%w: case %s #%d: %s", fleet.ErrUnverified, req.Case.Name, req.Repeat, msg)
}
