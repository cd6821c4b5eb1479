package scenario

import (
	"fmt"
	"time"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// A rolling restart with a query load (the case's queries block) sends
// lookups to every live instance's API layer from the settle wait before
// the first restart until queries.after past the last ready (and between
// restarts, queries.after past each ready before the next stop), an instance
// taken out of rotation just before it is stopped (as a load balancer's
// health check would), back once its new process's API layer listens.
// Each restart follows the keys of the store partitions the instance held
// active at its stop, from the stop until the next restart's stop (or the
// end), and cuts the lookups into windows at its stop and its ready: its
// row's Reads (runs.MoveReads) has that outage, the latencies before the
// stop, until ready and after, and the answers by instance until ready.
// The record's Queries are the whole sequence's: Before until the first
// stop, During until the last ready, After from then on.

// rollingReads is a rolling restart's query load and its restarts' outages.
type rollingReads struct {
	q       *queryload.FleetQueries
	outages []*queryload.ReadOutage
}

// begin opens the window before the first restart.
func (rr *rollingReads) begin() {
	if rr != nil && rr.q != nil {
		rr.q.Mark()
	}
}

// finish stops the lookups (see fleetQueries.finish), every restart done
// at lastReadyNs (0: not all were).
func (rr *rollingReads) finish(r *rolling, lastReadyNs int64, failed bool) {
	if rr != nil && rr.q != nil {
		r.rec.Queries = rr.q.Finish(r.ctx, lastReadyNs, failed)
	}
}

// stopping takes p out of rotation, ends the previous restart's outage,
// follows p's keys and opens restart i's window from the stop.
func (rr *rollingReads) stopping(p *fleet.Proc) {
	if rr == nil || rr.q == nil {
		return
	}
	rr.q.Targets.Drain(p)
	if n := len(rr.outages); n > 0 {
		rr.q.EndFollow(rr.outages[n-1])
	} else {
		rr.q.Killed(time.Now()) // the sequence's Before ends at the first stop
	}
	rr.outages = append(rr.outages, rr.q.Follow(queryload.ActivePartitions(p)))
	rr.q.Mark()
}

// ready opens the window after a restart's ready and lets the lookups go
// on for queries.after before the next restart (the last one's wait is
// the load's finish), so that each restart's row has latencies after it.
func (rr *rollingReads) ready(r *rolling) error {
	if rr == nil || rr.q == nil {
		return nil
	}
	rr.q.Mark()
	if len(rr.outages) == r.rr.Instances {
		return nil
	}
	return r.f.Wait(r.ctx, rr.q.Settings.After.D())
}

// row is restart i's reads, taken over at readyNs (0: never ready), once
// the load stopped; nil without a query load.
func (rr *rollingReads) row(i int, readyNs int64) *runs.MoveReads {
	if rr == nil || rr.q == nil || i >= len(rr.outages) {
		return nil
	}
	o, l := rr.outages[i], rr.q.KSQueryLoad
	var m *runs.MoveReads
	func() {
		l.Mu.Lock()
		defer l.Mu.Unlock()
		var taken time.Time // never ready: not taken over
		if readyNs > 0 {
			taken = queryload.MonoTime(readyNs)
		}
		m = queryload.MoveReads(o, taken, l.Window(2*i), l.Window(2*i+1), l.Window(2*i+2))
	}()
	return m
}

// logReads prints each restart's outage.
func (r *rolling) logReads() {
	for _, row := range r.rr.Restarts {
		if m := row.Reads; m != nil && m.Outage != nil {
			o := m.Outage
			r.env.Logf("rolling: case %s #%d: restart of %s: its keys (partitions %v) %d lookups, %d refused, longest "+
				"unanswered %.2fs, served again %s; p99 ms before/during/after %.1f/%.1f/%.1f",
				r.req.Case.Name, r.req.Repeat, row.Instance, o.Partitions, o.Lookups, o.Refused, o.LongestUnansweredSeconds, fmtOptSeconds(o.ServedAgainSeconds),
				m.Before.P99Ms, m.During.P99Ms, m.After.P99Ms)
		}
	}
}

// fmtOptSeconds is "1.23s", or "never" for nil.
func fmtOptSeconds(s *float64) string {
	if s == nil {
		return "never"
	}
	return fmt.Sprintf("%.2fs", *s)
}
