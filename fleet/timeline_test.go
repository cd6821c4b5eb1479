package fleet

import (
	"math"
	"testing"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// soSec is s seconds as monotonic ns.
func soSec(s float64) int64 { return int64(s * 1e9) }

func soMeta(s float64) ksdriver.Meta { return ksdriver.Meta{MonoNs: soSec(s)} }

func soState(s float64, from, to string) *ksdriver.StateChange {
	return &ksdriver.StateChange{Meta: soMeta(s), From: from, To: to}
}

func soSnapshot(s float64, active, standby []string) *ksdriver.Tasks {
	return &ksdriver.Tasks{Meta: soMeta(s), Threads: []ksdriver.ThreadTasks{{Name: "t1", State: "RUNNING", Active: active, Standby: standby}}}
}

func soSP(p int32) ksdriver.StorePartition {
	return ksdriver.StorePartition{Store: "s", Topic: "app-s-changelog", Partition: p}
}

// soProcessed reports partition p processed every 100 ms over [from, to),
// offsets counting on from first.
func soProcessed(p int32, from, to float64, first int64) []ksdriver.Event {
	var out []ksdriver.Event
	off := first
	for t := from; t < to-1e-9; t += 0.1 {
		out = append(out, &ksdriver.Processed{Meta: soMeta(t + 0.1), Partitions: []ksdriver.ProcessedPartition{
			{Topic: "in", Partition: p, Records: 10, LastOffset: off + 9, FirstMonoNs: soSec(t + 0.01), LastMonoNs: soSec(t + 0.09)},
		}})
		off += 10
	}
	return out
}

// soSorted orders synthetic events by time, as an instance sends them.
func soSorted(evs ...[]ksdriver.Event) []ksdriver.Event {
	var out []ksdriver.Event
	for _, e := range evs {
		out = append(out, e...)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Head().MonoNs < out[j-1].Head().MonoNs; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// scaleOutEvents is a synthetic 1 -> 2 scale-out of two tasks: i0 runs 0_0
// and 0_1; i1 starts at 10 s, warms 0_1 up from 11.5 s (lag 50,000 at
// 12 s, 5,000 at 13 s); the probing rebalance at 71 s promotes the warmup,
// which restores until 71.7 s; 0_1 is processed by i0 until 71.0 s and by
// i1 from 72.0 s.
func scaleOutEvents() []InstanceEvents {
	i0 := soSorted([]ksdriver.Event{
		soState(0, "CREATED", "REBALANCING"), soState(0.5, "REBALANCING", "RUNNING"),
		soSnapshot(1, []string{"0_0", "0_1"}, nil),
		soState(11, "RUNNING", "REBALANCING"), soState(11.2, "REBALANCING", "RUNNING"),
		soState(71, "RUNNING", "REBALANCING"), soState(71.4, "REBALANCING", "RUNNING"),
		soSnapshot(71.6, []string{"0_0"}, nil),
	}, soProcessed(0, 0, 90, 0), soProcessed(1, 0, 71, 0))
	i1 := soSorted([]ksdriver.Event{
		soState(10.5, "CREATED", "REBALANCING"),
		&ksdriver.StandbyStart{Meta: soMeta(11.5), StorePartition: soSP(1)},
		soSnapshot(11.6, nil, []string{"0_1"}), soState(11.6, "REBALANCING", "RUNNING"),
		&ksdriver.Lags{Meta: soMeta(12), Lags: []ksdriver.StoreLag{{Store: "s", Partition: 1, Lag: 50_000}}},
		&ksdriver.Lags{Meta: soMeta(13), Lags: []ksdriver.StoreLag{{Store: "s", Partition: 1, Lag: 5_000}}},
		soState(71.1, "RUNNING", "REBALANCING"),
		&ksdriver.StandbySuspended{Meta: soMeta(71.5), StorePartition: soSP(1), Reason: "PROMOTED"},
		&ksdriver.RestoreStart{Meta: soMeta(71.5), StorePartition: soSP(1)},
		&ksdriver.RestoreBatch{Meta: soMeta(71.6), StorePartition: soSP(1), Records: 700},
		&ksdriver.RestoreEnd{Meta: soMeta(71.7), StorePartition: soSP(1), Restored: 700},
		soSnapshot(71.8, []string{"0_1"}, nil), soState(71.8, "REBALANCING", "RUNNING"),
		&ksdriver.StandbyBatch{Meta: soMeta(20), StorePartition: soSP(1), Records: 45_000},
	}, soProcessed(1, 72, 90, 100_000))
	return []InstanceEvents{{ID: "i0", Events: i0}, {ID: "i1", Events: i1}}
}

func scaleOutSpec() TimelineSpec {
	return TimelineSpec{Origin: soSec(10), End: soSec(90), Store: "s", Input: "in", Partitions: 2, Acceptable: 10_000,
		Gap: 300 * time.Millisecond, GapFrom: soSec(10), GapTo: soSec(90), Offsets: map[int32]int64{0: 60_000, 1: 55_000}}
}

func soApprox(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestTimelineOfAWarmedUpMove: the moved task's timeline says where it ran,
// when its warmup started and caught up, when it moved and ran again; the
// rebalances are the two group rebalances (not the newcomer's start), one
// of them a probing one; the pause while it moved is its only gap.
func TestTimelineOfAWarmedUpMove(t *testing.T) {
	spec := scaleOutSpec()
	tl := BuildTimeline(spec, scaleOutEvents())
	CaughtUpAt(spec, tl.Tasks, tl.Lags)
	t0, t1 := tl.Tasks[0], tl.Tasks[1]
	if t0.From != "i0" || t0.To != "i0" || t0.Moved != -1 || len(t0.Gaps) != 0 || t0.Offsets != 60_000 {
		t.Fatalf("task 0_0: %+v", t0)
	}
	if t1.Task != "0_1" || t1.From != "i0" || t1.To != "i1" {
		t.Fatalf("task 0_1 from %s to %s", t1.From, t1.To)
	}
	if !soApprox(t1.WarmupStart, 1.5) || !soApprox(t1.CaughtUp, 3) || !soApprox(t1.Moved, 61.5) || !soApprox(t1.Running, 61.7) || !soApprox(t1.AssignmentSeconds, 61.7) {
		t.Fatalf("task 0_1 times: warmup %v caught up %v moved %v running %v", t1.WarmupStart, t1.CaughtUp, t1.Moved, t1.Running)
	}
	want := []runs.TaskSegment{
		{Instance: "i0", Role: runs.RoleActive, Start: -9, End: 61.6},
		{Instance: "i1", Role: runs.RoleWarmup, Start: 1.5, End: 61.5},
		{Instance: "i1", Role: runs.RoleRestoring, Start: 61.5, End: 61.7},
		{Instance: "i1", Role: runs.RoleActive, Start: 61.7, End: 80},
	}
	if len(t1.Segments) != len(want) {
		t.Fatalf("segments %+v", t1.Segments)
	}
	for i, s := range t1.Segments {
		w := want[i]
		if s.Instance != w.Instance || s.Role != w.Role || !soApprox(s.Start, w.Start) || !soApprox(s.End, w.End) {
			t.Fatalf("segment %d: %+v, want %+v", i, s, w)
		}
	}
	if len(t1.Gaps) != 1 || !soApprox(t1.Gaps[0].Start, 60.99) || !soApprox(t1.Gaps[0].End, 62.01) || !soApprox(t1.MaxGapSeconds, 1.02) {
		t.Fatalf("gaps %+v", t1.Gaps)
	}
	if len(tl.Rebalances) != 2 || tl.Rebalances[0] != soSec(11) || tl.Rebalances[1] != soSec(71) {
		t.Fatalf("rebalances %v", tl.Rebalances)
	}
	if p := ProbingRounds(tl.Rebalances, time.Minute); len(p) != 1 || p[0] != soSec(71) {
		t.Fatalf("probing rounds %v", p)
	}
	if tl.Warmups != 1 || tl.Restored != 700 || tl.Applied != 45_000 {
		t.Fatalf("warmups %d restored %d applied %d", tl.Warmups, tl.Restored, tl.Applied)
	}
	if len(tl.Lags) != 1 || tl.Lags[0].Role != runs.RoleWarmup || len(tl.Lags[0].Points) != 2 {
		t.Fatalf("lags %+v", tl.Lags)
	}
}

// TestGapsCountOnlyWhileInputWaited: when the first record processed after
// a pause was written late in it, the pause counts from then; a pause the
// load itself caused (the record written just before it was processed)
// does not count at all.
func TestGapsCountOnlyWhileInputWaited(t *testing.T) {
	spec := scaleOutSpec()
	spec.Produced = func(want map[int32][]int64) map[int32]map[int64]int64 {
		if len(want[1]) != 1 || want[1][0] != 100_000 {
			t.Fatalf("asked for %v", want)
		}
		return map[int32]map[int64]int64{1: {100_000: soSec(71.5)}}
	}
	g := BuildTimeline(spec, scaleOutEvents()).Tasks[1].Gaps
	if len(g) != 1 || !soApprox(g[0].Start, 61.5) || !soApprox(g[0].End, 62.01) {
		t.Fatalf("gaps %+v", g)
	}
	spec.Produced = func(map[int32][]int64) map[int32]map[int64]int64 {
		return map[int32]map[int64]int64{1: {100_000: soSec(71.9)}}
	}
	if g := BuildTimeline(spec, scaleOutEvents()).Tasks[1].Gaps; len(g) != 0 {
		t.Fatalf("a pause of the load counted: %+v", g)
	}
}

// TestStandbyBeyondReplicasIsAWarmup: with num.standby.replicas 1, a task's
// first standby is a standby; a second one started while the first runs is
// a warmup.
func TestStandbyBeyondReplicasIsAWarmup(t *testing.T) {
	segs := []segment{
		{Inst: "a", partition: 0, role: runs.RoleStandby, Start: 0, End: 100},
		{Inst: "b", partition: 0, role: runs.RoleStandby, Start: 50, End: 80},
		{Inst: "c", partition: 1, role: runs.RoleStandby, Start: 60, End: 70},
	}
	classifyStandbys(segs, 1)
	if segs[0].role != runs.RoleStandby || segs[1].role != runs.RoleWarmup || segs[2].role != runs.RoleStandby {
		t.Fatalf("roles %s %s %s", segs[0].role, segs[1].role, segs[2].role)
	}
}

// TestStaleSnapshotKeepsARestore: a tasks event that does not list a task
// restoring on the instance (the snapshot predates it) does not end the
// restore; one that omits a standby started long before ends it.
func TestStaleSnapshotKeepsARestore(t *testing.T) {
	spec := TimelineSpec{Origin: 0, End: soSec(30), Store: "s", Partitions: 2}
	evs := []ksdriver.Event{
		&ksdriver.RestoreStart{Meta: soMeta(1), StorePartition: soSP(0)},
		&ksdriver.StandbyStart{Meta: soMeta(1), StorePartition: soSP(1)},
		soSnapshot(2, nil, nil),
		&ksdriver.RestoreEnd{Meta: soMeta(5), StorePartition: soSP(0)},
		soSnapshot(6, []string{"0_0"}, nil),
		&ksdriver.Stopped{Meta: soMeta(20)},
	}
	segs := roleSegments(spec, InstanceEvents{ID: "a", Events: evs})
	got := map[string]segment{}
	for _, s := range segs {
		got[s.role+ksdriver.TaskName(s.partition)] = s
	}
	if r := got["restoring0_0"]; r.Start != soSec(1) || r.End != soSec(5) {
		t.Fatalf("restore %+v", r)
	}
	if a := got["active0_0"]; a.Start != soSec(5) || a.End != soSec(20) {
		t.Fatalf("active %+v", a)
	}
	if s := got["standby0_1"]; s.Start != soSec(1) || s.End != soSec(6) {
		t.Fatalf("standby %+v (kept through the 2 s snapshot, ended by the 6 s one)", s)
	}
}
