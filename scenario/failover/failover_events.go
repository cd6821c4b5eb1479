package failover

import (
	"strings"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// What a failover measurement reads from the instances' events. These are
// pure functions of event slices, so the arithmetic is tested on synthetic
// timelines.

// latestState is the state the last state event in events moved to ("" when none).
func latestState(events []ksdriver.Event) string {
	if s, ok := ksdriver.Last[*ksdriver.StateChange](events); ok {
		return s.To
	}
	return ""
}

// lastProcessed returns, per partition of topic, the time the last record
// the events report processed was processed (LastMonoNs).
func lastProcessed(events []ksdriver.Event, topic string) map[int32]int64 {
	out := map[int32]int64{}
	for _, e := range events {
		if pe, ok := e.(*ksdriver.Processed); ok {
			for _, p := range pe.Partitions {
				if p.Topic == topic && p.Records > 0 {
					out[p.Partition] = max(out[p.Partition], p.LastMonoNs)
				}
			}
		}
	}
	return out
}

// firstProcessedAfter returns, per partition of topic, when the first
// record processed at or after afterNs was processed (FirstMonoNs of the
// first processed entry that starts then).
func firstProcessedAfter(events []ksdriver.Event, topic string, afterNs int64) map[int32]int64 {
	out := map[int32]int64{}
	for _, e := range events {
		pe, ok := e.(*ksdriver.Processed)
		if !ok {
			continue
		}
		for _, p := range pe.Partitions {
			if p.Topic != topic || p.Records == 0 || p.FirstMonoNs < afterNs {
				continue
			}
			if _, seen := out[p.Partition]; !seen {
				out[p.Partition] = p.FirstMonoNs
			}
		}
	}
	return out
}

// maxProcessedOffset returns, per partition of topic, the highest offset
// the events report processed.
func maxProcessedOffset(events []ksdriver.Event, topic string) map[int32]int64 {
	out := map[int32]int64{}
	for _, e := range events {
		if pe, ok := e.(*ksdriver.Processed); ok {
			for _, p := range pe.Partitions {
				if p.Topic != topic || p.Records == 0 {
					continue
				}
				if cur, seen := out[p.Partition]; !seen || p.LastOffset > cur {
					out[p.Partition] = p.LastOffset
				}
			}
		}
	}
	return out
}

// foTakeover is how a survivor took one task over, from its events.
type foTakeover struct {
	kind                    string
	restoreStart            int64 // -1 without a restore
	restored                int64
	restoreNs, restoreEndNs int64
}

// classifyTakeover reads how the survivor's events (those after the kill)
// took over the task of changelog partition p: a standby promoted
// (standby_suspended PROMOTED), else a restore from a local checkpoint
// (restore_start above offset 0) or from the changelog's start, else
// nothing to restore.
func classifyTakeover(events []ksdriver.Event, changelog string, p int32) foTakeover {
	t := foTakeover{kind: runs.TakeoverNone, restoreStart: -1}
	promoted := false
	for _, e := range events {
		switch e := e.(type) {
		case *ksdriver.StandbySuspended:
			if e.Topic == changelog && e.Partition == p && e.Reason == "PROMOTED" {
				promoted = true
			}
		case *ksdriver.RestoreStart:
			if e.Topic == changelog && e.Partition == p && t.restoreStart < 0 {
				t.restoreStart, t.restoreNs = e.StartOffset, e.MonoNs
			}
		case *ksdriver.RestoreEnd:
			if e.Topic == changelog && e.Partition == p && t.restoreStart >= 0 && t.restoreEndNs == 0 {
				t.restored, t.restoreEndNs = e.Restored, e.MonoNs
			}
		}
	}
	switch {
	case promoted:
		t.kind = runs.TakeoverPromoted
	case t.restoreStart > 0:
		t.kind = runs.TakeoverWarm
	case t.restoreStart == 0:
		t.kind = runs.TakeoverRestored
	}
	return t
}

// firstStateAfter returns the time of the first state change to `to` in
// events at or after afterNs (0 when none).
func firstStateAfter(events []ksdriver.Event, to string, afterNs int64) int64 {
	for _, e := range events {
		if s, ok := e.(*ksdriver.StateChange); ok && s.To == to && s.MonoNs >= afterNs {
			return s.MonoNs
		}
	}
	return 0
}

// firstActiveAll returns the time of the first tasks event in events that
// lists every one of tasks active (0 when none does).
func firstActiveAll(events []ksdriver.Event, tasks []string) int64 {
	for _, e := range events {
		te, ok := e.(*ksdriver.Tasks)
		if !ok {
			continue
		}
		have := map[string]bool{}
		for _, th := range te.Threads {
			for _, a := range th.Active {
				have[a] = true
			}
		}
		all := true
		for _, t := range tasks {
			all = all && have[t]
		}
		if all {
			return te.MonoNs
		}
	}
	return 0
}

// foKill is what a kill's measurement reads: the moment of the kill, the
// killed instance's whole event stream, the survivor's events since just
// before the kill, the tasks the killed instance had active and the
// topics involved.
type foKill struct {
	killNs       int64
	victim       []ksdriver.Event
	survivor     []ksdriver.Event
	victimTasks  []string
	input, store string // input topic, changelog topic
}

// takenOver reports whether the survivor has processed a record of every
// victim task since the kill, is RUNNING after a rebalance and has listed
// every victim task active (its task list is polled, so it may come a
// moment after the first record), and if not what it still waits for.
func (k foKill) takenOver() (bool, string) {
	first := firstProcessedAfter(k.survivor, k.input, k.killNs)
	var waiting []string
	for _, task := range k.victimTasks {
		p, err := fleet.TaskPartition(task)
		if err != nil {
			return false, err.Error()
		}
		if _, ok := first[p]; !ok {
			waiting = append(waiting, task)
		}
	}
	if len(waiting) > 0 {
		return false, "no record processed yet for task(s) " + strings.Join(waiting, ", ")
	}
	if k.runningNs() == 0 {
		return false, "not RUNNING again yet"
	}
	if firstActiveAll(k.survivor, k.victimTasks) < k.killNs {
		return false, "its task list does not show every victim task active yet"
	}
	return true, ""
}

// runningNs is when the survivor was RUNNING again after the kill's
// rebalance: the first RUNNING after its first REBALANCING since the kill
// (0 when not yet). A survivor that reports no REBALANCING counts from
// the kill.
func (k foKill) runningNs() int64 {
	from := firstStateAfter(k.survivor, ksdriver.StateRebalancing, k.killNs)
	if from == 0 {
		from = k.killNs
	}
	return firstStateAfter(k.survivor, ksdriver.StateRunning, from)
}

// measure turns the events into the kill's figures (the settings and the
// sequence's bookkeeping are filled in by the caller).
func (k foKill) measure() (runs.FailoverRecord, error) {
	last := lastProcessed(k.victim, k.input)
	first := firstProcessedAfter(k.survivor, k.input, k.killNs)
	fr := runs.FailoverRecord{VictimTasks: k.victimTasks}
	var gaps []float64
	kinds := map[string]bool{}
	for _, task := range k.victimTasks {
		p, err := fleet.TaskPartition(task)
		if err != nil {
			return fr, err
		}
		ft := runs.FailoverTask{Task: task, Partition: p, GapSeconds: -1}
		from, ok := last[p]
		if !ok {
			from = k.killNs // it processed nothing of the task: count from the kill
		}
		ft.IdleBeforeKillSeconds = fleet.Seconds(k.killNs - from)
		if to, ok := first[p]; ok {
			ft.GapSeconds = fleet.Seconds(to - from)
			gaps = append(gaps, ft.GapSeconds)
		}
		to := classifyTakeover(k.survivor, k.store, p)
		ft.Takeover, ft.RestoreStartOffset, ft.RestoredRecords = to.kind, to.restoreStart, to.restored
		if to.restoreEndNs > 0 {
			ft.RestoreSeconds = fleet.Seconds(to.restoreEndNs - to.restoreNs)
		}
		kinds[to.kind] = true
		fr.RestoredRecords += to.restored
		fr.Tasks = append(fr.Tasks, ft)
	}
	if len(gaps) > 0 {
		fr.MaxGapSeconds, fr.MedianGapSeconds = runs.Max(gaps), runs.Median(gaps)
	}
	fr.Takeover = takeoverKind(kinds)
	if at := firstStateAfter(k.survivor, ksdriver.StateRebalancing, k.killNs); at > 0 {
		fr.DetectionSeconds = fleet.Seconds(at - k.killNs)
	}
	if at := firstActiveAll(k.survivor, k.victimTasks); at >= k.killNs {
		fr.AssignedSeconds = fleet.Seconds(at - k.killNs)
	}
	if at := k.runningNs(); at > 0 {
		fr.RunningSeconds = fleet.Seconds(at - k.killNs)
	}
	return fr, nil
}

// takeoverKind is the one kind of a kill's takeovers, or mixed.
func takeoverKind(kinds map[string]bool) string {
	if len(kinds) == 1 {
		for k := range kinds {
			return k
		}
	}
	if len(kinds) == 0 {
		return runs.TakeoverNone
	}
	return runs.TakeoverMixed
}
