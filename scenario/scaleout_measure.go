package scenario

import (
	"fmt"
	"sort"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// offsetsAt are a topic's offsets at a moment of the measurement.
type offsetsAt = cluster.TopicOffsets

// sizes are each partition's offsets between start and end.
func sizes(o offsetsAt) map[int32]int64 {
	out := map[int32]int64{}
	for p, end := range o.End {
		out[p] = end - o.Start[p]
	}
	return out
}

func totalOffsets(o offsetsAt) int64 {
	var n int64
	for _, v := range sizes(o) {
		n += v
	}
	return n
}

// restoreRate is the offsets a second one stream thread restored in the
// processes' restores: per process, the offsets from each restore_start's
// start offset to its last restore_batch, over the time from its first
// restore_start to its last restore_end; summed offsets over summed time,
// per thread. 0 when nothing was restored.
func restoreRate(procs []*fleet.Proc, store string, threads int) float64 {
	var offsets, ns int64
	for _, p := range procs {
		o, first, last := restoredOffsets(p.Inst.Events(), store)
		if o > 0 && last > first {
			offsets += o
			ns += last - first
		}
	}
	if ns == 0 {
		return 0
	}
	return float64(offsets) / (float64(ns) / 1e9) / float64(max(threads, 1))
}

// restoredOffsets sums one process's restored offsets and returns the span
// of its restores.
func restoredOffsets(events []ksdriver.Event, store string) (offsets, first, last int64) {
	start, reached := map[int32]int64{}, map[int32]int64{}
	flush := func(p int32) {
		if r, ok := reached[p]; ok {
			offsets += r - start[p] + 1
			delete(reached, p)
		}
	}
	for _, e := range events {
		switch e := e.(type) {
		case *ksdriver.RestoreStart:
			if e.Store == store {
				flush(e.Partition)
				start[e.Partition] = e.StartOffset
				if first == 0 {
					first = e.MonoNs
				}
			}
		case *ksdriver.RestoreBatch:
			if e.Store == store {
				reached[e.Partition] = e.BatchEndOffset
			}
		case *ksdriver.RestoreEnd:
			if e.Store == store {
				last = e.MonoNs
			}
		case *ksdriver.RestoreSuspended:
			if e.Store == store {
				last = e.MonoNs
			}
		}
	}
	for p := range reached {
		flush(p)
	}
	return offsets, first, last
}

// firstAssigned is when a process first showed an assignment: its first
// standby_start or restore_start, or its first RUNNING (an instance given
// nothing to restore); 0 if never.
func firstAssigned(events []ksdriver.Event) int64 {
	for _, e := range events {
		switch e := e.(type) {
		case *ksdriver.StandbyStart, *ksdriver.RestoreStart:
			return e.Head().MonoNs
		case *ksdriver.StateChange:
			if e.To == ksdriver.StateRunning {
				return e.MonoNs
			}
		}
	}
	return 0
}

// startupSeconds is, from the origin, when the rebalance that gave the
// last of the new instances its first assignment began: the latest group
// rebalance before that assignment showed (rebalance starts are
// monotonic ns). 0 when a new instance never got one.
func startupSeconds(procs []*fleet.Proc, rebalances []int64, origin int64) float64 {
	var latest int64
	for _, p := range procs {
		if !p.Newcomer {
			continue
		}
		at := firstAssigned(p.Inst.Events())
		if at == 0 {
			return 0
		}
		latest = max(latest, at)
	}
	start := latest
	for _, r := range rebalances {
		if r <= latest {
			start = r
		}
	}
	return fleet.SecsFrom(origin, start)
}

// rebalanceSeconds is the median time from a rebalance's start until every
// instance that took part was RUNNING again.
func rebalanceSeconds(insts []fleet.InstanceEvents, starts []int64) float64 {
	var ds []float64
	for i, r := range starts {
		next := int64(1<<63 - 1)
		if i+1 < len(starts) {
			next = starts[i+1]
		}
		var done int64
		for _, in := range insts {
			for _, e := range in.Events {
				if s, ok := e.(*ksdriver.StateChange); ok && s.To == ksdriver.StateRunning && s.MonoNs > r && s.MonoNs < next {
					done = max(done, s.MonoNs)
					break
				}
			}
		}
		if done > 0 {
			ds = append(ds, float64(done-r)/1e9)
		}
	}
	return runs.Median(ds)
}

// predict runs the warmup model on the inputs this run measured and
// records its prediction next to the measurement.
func (s *scaleOut) predict(insts []fleet.InstanceEvents, tl fleet.Timeline, atOrigin offsetsAt) {
	sr := s.sr
	if sr.RestoreRate <= 0 || !sr.Balanced {
		sr.Notes = append(sr.Notes, "no model prediction: the run did not measure a restore rate or did not end balanced")
		return
	}
	in := sr.ModelInputs()
	in.RestoreRateFrom = fmt.Sprintf("this run's setup (%d instances restoring the changelog)", sr.Before)
	for _, t := range tl.Tasks {
		in.TaskOffsets = append(in.TaskOffsets, t.Offsets)
		in.TaskLogStart = append(in.TaskLogStart, atOrigin.Start[t.Partition])
	}
	in.RebalanceSeconds = rebalanceSeconds(insts, tl.Rebalances)
	in.Order, in.Initial = s.processOrder(), initialOwners(tl.Tasks)
	in.Source = fmt.Sprintf("measured in case %s #%d (sizes at the scale-out, restore rate in the setup, load rate, "+
		"startup, rebalance and follow-up times measured, process ids from the state directories)",
		s.req.Case.Name, s.req.Repeat)
	if sr.ProbingIntervalSeconds < warmup.MinProbingIntervalSeconds && sr.Protocol == warmup.ProtocolClassic {
		sr.Notes = append(sr.Notes, "no model prediction: probing interval under Kafka Streams' minimum")
		return
	}
	p, err := warmup.Predict(in)
	if err != nil {
		sr.Notes = append(sr.Notes, "no model prediction: "+err.Error())
		return
	}
	sr.Prediction = &p
	if m := sr.WarmupAssignmentSeconds; m > 0 {
		sr.PredictionErrorPct = (p.TotalSeconds - m) / m * 100
	}
}

// clientIndex is an instance's index in the model: i<k> is client k.
func clientIndex(id string) (int, bool) {
	var k int
	_, err := fmt.Sscanf(id, "i%d", &k)
	return k, err == nil
}

// processOrder lists the model's clients in process-id order, or nil when
// an id is unknown.
func (s *scaleOut) processOrder() []int {
	pid := make([]string, s.sr.After)
	for _, p := range s.f.Procs {
		if k, ok := clientIndex(p.ID); ok && k < len(pid) && p.ProcessID != "" {
			pid[k] = p.ProcessID
		}
	}
	order := make([]int, len(pid))
	for i := range order {
		if pid[i] == "" {
			return nil
		}
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ksdriver.CompareProcessIDs(pid[order[a]], pid[order[b]]) < 0 })
	return order
}

// initialOwners is each task's client at the origin, or nil if unknown.
func initialOwners(tasks []runs.TaskTimeline) []int {
	out := make([]int, len(tasks))
	for i, t := range tasks {
		k, ok := clientIndex(t.From)
		if !ok {
			return nil
		}
		out[i] = k
	}
	return out
}
