package capacity

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// FactorForm is the shape of a calibration fit: what the factor is a
// straight line against.
type FactorForm string

const (
	// FormLogSize: Factor = Intercept + Slope × ln(bytes / 1 GB). The
	// change per doubling of size is constant; it keeps falling (or
	// rising) without end beyond the sizes measured.
	FormLogSize FactorForm = "log-size"
	// FormInverseSize: Factor = Intercept + Slope × 1 GB / bytes: a fixed
	// cost (the JVM's start-up and JIT, a slower first poll) amortised over
	// a longer restore on top of a constant ratio, Intercept, which the
	// factor tends to at large sizes.
	FormInverseSize FactorForm = "inverse-size"
)

// FactorFit is the calibration factor against size: ordinary least
// squares through the points' median factors (one a setting and size), in
// the form whose residuals are the smaller. Medians, not every repeat
// pair: on a busy machine one slow repeat makes a pair's factor several
// times the others', and a line through the raw pairs follows it away from
// every median (measured: a 5.5 among 0.9-1.7); the pairs' spread enters
// a prediction's interval on its own.
type FactorFit struct {
	Form             FactorForm
	Intercept, Slope float64
	// N is the repeat pairs behind the medians; Sizes the distinct sizes
	// they span.
	N, Sizes int
	// RMS is the root mean square of the medians' residuals in this form;
	// OtherRMS in the form not chosen. OtherFalls says the other form was
	// not chosen because its factor falls below minFactor (fitFactor),
	// though its residuals were the smaller.
	RMS, OtherRMS float64
	OtherFalls    bool
}

// FactorFitReference is the size a fit's x is measured from: 1 GB.
const FactorFitReference = 1e9

// x is bytes on the form's axis.
func (f FactorForm) x(bytes float64) float64 {
	if f == FormInverseSize {
		return FactorFitReference / bytes
	}
	return math.Log(bytes / FactorFitReference)
}

// At is the fitted factor at bytes per thread.
func (f *FactorFit) At(bytes float64) float64 { return f.Intercept + f.Slope*f.Form.x(bytes) }

// PerDoubling is how much the fitted factor changes from 1 GB to 2 GB (in
// the log-size form, from any size to twice it).
func (f *FactorFit) PerDoubling() float64 {
	return f.At(2*FactorFitReference) - f.At(FactorFitReference)
}

// String is e.g. "×1.140 at 1 GB, -0.025 per doubling of size (log-size,
// through the medians of 12 pairs at 3 sizes, ...)" or "×(1.026 + 0.117 × 1 GB / size), ×1.143 at 1 GB
// tending to ×1.026 (inverse-size, ...)".
func (f *FactorFit) String() string {
	other := fmt.Sprintf("%.3f in the other form", f.OtherRMS)
	if f.OtherFalls {
		other += fmt.Sprintf(", whose factor falls below ×%.2f", minFactor)
	}
	tail := fmt.Sprintf("(%s, through the medians of %d pairs at %d sizes, residual rms %.3f; %s)", f.Form, f.N, f.Sizes, f.RMS, other)
	if f.Form == FormInverseSize {
		return fmt.Sprintf("×(%.3f %+.3f × %s / size), ×%.3f at %s tending to ×%.3f %s",
			f.Intercept, f.Slope, FormatBytes(FactorFitReference), f.At(FactorFitReference), FormatBytes(FactorFitReference), f.Intercept, tail)
	}
	return fmt.Sprintf("×%.3f at %s, %+.3f per doubling of size %s", f.Intercept, FormatBytes(FactorFitReference), f.PerDoubling(), tail)
}

// fitFactor fits the points' median factors in both forms and keeps the
// one with the smaller residuals (inverse-size on a tie, as with two
// sizes, where both lines pass through the two medians: it is what a fixed
// cost amortising predicts, and it does not run away beyond the sizes
// measured); nil when the points span fewer than two sizes. A form whose
// factor falls below minFactor at a size measured, or (inverse-size) tends
// there at large sizes, says Kafka Streams restores in no time: it is not
// a trend of these medians, however small its residuals, and is never
// kept. With neither kept the fit is nil and why says so.
func fitFactor(points []CalibrationPoint) (fit *FactorFit, why string) {
	sizes, last, pairs := 0, 0.0, 0
	var bs, ys []float64
	for _, p := range points {
		if sizes == 0 || p.Bytes > last*(1+sizeTolerance) {
			sizes++
			last = p.Bytes
		}
		bs, ys = append(bs, p.Bytes), append(ys, p.Factor)
		pairs += len(p.Factors)
	}
	if sizes < 2 {
		return nil, ""
	}
	inv, log := fitForm(FormInverseSize, bs, ys), fitForm(FormLogSize, bs, ys)
	best, other := inv, log
	if log.RMS < inv.RMS*(1-1e-9) {
		best, other = log, inv
	}
	switch bestOK, otherOK := best.aboveFloorOver(bs), other.aboveFloorOver(bs); {
	case !bestOK && !otherOK:
		return nil, fmt.Sprintf("no fit: a line against 1/size (residual rms %.3f) and one against log size (%.3f) "+
			"each fall below ×%.2f at or beyond the sizes measured; the medians (%s) follow neither", inv.RMS, log.RMS, minFactor, medians(points))
	case !bestOK:
		best, other = other, best
		best.OtherFalls = true
	}
	best.N, best.Sizes, best.OtherRMS = pairs, sizes, other.RMS
	return best, ""
}

// aboveFloorOver says whether the fitted factor stays at or above minFactor
// at every size measured and, in the inverse-size form, at large sizes
// (its intercept, where it tends).
func (f *FactorFit) aboveFloorOver(bytes []float64) bool {
	if f.Form == FormInverseSize && f.Intercept < minFactor {
		return false
	}
	for _, b := range bytes {
		if !(f.At(b) >= minFactor) {
			return false
		}
	}
	return true
}

// medians lists the points' median factors with their sizes, for a
// message: "×53.28 at 48.0 kB, ×3.29 at 120 kB".
func medians(points []CalibrationPoint) string {
	parts := make([]string, len(points))
	for i, p := range points {
		parts[i] = fmt.Sprintf("×%.2f at %s", p.Factor, FormatBytes(p.Bytes))
	}
	return strings.Join(parts, ", ")
}

// fitForm is the least-squares line of ys against bytes on form's axis.
func fitForm(form FactorForm, bytes, ys []float64) *FactorFit {
	xs := make([]float64, len(bytes))
	for i, b := range bytes {
		xs[i] = form.x(b)
	}
	f := &FactorFit{Form: form, N: len(xs)}
	f.Intercept, f.Slope = stat.LinearRegression(xs, ys, nil, false)
	var ss float64
	for i, b := range bytes {
		d := ys[i] - f.At(b)
		ss += d * d
	}
	f.RMS = math.Sqrt(ss / float64(len(xs)))
	return f
}
