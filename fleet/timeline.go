package fleet

import (
	"sort"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// rebalanceGap separates two group rebalances: transitions to REBALANCING
// on any instance closer together than this are one rebalance.
const rebalanceGap = time.Second

// standbyGrace is how long after a standby_start a `tasks` event may still
// omit the standby: metadataForLocalThreads() refreshes only when a thread
// becomes RUNNING, so a snapshot can predate the standby.
const standbyGrace = 2 * time.Second

// TimelineSpec says what a timeline is built from besides the events.
// Times are CLOCK_MONOTONIC nanoseconds, the clock of every event.
type TimelineSpec struct {
	// Origin is time 0 of the record; end where the timeline ends.
	Origin, End int64
	// Store is the state store; input the kv topology's input topic.
	Store, Input string
	// Partitions is the task count; standbys num.standby.replicas;
	// acceptable acceptable.recovery.lag.
	Partitions int
	Standbys   int
	Acceptable int64
	// Gap is the shortest pause in processing counted as a gap, within
	// [gapFrom, gapTo] (the write load's span after the origin; gapTo 0:
	// no load, no gaps measured).
	Gap            time.Duration
	GapFrom, GapTo int64
	// Offsets are each partition's changelog size at the origin.
	Offsets map[int32]int64
	// Produced, if set, says when input record (partition, offset) was
	// written (monotonic ns): a pause in processing counts only from when
	// the first record processed after it was there to process.
	Produced producedAt
}

// producedAt looks up when input records were written: for each
// partition, the times of the offsets asked for (missing when unknown).
type producedAt func(want map[int32][]int64) map[int32]map[int64]int64

// InstanceEvents are one instance process's events, in its order.
type InstanceEvents struct {
	ID     string
	Events []ksdriver.Event
}

// Timeline is what buildTimeline makes of every instance's events.
type Timeline struct {
	Tasks []runs.TaskTimeline
	Lags  []runs.LagSeries
	// Rebalances are the start times of group rebalances after the origin.
	Rebalances []int64
	// Restored and applied are the records restore_batch and standby_batch
	// events reported after the origin.
	Restored, Applied int64
	// Warmups counts warmup segments (task x instance) after the origin.
	Warmups int
}

// segment is one role of one task on one instance, in monotonic ns.
type segment struct {
	Inst       string
	partition  int32
	role       string
	Start, End int64
}

// BuildTimeline turns every instance's events into per-task timelines,
// lag series, rebalances and gaps in processing.
func BuildTimeline(spec TimelineSpec, insts []InstanceEvents) Timeline {
	var segs []segment
	for _, in := range insts {
		segs = append(segs, roleSegments(spec, in)...)
	}
	classifyStandbys(segs, spec.Standbys)
	var tl Timeline
	for _, s := range segs {
		if s.role == runs.RoleWarmup && s.End > spec.Origin {
			tl.Warmups++
		}
	}
	gaps := processingGaps(spec, insts)
	for p := int32(0); p < int32(spec.Partitions); p++ {
		tl.Tasks = append(tl.Tasks, taskTimeline(spec, p, segsOf(segs, p), gaps[p]))
	}
	tl.Lags = lagSeries(spec, insts, segs)
	tl.Rebalances = rebalanceStarts(spec, insts)
	tl.Restored, tl.Applied = BatchRecords(spec, insts)
	return tl
}

// roleTracker builds one instance's segments as its events come.
type roleTracker struct {
	Inst      string
	open      map[int32]*segment
	done      []segment
	listening map[int32]int64 // standby_start time of updating standbys
}

// set gives partition p role from ns on ("" for none), closing the
// segment of its previous role.
func (r *roleTracker) set(p int32, role string, ns int64) {
	cur := r.open[p]
	if cur != nil && cur.role == role {
		return
	}
	if cur != nil {
		cur.End = ns
		r.done = append(r.done, *cur)
		delete(r.open, p)
	}
	if role != "" {
		r.open[p] = &segment{Inst: r.Inst, partition: p, role: role, Start: ns}
	}
}

func (r *roleTracker) role(p int32) string {
	if s := r.open[p]; s != nil {
		return s.role
	}
	return ""
}

// roleSegments replays one instance's events into role segments: the
// listeners (restore_*, standby_*) say at once when a restore or standby
// starts and ends; `tasks` snapshots say which tasks the instance runs and
// end the roles of tasks it lost (but never a restore in progress, nor a
// standby that started too recently to be in the snapshot).
func roleSegments(spec TimelineSpec, in InstanceEvents) []segment {
	r := &roleTracker{Inst: in.ID, open: map[int32]*segment{}, listening: map[int32]int64{}}
	last := spec.End
	for _, e := range in.Events {
		ns := e.Head().MonoNs
		if ns > spec.End {
			break
		}
		if r.apply(spec, e, ns) {
			last = ns
			break
		}
	}
	for _, p := range sortedOpen(r.open) {
		r.set(p, "", last)
	}
	return r.done
}

// apply folds one event in and reports whether the instance stopped.
func (r *roleTracker) apply(spec TimelineSpec, e ksdriver.Event, ns int64) bool {
	switch e := e.(type) {
	case *ksdriver.RestoreStart:
		if e.Store == spec.Store {
			r.set(e.Partition, runs.RoleRestoring, ns)
		}
	case *ksdriver.RestoreEnd:
		if e.Store == spec.Store && r.role(e.Partition) == runs.RoleRestoring {
			r.set(e.Partition, runs.RoleActive, ns)
		}
	case *ksdriver.RestoreSuspended:
		if e.Store == spec.Store && r.role(e.Partition) == runs.RoleRestoring {
			r.set(e.Partition, "", ns)
		}
	case *ksdriver.StandbyStart:
		if e.Store == spec.Store {
			r.listening[e.Partition] = ns
			if role := r.role(e.Partition); role != runs.RoleActive && role != runs.RoleRestoring {
				r.set(e.Partition, runs.RoleStandby, ns)
			}
		}
	case *ksdriver.StandbySuspended:
		if e.Store == spec.Store {
			delete(r.listening, e.Partition)
			if r.role(e.Partition) == runs.RoleStandby {
				next := ""
				if e.Reason == "PROMOTED" {
					next = runs.RoleRestoring
				}
				r.set(e.Partition, next, ns)
			}
		}
	case *ksdriver.Tasks:
		r.snapshot(e, ns)
	case *ksdriver.Stopped:
		return true
	}
	return false
}

// snapshot applies a `tasks` event.
func (r *roleTracker) snapshot(e *ksdriver.Tasks, ns int64) {
	active, standby := map[int32]bool{}, map[int32]bool{}
	for _, th := range e.Threads {
		for _, t := range th.Active {
			if p, ok := ksdriver.TaskPartition(t); ok {
				active[p] = true
			}
		}
		for _, t := range th.Standby {
			if p, ok := ksdriver.TaskPartition(t); ok {
				standby[p] = true
			}
		}
	}
	for _, p := range sortedKeys(active) {
		if r.role(p) != runs.RoleRestoring {
			r.set(p, runs.RoleActive, ns)
		}
	}
	for _, p := range sortedKeys(standby) {
		if r.role(p) != runs.RoleRestoring {
			r.set(p, runs.RoleStandby, ns)
		}
	}
	for _, p := range sortedOpen(r.open) {
		if active[p] || standby[p] {
			continue
		}
		switch r.role(p) {
		case runs.RoleActive:
			r.set(p, "", ns)
		case runs.RoleStandby:
			if at, ok := r.listening[p]; !ok || ns-at > standbyGrace.Nanoseconds() {
				r.set(p, "", ns)
			}
		}
	}
}

func sortedKeys(m map[int32]bool) []int32 {
	out := make([]int32, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func sortedOpen(m map[int32]*segment) []int32 {
	out := make([]int32, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// classifyStandbys marks as warmups the standby segments beyond
// num.standby.replicas: a standby that starts while standbys other
// instances hold of its task already number num.standby.replicas is a
// KIP-441 warmup (the assignor encodes warmups as standbys).
func classifyStandbys(segs []segment, standbys int) {
	for i := range segs {
		s := &segs[i]
		if s.role != runs.RoleStandby {
			continue
		}
		others := 0
		for _, o := range segs {
			if o.partition == s.partition && o.Inst != s.Inst && (o.role == runs.RoleStandby || o.role == runs.RoleWarmup) &&
				o.Start <= s.Start && o.End > s.Start {
				others++
			}
		}
		if others >= standbys {
			s.role = runs.RoleWarmup
		}
	}
}

func segsOf(segs []segment, p int32) []segment {
	var out []segment
	for _, s := range segs {
		if s.partition == p {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// Secs is ns as seconds from the origin.
func (spec TimelineSpec) Secs(ns int64) float64 { return float64(ns-spec.Origin) / 1e9 }

// owns reports whether a segment is the task's active (running or restoring).
func owns(s segment) bool { return s.role == runs.RoleActive || s.role == runs.RoleRestoring }

// taskTimeline assembles one task's timeline from its segments (sorted by
// start) and gaps. From is the instance that owned it at the origin, To the
// one that owned it last; for a task that moved, Moved is when To became
// its owner, Running when To first ran it after that, WarmupStart when the
// warmup (or standby) To held before that began.
func taskTimeline(spec TimelineSpec, p int32, segs []segment, gaps []runs.Gap) runs.TaskTimeline {
	t := runs.TaskTimeline{Task: ksdriver.TaskName(p), Partition: p, Offsets: spec.Offsets[p], WarmupStart: -1, CaughtUp: -1, Moved: -1, Running: -1, Gaps: gaps}
	for _, s := range segs {
		t.Segments = append(t.Segments, runs.TaskSegment{Instance: s.Inst, Role: s.role, Start: spec.Secs(s.Start), End: spec.Secs(s.End)})
		if owns(s) && s.Start <= spec.Origin {
			t.From = s.Inst
		}
		if owns(s) {
			t.To = s.Inst
		}
	}
	for _, g := range gaps {
		t.NotProcessingSeconds += g.End - g.Start
		t.MaxGapSeconds = max(t.MaxGapSeconds, g.End-g.Start)
	}
	if t.To == "" || t.To == t.From {
		return t
	}
	moved := -1
	for i, s := range segs {
		if s.Inst == t.To && owns(s) && s.End > spec.Origin {
			moved = i
			break
		}
	}
	if moved < 0 {
		return t
	}
	t.Moved = spec.Secs(segs[moved].Start)
	for _, s := range segs[moved:] {
		if s.Inst == t.To && s.role == runs.RoleActive {
			t.Running = spec.Secs(s.Start)
			t.AssignmentSeconds = t.Running
			break
		}
	}
	for _, s := range segs[:moved] {
		if s.Inst == t.To && (s.role == runs.RoleWarmup || s.role == runs.RoleStandby) && s.End > spec.Origin {
			t.WarmupStart = spec.Secs(s.Start)
		}
	}
	return t
}

// roleAt is the role of partition p on inst at ns ("" for none).
func roleAt(segs []segment, inst string, p int32, ns int64) string {
	for _, s := range segs {
		if s.Inst == inst && s.partition == p && s.Start <= ns && ns < s.End {
			return s.role
		}
	}
	return ""
}

// lagSeries collects, from lags events after the origin, the lag of every
// replica that is not a running active: warmups, standbys, restores. A
// warmup's first lag within acceptable.recovery.lag on the task's final
// owner is when it caught up.
func lagSeries(spec TimelineSpec, insts []InstanceEvents, segs []segment) []runs.LagSeries {
	type key struct {
		Inst string
		p    int32
	}
	series := map[key]*runs.LagSeries{}
	var order []key
	for _, in := range insts {
		for _, e := range in.Events {
			l, ok := e.(*ksdriver.Lags)
			if !ok || l.MonoNs < spec.Origin || l.MonoNs > spec.End {
				continue
			}
			for _, sl := range l.Lags {
				role := roleAt(segs, in.ID, sl.Partition, l.MonoNs)
				if sl.Store != spec.Store || role == "" || role == runs.RoleActive {
					continue
				}
				k := key{in.ID, sl.Partition}
				s := series[k]
				if s == nil {
					s = &runs.LagSeries{Task: ksdriver.TaskName(sl.Partition), Instance: in.ID, Role: role}
					series[k] = s
					order = append(order, k)
				}
				s.Points = append(s.Points, runs.LagPoint{T: spec.Secs(l.MonoNs), Lag: sl.Lag})
			}
		}
	}
	out := make([]runs.LagSeries, 0, len(order))
	for _, k := range order {
		out = append(out, *series[k])
	}
	return out
}

// CaughtUpAt fills in each moved task's CaughtUp: the first lag within
// acceptable.recovery.lag its final owner reported while it warmed up.
func CaughtUpAt(spec TimelineSpec, tasks []runs.TaskTimeline, lags []runs.LagSeries) {
	for i := range tasks {
		t := &tasks[i]
		if t.To == t.From || t.To == "" {
			continue
		}
		for _, s := range lags {
			if s.Task != t.Task || s.Instance != t.To || (s.Role != runs.RoleWarmup && s.Role != runs.RoleStandby) {
				continue
			}
			for _, pt := range s.Points {
				if pt.Lag <= spec.Acceptable && (t.Moved < 0 || pt.T <= t.Moved) {
					t.CaughtUp = pt.T
					break
				}
			}
		}
	}
}

// interval is a span in which a partition's records were processed, and
// the first offset it processed.
type interval struct{ first, last, firstOffset int64 }

// rawGap is a pause in one partition's processing and the offset of the
// first record processed after it (-1 at the end of the window).
type rawGap struct{ Start, End, next int64 }

// processingGaps finds, per input partition, the pauses in processing
// longer than the threshold within [gapFrom, gapTo], from every
// instance's processed events together (a task that moves is processed by
// its new owner). With spec.produced, a pause counts only from when the
// first record processed after it had been written: a pause of the load
// itself is not the application's.
func processingGaps(spec TimelineSpec, insts []InstanceEvents) map[int32][]runs.Gap {
	out := map[int32][]runs.Gap{}
	if spec.GapTo <= spec.GapFrom {
		return out
	}
	spans := map[int32][]interval{}
	for _, in := range insts {
		for _, e := range in.Events {
			pr, ok := e.(*ksdriver.Processed)
			if !ok {
				continue
			}
			for _, pp := range pr.Partitions {
				if pp.Topic == spec.Input && pp.Records > 0 {
					spans[pp.Partition] = append(spans[pp.Partition], interval{pp.FirstMonoNs, pp.LastMonoNs, pp.LastOffset - pp.Records + 1})
				}
			}
		}
	}
	raw := map[int32][]rawGap{}
	for p := int32(0); p < int32(spec.Partitions); p++ {
		raw[p] = gapsIn(spans[p], spec)
	}
	if spec.Produced != nil {
		trimToProduced(raw, spec.Produced)
	}
	for p, gs := range raw {
		for _, g := range gs {
			if g.End-g.Start > spec.Gap.Nanoseconds() {
				out[p] = append(out[p], runs.Gap{Start: spec.Secs(g.Start), End: spec.Secs(g.End)})
			}
		}
	}
	return out
}

// gapsIn walks one partition's processing spans in time order and returns
// its pauses longer than the threshold.
func gapsIn(spans []interval, spec TimelineSpec) []rawGap {
	sort.Slice(spans, func(i, j int) bool { return spans[i].first < spans[j].first })
	var gaps []rawGap
	cursor, limit := spec.GapFrom, spec.Gap.Nanoseconds()
	add := func(from, to, next int64) {
		if to-from > limit {
			gaps = append(gaps, rawGap{from, to, next})
		}
	}
	for _, s := range spans {
		if s.last < cursor {
			continue
		}
		if s.first > spec.GapTo {
			break
		}
		add(cursor, s.first, s.firstOffset)
		cursor = max(cursor, s.last)
	}
	add(cursor, spec.GapTo, -1)
	return gaps
}

// trimToProduced starts each gap no earlier than the first record
// processed after it was written.
func trimToProduced(raw map[int32][]rawGap, produced producedAt) {
	want := map[int32][]int64{}
	for p, gs := range raw {
		for _, g := range gs {
			if g.next >= 0 {
				want[p] = append(want[p], g.next)
			}
		}
	}
	if len(want) == 0 {
		return
	}
	at := produced(want)
	for p, gs := range raw {
		for i := range gs {
			if ns, ok := at[p][gs[i].next]; ok && gs[i].next >= 0 && ns > gs[i].Start {
				gs[i].Start = min(ns, gs[i].End)
			}
		}
	}
}

// rebalanceStarts clusters every instance's transitions to REBALANCING
// after the origin (but a client's first, from CREATED) into group
// rebalances and returns when each began.
func rebalanceStarts(spec TimelineSpec, insts []InstanceEvents) []int64 {
	var at []int64
	for _, in := range insts {
		for _, e := range in.Events {
			s, ok := e.(*ksdriver.StateChange)
			// CREATED -> REBALANCING is a client starting, not a rebalance:
			// its joining shows as the members' transitions.
			if ok && s.To == ksdriver.StateRebalancing && s.From != ksdriver.StateCreated && s.MonoNs >= spec.Origin && s.MonoNs <= spec.End {
				at = append(at, s.MonoNs)
			}
		}
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	var starts []int64
	for i, ns := range at {
		if i == 0 || ns-at[i-1] >= rebalanceGap.Nanoseconds() {
			starts = append(starts, ns)
		}
	}
	return starts
}

// ProbingRounds picks the rebalances that came at least three quarters of
// a probing interval after the one before: KIP-441's probing rebalances
// (nothing else starts a rebalance while the group only warms up).
func ProbingRounds(starts []int64, interval time.Duration) []int64 {
	var out []int64
	for i := 1; i < len(starts); i++ {
		if starts[i]-starts[i-1] >= interval.Nanoseconds()*3/4 {
			out = append(out, starts[i])
		}
	}
	return out
}

// BatchRecords sums the records restore_batch and standby_batch events
// reported between the origin and the end.
func BatchRecords(spec TimelineSpec, insts []InstanceEvents) (restored, applied int64) {
	for _, in := range insts {
		for _, e := range in.Events {
			if ns := e.Head().MonoNs; ns < spec.Origin || ns > spec.End {
				continue
			}
			switch e := e.(type) {
			case *ksdriver.RestoreBatch:
				restored += e.Records
			case *ksdriver.StandbyBatch:
				applied += e.Records
			}
		}
	}
	return restored, applied
}
