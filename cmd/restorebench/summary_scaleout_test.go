package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// TestPrintScaleOutAndRolling: summary shows what a scale-out and a rolling
// restart measured, with the model's figure labelled as a prediction.
func TestPrintScaleOutAndRolling(t *testing.T) {
	res := &runs.Results{Restores: []runs.Restore{
		{Case: "warmups-2", Verified: true, ScaleOut: &runs.ScaleOutRecord{Protocol: "classic", Before: 2, After: 4, Tasks: 8,
			Warmups: 4, Moved: 4, Rebalances: 5, ProbingRounds: 1, WarmupAssignmentSeconds: 71.25, Balanced: true,
			Prediction: &warmup.Prediction{TotalSeconds: 66.0, Immediate: &warmup.Alternative{TotalSeconds: 126.5, ProbingRounds: 2}}, PredictionErrorPct: -7.4}},
		{Case: "standby-static", Verified: false, Rolling: &runs.RollingRecord{Persistent: false, StaticMembership: true, Standbys: 1,
			DowntimeSeconds: 3.5, TaskDowntimeSeconds: 9.0, Rebalances: 0,
			Restarts: []runs.Restart{{DowntimeSeconds: 1.0, RestoredRecords: 10}, {DowntimeSeconds: 2.5, RestoredRecords: 5}}}},
		{Case: "compaction-aggressive", Verified: true, DurationSeconds: 1.5, Compaction: &runs.CompactionRecord{CleanedBy: "kafka",
			Written: 50000, Read: 12700, LiveKeys: 10000, Amplification: 1.27, Bound: 70,
			TopicConfigs: map[string]string{"segment.bytes": "8388608"}}},
	}}
	var out bytes.Buffer
	printScenarios(&out, res)
	s := out.String()
	for _, want := range []string{"warmups-2", "2->4", "71.2", "66.0 (or 126.5)", "-7.4%", "prediction",
		"standby-static", "wiped", "3.5", "2.5", "15", "false",
		"compaction-aggressive", "12700", "1.27", "70.00", "segment.bytes=8388608"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// TestIncompleteReasonTellsFailuresFromStops: a run that went on to its end
// past failed measurements is not reported as stopped early.
func TestIncompleteReasonTellsFailuresFromStops(t *testing.T) {
	failed := incompleteReason(&runs.Results{RunID: "r", Failed: 1, Error: "1 restore(s) failed: a #1: restore did not verify"})
	if !strings.Contains(failed, "ran every case") || strings.Contains(failed, "stopped early") {
		t.Errorf("failed measurements: %q", failed)
	}
	stopped := incompleteReason(&runs.Results{RunID: "r", Error: "interrupted during case a #1: context canceled"})
	if !strings.Contains(stopped, "stopped early") {
		t.Errorf("interrupted: %q", stopped)
	}
}
