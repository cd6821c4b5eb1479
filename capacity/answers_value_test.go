package capacity

import "testing"

// TestCalibratedValueShowsItsInterval: a calibrated prediction prints with
// its interval, and one whose inputs show no spread (one restore, one
// repeat pair) says it has none rather than a range of one value.
func TestCalibratedValueShowsItsInterval(t *testing.T) {
	f := &AppliedFactor{}
	for _, tc := range []struct {
		e    Estimate
		want string
	}{
		{Estimate{Value: 150, Lo: 130, Hi: 170, Factor: f}, "2.50 min (2.17–2.83 min)"},
		{Estimate{Value: 121.6, Lo: 121.6, Hi: 121.6, Factor: f}, "2.03 min (no interval measured)"},
		{Estimate{Value: 121.6, Lo: 110, Hi: 130}, "2.03 min"}, // measured, not calibrated: its interval is among the inputs
	} {
		if got := TimeValue(tc.e); got != tc.want {
			t.Errorf("TimeValue of %.1f s (%.1f–%.1f, calibrated %v) = %q, want %q", tc.e.Value, tc.e.Lo, tc.e.Hi, tc.e.Calibrated(), got, tc.want)
		}
	}
}

// TestRateSummarySaysANegativeInterceptPlainly: a size fit whose intercept
// is below zero reads "− 0.272 s per restore", never "+ -0.272 s".
func TestRateSummarySaysANegativeInterceptPlainly(t *testing.T) {
	r := &Rate{PerThread: 106e6, Overhead: -0.272}
	if got, want := r.Summary(), "106 MB/s per stream thread − 0.272 s per restore (the fit's intercept)"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	r.Overhead = 0.81
	if got, want := r.Summary(), "106 MB/s per stream thread + 0.81 s per restore"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

// TestZeroAppliedFactorPrints: a factor without a curve prints what it
// is instead of panicking.
func TestZeroAppliedFactorPrints(t *testing.T) {
	if got := (&AppliedFactor{}).String(); got != "×0.000 (0.000–0.000) at 0 B a thread, no calibration curve" {
		t.Errorf("String() = %q", got)
	}
}

// TestFigureTextPerUnit: an answer's figure is written by its unit's one
// formatter, a calibrated one with its interval; a count derived from an
// extrapolated estimate has no interval but says how far beyond it lies.
func TestFigureTextPerUnit(t *testing.T) {
	cal := Estimate{Value: 150, Lo: 130, Hi: 170, Factor: &AppliedFactor{}}
	for _, tc := range []struct {
		f    Figure
		want string
	}{
		{Figure{Estimate: cal, Unit: UnitSeconds}, "2.50 min (2.17–2.83 min)"},
		{Figure{Estimate: Estimate{Value: 4.8e9}, Unit: UnitBytes}, "4.80 GB"},
		{Figure{Estimate: Estimate{Value: 118e6}, Unit: UnitBytesPerSecond}, "118 MB/s"},
		{*countFigure(1200, cal), "1200"},
		{*measuredFigure(1.25, UnitRatio), "1.25×"},
	} {
		if got := tc.f.Text(); got != tc.want {
			t.Errorf("%s figure %+v: Text() = %q, want %q", tc.f.Unit, tc.f.Estimate, got, tc.want)
		}
	}
	c := countFigure(7, Estimate{Value: 3e9, Lo: 2e9, Hi: 4e9, Beyond: 5, Extrapolated: true})
	if c.HasInterval() || c.Beyond != 5 || !c.Extrapolated || c.Unit != UnitCount {
		t.Errorf("count figure %+v: want no interval, Beyond 5, extrapolated", *c)
	}
}
