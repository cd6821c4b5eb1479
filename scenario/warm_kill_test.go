package scenario

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// TestWarmRestartAfterAKillCountsWhatItRestoredAgain: after a SIGKILL a
// warm restart that resumed below the offsets its stores had reached
// restored those records again; the record says so (behind), and a task
// that found no offset says the kill, not the log's start, is why.
func TestWarmRestartAfterAKillCountsWhatItRestoredAgain(t *testing.T) {
	const topic = "app-s-changelog"
	now := cluster.TopicOffsets{Topic: topic, Start: map[int32]int64{0: 0, 1: 0, 2: 100}, End: map[int32]int64{0: 2000, 1: 2000, 2: 2000}}
	stopped := map[int32]int64{0: 1500, 1: 1500, 2: 1500}
	var r ksdriver.Restores
	for p, start := range map[int32]int64{0: 1500, 1: 1200, 2: 100} { // 0 resumed where it stopped, 1 from a stale offset, 2 from its log start
		sp := ksdriver.StorePartition{Store: "s", Topic: topic, Partition: p}
		r.Add(&ksdriver.RestoreStart{StorePartition: sp, StartOffset: start, EndOffset: 2000})
		r.Add(&ksdriver.RestoreEnd{StorePartition: sp, Restored: 2000 - start})
	}
	if got, want := restoredBehind(&r, now, stopped), int64(300+1400); got != want {
		t.Errorf("behind = %d, want %d (300 on partition 1, 1400 on partition 2)", got, want)
	}
	w := ksWarmRecord(runs.StepWarm, 500, &r, now, 1, config.WarmStopKill)
	if w.Stop != "kill" || w.WarmTasks != 2 || w.FallbackTasks != 1 || len(w.Fallbacks) != 1 || !strings.Contains(w.Fallbacks[0], "SIGKILL") {
		t.Errorf("record after a kill: %+v", w)
	}
	if c := ksWarmRecord(runs.StepCold, 0, &r, now, 0, config.WarmStopKill); c.Stop != "" {
		t.Errorf("the cold step follows no stop, got %q", c.Stop)
	}
}
