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
			Prediction: &warmup.Prediction{TotalSeconds: 66.0}, PredictionErrorPct: -7.4}},
		{Case: "standby-static", Verified: false, Rolling: &runs.RollingRecord{Persistent: false, StaticMembership: true, Standbys: 1,
			DowntimeSeconds: 3.5, TaskDowntimeSeconds: 9.0, Rebalances: 0,
			Restarts: []runs.Restart{{DowntimeSeconds: 1.0, RestoredRecords: 10}, {DowntimeSeconds: 2.5, RestoredRecords: 5}}}},
	}}
	var out bytes.Buffer
	printScenarios(&out, res)
	s := out.String()
	for _, want := range []string{"warmups-2", "2->4", "71.2", "66.0", "-7.4%", "prediction",
		"standby-static", "wiped", "3.5", "2.5", "15", "false"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
