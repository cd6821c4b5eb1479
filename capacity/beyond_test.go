package capacity

import "testing"

// TestOutsideTheMeasuredSizesNamesTheSide: an estimate four times below
// the smallest size measured says "below", not "beyond"; a shape ratio
// under one prints as a fraction, not ×0.0.
func TestOutsideTheMeasuredSizesNamesTheSide(t *testing.T) {
	r := &Rate{PerThread: 10e6, Lo: 400e6, Hi: 1e9}
	if got := beyondText(r.Seconds(100e6)); got != "4.0× below" {
		t.Errorf("100 MB against 400 MB–1 GB measured: %q, want 4.0× below", got)
	}
	if got := beyondText(r.Seconds(3e9)); got != "3.0× beyond" {
		t.Errorf("3 GB against 400 MB–1 GB measured: %q, want 3.0× beyond", got)
	}
	for ratio, want := range map[float64]string{12.7 / 506: "1/40 of it", 2.5: "×2.5", 1: "×1.0"} {
		if got := timesText(ratio); got != want {
			t.Errorf("timesText(%v) = %q, want %q", ratio, got, want)
		}
	}
}
