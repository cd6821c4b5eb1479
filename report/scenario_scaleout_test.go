package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// TestPrintScaleOutAndRolling: the summary tables show what a scale-out and a rolling
// restart measured, with the model's figure labelled as a prediction.
func TestPrintScaleOutAndRolling(t *testing.T) {
	res := &runs.Results{Restores: []runs.Restore{
		{Case: "warmups-2", Verified: true, ScaleOut: &runs.ScaleOutRecord{Protocol: "classic", Before: 2, After: 4, Tasks: 8,
			Warmups: 4, Moved: 4, Rebalances: 5, ProbingRounds: 1, WarmupAssignmentSeconds: 71.25, Balanced: true,
			Prediction: &warmup.Prediction{TotalSeconds: 66.0, Immediate: &warmup.Alternative{TotalSeconds: 126.5, ProbingRounds: 2}}, PredictionErrorPct: -7.4}},
		{Case: "standby-static", Verified: false, Rolling: &runs.RollingRecord{Persistent: false, StaticMembership: true, Standbys: 1,
			DowntimeSeconds: 3.5, TaskDowntimeSeconds: 9.0, Rebalances: 0,
			Restarts: []runs.Restart{{DowntimeSeconds: 1.0, RestoredRecords: 10}, {DowntimeSeconds: 2.5, RestoredRecords: 5}}}},
		{Case: "compaction-aggressive", Verified: true, Phase: &runs.RestorePhase{Seconds: 1.5, TotalSeconds: 1.5}, Compaction: &runs.CompactionRecord{CleanedBy: "kafka",
			Written: 50000, Read: 12700, LiveKeys: 10000, Amplification: 1.27, Bound: 70,
			TopicConfigs: map[string]string{"segment.bytes": "8388608"}}},
	}}
	var out bytes.Buffer
	printScenarioTables(&out, res)
	s := out.String()
	for _, want := range []string{"warmups-2", "2->4", "71.2", "66.0 (or 126.5)", "-7.4%", "prediction",
		"standby-static", "wiped", "3.5", "2.5", "15", "false",
		"compaction-aggressive", "12700", "1.27", "70.00", "segment.bytes=8388608"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
