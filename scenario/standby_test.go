package scenario

import (
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// TestFindMaxRateStopsWithoutAVerdict: a step of the search that took too
// few lag samples for a verdict ends the search: it is neither a rate the
// standby sustained (to double from) nor one it fell behind at (to bisect
// towards), whatever its Sustained says.
func TestFindMaxRateStopsWithoutAVerdict(t *testing.T) {
	var rates []float64
	step := func(name runs.StepKind, rate float64) (*runs.StandbyRecord, error) {
		rates = append(rates, rate)
		// One sample at the step's start, lag 0: what a 10h sample interval
		// over a 1s step records.
		return &runs.StandbyRecord{Step: name, TargetRate: rate, WrittenRate: rate, Seconds: 1, Sustained: true,
			Lag: []runs.LagPoint{{T: 0.001, Lag: 0}}, LagSamples: 1}, nil
	}
	if err := findMaxRate(2000, step, t.Logf); err != nil {
		t.Fatal(err)
	}
	if len(rates) != 1 {
		t.Fatalf("the search ran %d steps (%v) past a step without a verdict", len(rates), rates)
	}
}

// TestJudgeNeedsLagSamples: a rate step whose lag stayed low is sustained
// only when it took enough lag samples while it wrote to say so; samples
// after the writes stopped (the catch-up) do not count.
func TestJudgeNeedsLagSamples(t *testing.T) {
	for _, c := range []struct {
		ts   []float64
		want bool
	}{
		{[]float64{0.001}, false},
		{[]float64{0, 0.25, 0.5, 0.75}, false},
		{[]float64{0, 0.25, 0.5, 0.75, 1.5, 2, 3}, false}, // three after the 1s of writes
		{[]float64{0, 0.2, 0.4, 0.6, 0.8}, true},
	} {
		var pts []runs.LagPoint
		for _, x := range c.ts {
			pts = append(pts, runs.LagPoint{T: x, Lag: 10})
		}
		sr := &runs.StandbyRecord{Step: runs.StepRate, TargetRate: 1000, Seconds: 1}
		setLag(sr, pts)
		judge(sr, true, t.Logf)
		if sr.Sustained != c.want || sr.Judged() != c.want || sr.LagSamples != sr.WriteSamples() {
			t.Errorf("samples at %v: sustained=%v judged=%v lag_samples=%d, want %v", c.ts, sr.Sustained, sr.Judged(), sr.LagSamples, c.want)
		}
	}
}
