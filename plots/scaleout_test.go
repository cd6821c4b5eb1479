package plots

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// scaleOutResults has one scale-out (a task warmed up on i1 and moved
// there, with a pause at the move) and two rolling restarts.
func scaleOutResults() *runs.Results {
	so := &runs.ScaleOutRecord{
		AcceptableRecoveryLag: 10_000, WarmupAssignmentSeconds: 67, ProbingTimes: []float64{66}, PredictionErrorPct: -2,
		Prediction: &warmup.Prediction{Label: warmup.Label, TotalSeconds: 65.7},
		TaskTimelines: []runs.TaskTimeline{
			{Task: "0_0", From: "i0", To: "i0", Segments: []runs.TaskSegment{{Instance: "i0", Role: runs.RoleActive, Start: -10, End: 80}}},
			{Task: "0_1", From: "i0", To: "i1", Gaps: []runs.Gap{{Start: 66, End: 67.2}}, Segments: []runs.TaskSegment{
				{Instance: "i0", Role: runs.RoleActive, Start: -10, End: 66.5},
				{Instance: "i1", Role: runs.RoleWarmup, Start: 6, End: 66.4},
				{Instance: "i1", Role: runs.RoleRestoring, Start: 66.4, End: 66.6},
				{Instance: "i1", Role: runs.RoleActive, Start: 66.6, End: 80},
			}},
		},
		Lags: []runs.LagSeries{{Task: "0_1", Instance: "i1", Role: runs.RoleWarmup, Points: []runs.LagPoint{{T: 7, Lag: 40_000}, {T: 8, Lag: 200}, {T: 9, Lag: 150}}}},
	}
	rolling := func(downs ...float64) *runs.RollingRecord {
		r := &runs.RollingRecord{TaskTimelines: so.TaskTimelines}
		for i, d := range downs {
			r.Restarts = append(r.Restarts, runs.Restart{Instance: "i" + string(rune('0'+i)), Stop: float64(20 * i), Ready: float64(20*i + 10), DowntimeSeconds: d})
			r.DowntimeSeconds += d
		}
		return r
	}
	return &runs.Results{Restores: []runs.Restore{
		{Case: "warmups-2", Repeat: 1, ScaleOut: so, Verified: true},
		{Case: "persistent", Repeat: 1, Rolling: rolling(0.5, 0.7, 0.4), Verified: true},
		{Case: "ephemeral-static", Repeat: 1, Rolling: rolling(6, 7.5, 6.8), Verified: true},
	}}
}

// TestScaleOutChartsDrawWhatTheRecordsHold: each chart names what it
// shows, and WriteAll writes them for such results only.
func TestScaleOutChartsDrawWhatTheRecordsHold(t *testing.T) {
	r := scaleOutResults()
	for _, c := range []struct {
		draw func(*runs.Results) (*plot.Plot, error)
		want []string
	}{
		{ScaleOutTimeline, []string{"0_1", "active on i0", "active on i1", "warmup (lower band)", "not processing (top)", "probing rebalance"}},
		{WarmupLag, []string{"warmups-2 #1 warmups", "acceptable.recovery.lag 10000"}},
		{ModelVsMeasured, []string{"warmups-2 #1", "model (prediction)", "-2%"}},
		{RollingTimeline, []string{"persistent #1 0_0", "restart (stop)"}},
		{RollingDowntime, []string{"persistent #1", "ephemeral-static #1", "restart 3", "20.3 s"}},
	} {
		p, err := c.draw(r)
		if err != nil || p == nil {
			t.Fatalf("chart: %v", err)
		}
		got := texts(drawn(t, p))
		for _, w := range c.want {
			if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, w) }) {
				t.Errorf("%q: %q not drawn (%q)", p.Title.Text, w, got)
			}
		}
	}
	dir := t.TempDir()
	if _, err := WriteAll(r, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ScaleOutTimelineFile, WarmupLagFile, ModelVsMeasuredFile, RollingTimelineFile, RollingDowntimeFile} {
		if _, err := os.Stat(filepath.Join(dir, f+".png")); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	plain := synthetic()
	for _, f := range []func(*runs.Results) (*plot.Plot, error){ScaleOutTimeline, WarmupLag, ModelVsMeasured, RollingTimeline, RollingDowntime} {
		if p, err := f(plain); err != nil || p != nil {
			t.Fatalf("a chart for results without scale-outs: %v %v", p, err)
		}
	}
}
