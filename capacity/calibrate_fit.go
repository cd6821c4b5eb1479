package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// CalibrationMethod says how a calibrated prediction's factor and its
// interval are made, for the reports that show them.
const CalibrationMethod = "A prediction of n bytes a thread takes its setting's factor at n: on the fit inside the sizes calibrated " +
	"(least squares through each size's median factor, against log size or against 1/size, whichever leaves the smaller " +
	"residuals; 1/size on a tie, as a fixed cost amortising predicts); " +
	"beyond them the fit's trend, flagged EXTRAPOLATED, its interval spanning from the nearest calibrated size's fitted " +
	"factor to the trend's; with one size calibrated, that size's median, flagged beyond it; with several and neither " +
	"line staying above ×0.05 over them (no fit), the pairs of the calibrated sizes around n pooled. " +
	"The interval widens that by the repeat pairs' spread at the calibrated sizes around n (the most any pair lay below " +
	"and above its size's median: the min–max of k pairs holds the median factor with probability " +
	"1 − 2^(1−k), 94% for 5) plus the fit's largest residual there (at every size when " +
	"extrapolating), " +
	"and multiplies into the restore time's own spread. A verdict whose interval holds the objective, or whose factor " +
	"lies more than 4× beyond the sizes calibrated, is INCONCLUSIVE."

// AppliedFactor is the calibration factor one prediction takes: Kafka
// Streams' restore time over the model's at the bytes one thread restores,
// with the interval the measurements give it.
type AppliedFactor struct {
	Curve *CalibrationCurve
	// Match says how the curve was chosen when it is not the rate's own
	// setting on the rate's own changelog shape; "" when it is.
	Match string
	// Bytes is the bytes per thread the factor is for.
	Bytes float64
	// Value is the factor; Lo and Hi its interval: Value (or, beyond the
	// measured sizes, the span from the nearest measured size's fitted
	// factor to the trend's value) widened below by SpreadLo + Residual
	// and above by SpreadHi + Residual.
	Value, Lo, Hi float64
	// SpreadLo and SpreadHi are the factor's spread over repeat pairs at
	// the measured sizes around Bytes (the most any of them reaches below
	// and above its median); Residual the fit's largest |median − fitted|
	// there (at every size when extrapolating): how far off the line is.
	SpreadLo, SpreadHi, Residual float64
	// Extrapolated is set beyond the measured sizes; Beyond is how many
	// times beyond them (1 inside).
	Extrapolated bool
	Beyond       float64
}

// Wide reports whether the factor lies past WideExtrapolation beyond the
// sizes it was measured at: nothing measured bounds how it moves there.
func (f *AppliedFactor) Wide() bool { return f.Beyond > WideExtrapolation }

// String is e.g. "×1.08 (1.02–1.15) at 3.20 GB a thread, interpolated
// between 2 sizes".
func (f *AppliedFactor) String() string {
	return fmt.Sprintf("×%.3f (%.3f–%.3f) at %s a thread, %s", f.Value, f.Lo, f.Hi, FormatBytes(f.Bytes), f.where())
}

// where says how the factor relates to the sizes measured; without a
// curve (a zero AppliedFactor, which no answer builds) that none was.
func (f *AppliedFactor) where() string {
	c := f.Curve
	if c == nil {
		return "no calibration curve"
	}
	span := FormatBytes(c.MinBytes())
	if c.Sizes() > 1 {
		span += "–" + FormatBytes(c.MaxBytes())
	}
	switch {
	case f.Extrapolated && c.NoFit != "":
		return fmt.Sprintf("EXTRAPOLATED %s beyond the sizes calibrated (%s), the nearest size's factor held there: no line fits them",
			beyondFactor(f.Beyond), span)
	case c.NoFit != "":
		return fmt.Sprintf("the factors of the sizes calibrated around it (%s), no line fitting them", span)
	case f.Extrapolated && c.Fit == nil:
		return fmt.Sprintf("EXTRAPOLATED %s beyond the one size calibrated (%s), the factor held there", beyondFactor(f.Beyond), span)
	case f.Extrapolated:
		return fmt.Sprintf("EXTRAPOLATED %s beyond the sizes calibrated (%s) along the fit", beyondFactor(f.Beyond), span)
	case c.Fit == nil:
		return "measured at that size (" + span + ")"
	}
	return fmt.Sprintf("interpolated on the fit over %d sizes (%s)", c.Sizes(), span)
}

func beyondFactor(b float64) string {
	if b > WideExtrapolation {
		return fmt.Sprintf("%.0f×", b)
	}
	return fmt.Sprintf("%.1f×", b)
}

// Basis says what the factor rests on, for an answer's inputs.
func (f *AppliedFactor) Basis() string {
	c := f.Curve
	s := fmt.Sprintf("calibration factor %s; from %s", f, c.Label())
	if c.Fit != nil {
		s += "; fit " + c.Fit.String()
	}
	if c.NoFit != "" {
		s += "; " + c.NoFit
	}
	s += fmt.Sprintf("; interval: repeat-pair spread −%.3f/+%.3f", f.SpreadLo, f.SpreadHi)
	if c.Fit != nil {
		s += fmt.Sprintf(" plus the fit's residuals ±%.3f", f.Residual)
	}
	if f.thinSpread() {
		s += " (a calibrated size with one repeat pair: its spread is not measured; run more repeats)"
	}
	if f.Match != "" {
		s += "; " + f.Match
	}
	return s
}

// thinSpread reports whether a calibrated size around the factor's has
// fewer than two repeat pairs, so that its spread says nothing.
func (f *AppliedFactor) thinSpread() bool {
	for _, p := range f.Curve.bracket(f.Bytes) {
		if len(p.Factors) < 2 {
			return true
		}
	}
	return false
}

// At is the curve's factor at bytes per thread: on the fit inside the
// measured sizes, continuing its trend beyond them (flagged, and the
// interval spans from the nearest measured size's fitted factor to the
// trend's); without a fit, the factor of the one size measured (or the
// median of the pairs there).
func (c *CalibrationCurve) At(bytes float64) AppliedFactor {
	if !(bytes > 0) {
		bytes = c.MinBytes()
	}
	lo, hi := c.MinBytes(), c.MaxBytes()
	f := AppliedFactor{Curve: c, Bytes: bytes, Extrapolated: outside(bytes, lo, hi), Beyond: beyond(bytes, lo, hi)}
	near := c.bracket(bytes)
	if c.Fit == nil {
		c.spreadOfPool(&f, near)
		f.Lo, f.Hi = f.Value-f.SpreadLo, f.Value+f.SpreadHi
		return f.bounded()
	}
	f.Value = c.Fit.At(bytes)
	base, top := f.Value, f.Value
	resid := near
	if f.Extrapolated {
		end := c.Fit.At(math.Min(math.Max(bytes, lo), hi))
		base, top = math.Min(f.Value, end), math.Max(f.Value, end)
		resid = c.Points
	}
	for _, p := range near {
		f.SpreadLo = math.Max(f.SpreadLo, p.Factor-p.Lo)
		f.SpreadHi = math.Max(f.SpreadHi, p.Hi-p.Factor)
	}
	for _, p := range resid {
		f.Residual = math.Max(f.Residual, math.Abs(p.Residual()))
	}
	f.Lo, f.Hi = base-f.SpreadLo-f.Residual, top+f.SpreadHi+f.Residual
	return f.bounded()
}

// spreadOfPool sets an unfitted factor from the points at one size: their
// median factor, spread to the least and most any repeat pair measured (a
// pool of settings spreads by their differences too).
func (c *CalibrationCurve) spreadOfPool(f *AppliedFactor, near []CalibrationPoint) {
	var all []float64
	for _, p := range near {
		all = append(all, p.Factors...)
	}
	f.Value = runs.Median(all)
	f.SpreadLo, f.SpreadHi = f.Value-runs.Min(all), runs.Max(all)-f.Value
}

// minFactor is the least factor an interval reaches: Kafka Streams never
// restores in no time, whatever a fit's trend says far from its sizes.
const minFactor = 0.05

// bounded keeps the factor and its interval positive.
func (f AppliedFactor) bounded() AppliedFactor {
	f.Value = math.Max(f.Value, minFactor)
	f.Lo = math.Min(math.Max(f.Lo, minFactor), f.Value)
	f.Hi = math.Max(f.Hi, f.Value)
	return f
}

// bracket are the points at the measured sizes around bytes: the nearest
// size at or below it and the nearest at or above (one size when bytes is
// at a measured size or beyond them).
func (c *CalibrationCurve) bracket(bytes float64) []CalibrationPoint {
	groups := c.sizeGroups()
	below, above := 0, len(groups)-1
	for i, g := range groups {
		size := g[0].Bytes
		if size <= bytes*(1+sizeTolerance) {
			below = i
		}
		if size >= bytes*(1-sizeTolerance) {
			above = i
			break
		}
	}
	if below >= above {
		return groups[above]
	}
	return append(append([]CalibrationPoint(nil), groups[below]...), groups[above]...)
}

// shapeLikeness counts the fields two changelog shapes (shapeOf's
// "partitions=4 keys=zipf ...") share: of a setting calibrated on several
// shapes but not the rate's, the likest is taken (the same key order before
// the same partitions alone).
func shapeLikeness(a, b string) int {
	weights := map[string]int{"keys": 4, "values": 2}
	n := 0
	bs := strings.Fields(b)
	for _, f := range strings.Fields(a) {
		if slices.Contains(bs, f) {
			name, _, _ := strings.Cut(f, "=")
			n += max(1, weights[name])
		}
	}
	return n
}

// CurveFor is the curve a rate measured on setting params and changelog
// shape takes its factor from: the same setting on the same shape; else
// the same setting on another shape; else every setting pooled (on the
// same shape when any was calibrated there). The string says which, ""
// for the first.
func (c *Calibration) CurveFor(params config.Case, shape string) (*CalibrationCurve, string) {
	id := compare.SettingID(params)
	var sameSetting *CalibrationCurve
	for _, cv := range c.Curves {
		if cv.id == id && cv.Shape == shape {
			return cv, ""
		}
		if cv.id == id && (sameSetting == nil || shapeLikeness(cv.Shape, shape) > shapeLikeness(sameSetting.Shape, shape)) {
			sameSetting = cv
		}
	}
	if sameSetting != nil {
		return sameSetting, "the setting was calibrated on changelogs of " + sameSetting.Shape + ", not the rate's (" + shape + ")"
	}
	var pool []EnginePair
	for _, p := range c.Pairs {
		if p.Shape == shape {
			pool = append(pool, p)
		}
	}
	why := "no pair measured the rate's setting: every setting calibrated on the rate's changelog shape, pooled"
	if len(pool) == 0 {
		pool = c.Pairs
		why = "no pair measured the rate's setting or changelog shape: every setting calibrated, pooled"
	}
	pooled := &CalibrationCurve{Setting: "every setting", Shape: pool[0].Shape}
	for _, p := range pool {
		pooled.add(p)
		if p.Shape != pooled.Shape {
			pooled.Shape = ""
		}
	}
	pooled.finish()
	return pooled, why
}
