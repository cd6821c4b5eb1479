package scenario

import (
	"context"
	"fmt"
	"time"

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

// newLiveQueries is a kafka-streams query load, not started, against
// targets, judged against check's fill (its first fill records) plus
// what ld writes.
func newLiveQueries(req Request, check *loadgen.ReadChecker, targets queryTargets, fill int64, ld *load) *ksQueryLoad {
	l := newKSQueriesWith(req, check, targets)
	l.tally.upTo = func() int64 { return fill + ld.mayHaveWritten() }
	return l
}

// fleetQueries is a kv fleet's query load with its targets.
type fleetQueries struct {
	*ksQueryLoad
	targets *fleetTargets
}

// startFleetQueries starts, when the case has a query load, lookups of
// f's instances judged against spec (the changelog as it held before ld
// began: the changer's Spec) plus what ld writes; nil without one.
func startFleetQueries(req Request, f *fleet, spec loadgen.Spec, ld *load) (*fleetQueries, error) {
	if req.Case.Queries == nil {
		return nil, nil
	}
	check, err := newReadChecker(&spec)
	if err != nil {
		return nil, err
	}
	t := newFleetTargets(f)
	q := &fleetQueries{ksQueryLoad: newLiveQueries(req, check, t, spec.Records, ld), targets: t}
	go q.run()
	return q, nil
}

// withAPI turns on every instance's API layer (setAPIProps: any free
// port, the load's retry; setRouteProps: its partitioner) when the case
// has a query load.
func withAPI(f *fleet, req Request) {
	setAPIProps(f.base, req.Case.Queries)
	setRouteProps(f.base, req)
}

// activePartitions are the store partitions p holds active by its
// latest task list.
func activePartitions(p *proc) []int32 {
	var out []int32
	for _, task := range latestTasks(p.inst.Events()).active {
		if n, err := taskPartition(task); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// monoTime is the wall-clock time of CLOCK_MONOTONIC ns.
func monoTime(ns int64) time.Time {
	return time.Now().Add(-time.Duration(ksdriver.NowMonoNs() - ns))
}

// finishQueries, when q runs, marks every move done at endNs (0: none
// ended), lets the lookups go on for queries.after (none after a failed
// run, whose ctx may be over) and returns the record.
func (q *fleetQueries) finish(ctx context.Context, endNs int64, failed bool) *runs.QueryFigures {
	if q == nil {
		return nil
	}
	if endNs > 0 {
		q.restored(endNs)
	}
	if failed {
		return q.stop()
	}
	return q.ksQueryLoad.finish(ctx)
}

// wrongReads is an ErrUnverified error when rec's lookups met a wrong
// answer (nil otherwise), and marks the restore record unverified.
func wrongReads(rec *runs.Restore, req Request) error {
	q := rec.Queries
	if q == nil || q.Wrong == 0 {
		return nil
	}
	rec.Verified = false
	msg := wrongReadsText(q.Wrong, q.Answered, q.Misrouted, q.WrongReads[0])
	return fmt.Errorf("%w: case %s #%d: %s", ErrUnverified, req.Case.Name, req.Repeat, msg)
}
