package capacity

import (
	"strings"
	"testing"
)

// points makes one calibration point per (bytes, factor), each of two
// repeat pairs 5% either side of its median.
func points(bf ...float64) []CalibrationPoint {
	var out []CalibrationPoint
	for i := 0; i < len(bf); i += 2 {
		b, f := bf[i], bf[i+1]
		out = append(out, CalibrationPoint{Bytes: b, Factors: []float64{f * 0.95, f * 1.05}, Factor: f, Lo: f * 0.95, Hi: f * 1.05})
	}
	return out
}

// TestNoFitWhoseFactorFallsBelowZeroIsKept: the medians a warm-restart
// sweep measured (a counting store, 2,000 to 100,000 records changed: the
// smallest restore pays Kafka Streams' fixed cost 53 times over) are
// followed by neither line. Before, the inverse-size line was kept, ×-5.57
// at 1 GB and below zero at every size measured, and a prediction took
// the ×0.05 floor as the calibrated factor. Now the curve has no fit, says
// why, and a prediction between two sizes spans their factors.
func TestNoFitWhoseFactorFallsBelowZeroIsKept(t *testing.T) {
	c := &CalibrationCurve{Setting: "warm", Points: points(48e3, 53.28, 120e3, 3.288, 240e3, 3.051, 480e3, 2.965, 2.4e6, 2.104)}
	c.finish()
	if c.Fit != nil {
		t.Fatalf("kept fit %s, whose factor at the sizes measured is %.2f–%.2f", c.Fit, c.Fit.At(2.4e6), c.Fit.At(48e3))
	}
	if !strings.Contains(c.NoFit, "no fit") || !strings.Contains(c.NoFit, "×53.28 at 48.0 kB") {
		t.Errorf("NoFit = %q, want the reason with the medians", c.NoFit)
	}
	f := c.At(300e3)
	if f.Value < 2.9 || f.Value > 3.3 || f.Lo > 2.9 || f.Hi < 3.1 {
		t.Errorf("factor at 300 kB = %.3f (%.3f–%.3f), want about 3 spanning the 240 and 480 kB sizes' pairs", f.Value, f.Lo, f.Hi)
	}
	if w := f.where(); !strings.Contains(w, "no line fitting them") {
		t.Errorf("where = %q, want it to say no line fits", w)
	}
	if b := f.Basis(); !strings.Contains(b, c.NoFit) {
		t.Errorf("basis %q does not carry the reason", b)
	}
}

// TestAFitFallingBelowZeroGivesWayToTheOther: the inverse-size line
// through these medians leaves the smaller residuals (it is exact) but
// tends to ×0.03 at large sizes (its intercept), below the floor; the
// log-size line stays above it over the sizes measured and is kept, saying
// why.
func TestAFitFallingBelowZeroGivesWayToTheOther(t *testing.T) {
	pts := points(1e8, 1.03, 2e8, 0.53, 4e8, 0.28, 8e8, 0.155)
	inv := fitForm(FormInverseSize, []float64{1e8, 2e8, 4e8, 8e8}, []float64{1.03, 0.53, 0.28, 0.155})
	if inv.Intercept >= minFactor {
		t.Fatalf("test points: the inverse-size intercept is %.3f, want one below %.2f", inv.Intercept, minFactor)
	}
	fit, why := fitFactor(pts)
	if fit == nil || fit.Form != FormLogSize || !fit.OtherFalls || why != "" {
		t.Fatalf("fit %v (%q), want the log-size form, the other marked as falling", fit, why)
	}
	if !strings.Contains(fit.String(), "whose factor falls below") {
		t.Errorf("fit %q does not say why the other form was not kept", fit)
	}
	for _, p := range pts {
		if fit.At(p.Bytes) < minFactor {
			t.Errorf("kept fit is %.3f at %s", fit.At(p.Bytes), FormatBytes(p.Bytes))
		}
	}
}

// TestAPositiveFitIsKeptAsBefore: medians a fixed cost amortising over
// size explains keep their inverse-size fit, with no reason given.
func TestAPositiveFitIsKeptAsBefore(t *testing.T) {
	fit, why := fitFactor(points(1e8, 1.6, 2e8, 1.35, 4e8, 1.22, 8e8, 1.16))
	if fit == nil || fit.Form != FormInverseSize || fit.OtherFalls || why != "" {
		t.Fatalf("fit %v (%q), want the inverse-size form", fit, why)
	}
	if got := fit.Intercept; got < 1.05 || got > 1.15 {
		t.Errorf("intercept %.3f, want about 1.1", got)
	}
}
