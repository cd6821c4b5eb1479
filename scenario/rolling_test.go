package scenario

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/runs"
)

// TestRestartChargedWithTheGapsItCaused: a gap that starts a moment before
// a restart's stop (the last record processed before it) is that restart's,
// not the previous one's; the row's downtime is its longest task's.
func TestRestartChargedWithTheGapsItCaused(t *testing.T) {
	r := &rolling{f: &fleet.Fleet{}, stops: []int64{soSec(10), soSec(40)}, starts: []int64{soSec(15), soSec(45)}, readies: []int64{soSec(20), soSec(50)}}
	spec := fleet.TimelineSpec{Origin: soSec(10), End: soSec(70), Gap: time.Second}
	tl := fleet.Timeline{Tasks: []runs.TaskTimeline{
		{Task: "0_0", Gaps: []runs.Gap{{Start: 0, End: 9.5}, {Start: 29.8, End: 38}}},
		{Task: "0_1", Gaps: []runs.Gap{{Start: 1, End: 4}}},
		{Task: "0_2"},
	}, Rebalances: []int64{soSec(11), soSec(41), soSec(43)}}
	first, second := r.restartRow(0, spec, tl, nil), r.restartRow(1, spec, tl, nil)
	if first.Instance != "i0" || first.DowntimeSeconds != 9.5 || first.TaskDowntimeSeconds != 12.5 || first.TasksDown != 2 || first.Rebalances != 1 {
		t.Fatalf("first restart %+v", first)
	}
	if second.DowntimeSeconds != 8.2 || second.TasksDown != 1 || second.Rebalances != 2 || second.Stop != 30 || second.Ready != 40 {
		t.Fatalf("second restart %+v", second)
	}
}

// soSec is s seconds on the instances' monotonic clock, in nanoseconds.
func soSec(s float64) int64 { return int64(s * 1e9) }
