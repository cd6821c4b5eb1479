package scenario

import (
	"time"

	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// A scale-out with a query load (the case's queries block) sends lookups
// to every instance's API layer from the lead before the new instances
// start until queries.after past the balanced end: those until the start
// are the record's Queries.Before latencies, those until the balanced
// end During, the rest After. Which tasks move is known only at the end,
// so each partition's keys are followed on their own from the start
// (one readOutage each) and the moved tasks' become
// ScaleOutRecord.MovedReads, merged into Queries.Outage.

// followMoves marks the scale-out's start in the query load.
func (s *scaleOut) followMoves() {
	if s.q == nil {
		return
	}
	s.q.Killed(time.Now())
	s.moves = make([]*queryload.ReadOutage, s.sr.Tasks)
	for p := range s.moves {
		s.moves[p] = s.q.Follow([]int32{int32(p)})
	}
}

// movedReads records the moved tasks' outages, once the timeline says
// which moved.
func (s *scaleOut) movedReads() {
	if s.q == nil || s.rec.Queries == nil {
		return
	}
	for _, t := range s.sr.TaskTimelines {
		if t.From == t.To || t.Partition < 0 || int(t.Partition) >= len(s.moves) {
			continue
		}
		if o := s.q.OutageOf(s.moves[t.Partition]); o != nil {
			s.sr.MovedReads = append(s.sr.MovedReads, *o)
		}
	}
	s.rec.Queries.Outage = runs.MergeOutages(s.sr.MovedReads)
}
