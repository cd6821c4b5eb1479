package capacity

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/restorebench/restorebench/runs"
)

// Axis is what a fit puts restore time against.
type Axis string

const (
	// AxisChangelog is the key+value bytes a restore read from the changelog.
	AxisChangelog Axis = "changelog"
	// AxisLive is the key+value bytes live in the stores after the restore:
	// the state the changelog compacts down to.
	AxisLive Axis = "live"
)

// Of is the observation's size on the axis, in bytes.
func (a Axis) Of(o Obs) float64 {
	if a == AxisLive {
		return o.LiveBytes
	}
	return o.ChangelogBytes
}

// Label names the axis in prose: "changelog size" or "live state size".
func (a Axis) Label() string {
	if a == AxisLive {
		return "live state size"
	}
	return "changelog size"
}

// MinFitSizes is how many distinct sizes a fit needs: any two points make a
// line, a third is the first that can disagree with it.
const MinFitSizes = 3

// sizeTolerance merges sizes within 1% of each other into one: repeats of a
// fill read the same bytes, different fills differ by far more.
const sizeTolerance = 0.01

// Estimate is a figure predicted from measurements, and whether it lies
// outside the range they cover.
type Estimate struct {
	Value float64
	// Extrapolated is true when the figure needs sizes (or times) beyond
	// the measured range.
	Extrapolated bool
	// Lo and Hi bound Value by what the inputs measured: the spread of the
	// restores the rate rests on around it, and the calibration's spread
	// when one applies. Both 0 when no interval was derived.
	Lo, Hi float64
	// Beyond is how many times beyond the measured sizes the figure lies
	// (2 is twice the largest size, or half the smallest); 1 inside them,
	// 0 when not derived.
	Beyond float64
	// Below says the figure lies below the smallest size measured (Beyond
	// is then that size over the figure), not above the largest.
	Below bool
	// Factor is the calibration factor the figure was scaled by, at its
	// own size, with its interval; nil when uncalibrated.
	Factor *AppliedFactor
	// ShapeBeyond is how many times outside the changelog shapes a
	// restore cost was fitted over the figure's shape lies (1 inside them,
	// 0 when the figure comes from no Cost), on ShapeWhat, the farther of
	// its record size ("record size") and its records per live key
	// ("records per live key"); ShapeBelow says under the smallest. A
	// figure past WideExtrapolation decides no verdict.
	ShapeBeyond float64
	ShapeBelow  bool
	ShapeWhat   string
}

// Calibrated reports whether the estimate was scaled by a calibration.
func (e Estimate) Calibrated() bool { return e.Factor != nil }

// WideExtrapolation is how far beyond the measured sizes a restore-time
// estimate may lie and still decide a verdict: past 4 times the largest
// size (or a quarter of the smallest) nothing measured bounds its error,
// and a verdict from it is inconclusive.
const WideExtrapolation = 4.0

// Wide reports whether the estimate rests on a wide extrapolation.
func (e Estimate) Wide() bool { return e.Beyond > WideExtrapolation }

// WideShape reports whether the estimate's shape lies past
// WideExtrapolation outside the record sizes its cost was fitted over.
func (e Estimate) WideShape() bool { return e.ShapeBeyond > WideExtrapolation }

// HasInterval reports whether Lo and Hi were derived.
func (e Estimate) HasInterval() bool { return e.Hi > 0 }

// Plus is the estimate shifted by a fixed term (failure detection, say).
func (e Estimate) Plus(seconds float64) Estimate {
	e.Value += seconds
	if e.HasInterval() {
		e.Lo, e.Hi = e.Lo+seconds, e.Hi+seconds
	}
	return e
}

// Times is the estimate scaled by n (a task's figure for n threads).
func (e Estimate) Times(n float64) Estimate {
	e.Value, e.Lo, e.Hi = e.Value*n, e.Lo*n, e.Hi*n
	return e
}

// beyond is how many times beyond [lo, hi] x lies (1 inside).
func beyond(x, lo, hi float64) float64 {
	switch {
	case hi > 0 && x > hi:
		return x / hi
	case x > 0 && lo > 0 && x < lo:
		return lo / x
	}
	return 1
}

// Fit is restore time (seconds until the stores serve) against size, a
// straight line by ordinary least squares over every verified restore of
// one setup: Seconds = Intercept + Slope × bytes.
type Fit struct {
	Setup *Setup
	Axis  Axis
	// Points are the restores fitted.
	Points []Obs
	// Sizes are the distinct sizes measured, ascending.
	Sizes []float64
	// Intercept is in seconds (the fixed cost of a restore: opening stores,
	// the ready phase); Slope in seconds per byte.
	Intercept, Slope float64
	// R2 is the coefficient of determination over Points.
	R2 float64
	// Residuals are per size: measured median against the line.
	Residuals []Residual
}

// Residual compares one measured size with the fitted line.
type Residual struct {
	Bytes float64
	// Obs are the restores at this size.
	Obs []Obs
	// Median is the measured median seconds, Fitted the line's value.
	Median, Fitted float64
}

// Seconds is measured minus fitted.
func (r Residual) Seconds() float64 { return r.Median - r.Fitted }

// Percent is the residual as a percentage of the fitted value.
func (r Residual) Percent() float64 { return 100 * r.Seconds() / r.Fitted }

// NeedSizes is the error of a fit over fewer than MinFitSizes sizes: it says
// which sizes there are and what to run.
type NeedSizes struct {
	Setup *Setup
	Axis  Axis
	Have  []float64
}

func (e *NeedSizes) Error() string {
	have := make([]string, len(e.Have))
	for i, b := range e.Have {
		have[i] = FormatBytes(b)
	}
	largest := e.Have[len(e.Have)-1]
	return fmt.Sprintf("a fit of restore time against %s for %s on %s needs verified restores at %d or more sizes; the inputs have %d (%s): "+
		"run the same profile at %s and %s too (fill.size, each with its own application_id), then report on all the runs together",
		e.Axis.Label(), e.Setup.Label(), e.Setup.Env, MinFitSizes, len(e.Have), strings.Join(have, ", "), FormatBytes(2*largest), FormatBytes(4*largest))
}

// FitSetup fits the setup's restore times against axis. Fewer than
// MinFitSizes distinct sizes give a *NeedSizes error.
func FitSetup(s *Setup, axis Axis) (*Fit, error) {
	return fitObs(s, axis, s.Obs)
}

func fitObs(s *Setup, axis Axis, obs []Obs) (*Fit, error) {
	groups := BySize(obs, axis)
	sizes := make([]float64, len(groups))
	for i, g := range groups {
		sizes[i] = axis.Of(g[0])
	}
	if len(groups) < MinFitSizes {
		return nil, &NeedSizes{Setup: s, Axis: axis, Have: sizes}
	}
	xs, ys := make([]float64, len(obs)), make([]float64, len(obs))
	for i, o := range obs {
		xs[i], ys[i] = axis.Of(o), o.Seconds
	}
	f := &Fit{Setup: s, Axis: axis, Points: obs, Sizes: sizes}
	f.Intercept, f.Slope = stat.LinearRegression(xs, ys, nil, false)
	f.R2 = stat.RSquared(xs, ys, nil, f.Intercept, f.Slope)
	for _, g := range groups {
		x := axis.Of(g[0])
		secs := make([]float64, len(g))
		for i, o := range g {
			secs[i] = o.Seconds
		}
		f.Residuals = append(f.Residuals, Residual{Bytes: x, Obs: g, Median: runs.Median(secs), Fitted: f.Intercept + f.Slope*x})
	}
	return f, nil
}

// BySize groups observations by size on axis (within sizeTolerance),
// ascending.
func BySize(obs []Obs, axis Axis) [][]Obs {
	sorted := append([]Obs(nil), obs...)
	sort.SliceStable(sorted, func(i, j int) bool { return axis.Of(sorted[i]) < axis.Of(sorted[j]) })
	var groups [][]Obs
	for _, o := range sorted {
		n := len(groups)
		if n > 0 && axis.Of(o) <= axis.Of(groups[n-1][0])*(1+sizeTolerance) {
			groups[n-1] = append(groups[n-1], o)
			continue
		}
		groups = append(groups, []Obs{o})
	}
	return groups
}

// Min and Max bound the measured sizes.
func (f *Fit) Min() float64 { return f.Sizes[0] }

// Max is the largest measured size.
func (f *Fit) Max() float64 { return f.Sizes[len(f.Sizes)-1] }

// Rate is the marginal restore rate, bytes per second: 1 / Slope.
func (f *Fit) Rate() float64 { return 1 / f.Slope }

// Predict is the fitted seconds for bytes, an extrapolation outside the
// measured sizes.
func (f *Fit) Predict(bytes float64) Estimate {
	return Estimate{Value: f.Intercept + f.Slope*bytes, Extrapolated: outside(bytes, f.Min(), f.Max())}
}

// outside reports whether x lies beyond [lo, hi] by more than the size
// tolerance.
func outside(x, lo, hi float64) bool {
	return x < lo*(1-sizeTolerance) || x > hi*(1+sizeTolerance)
}

// Equation is the fit in words: "1.23 s + size / 98.7 MB/s".
func (f *Fit) Equation() string {
	if f.Intercept < 0 {
		return fmt.Sprintf("size / %s − %s", FormatRate(f.Rate()), FormatSeconds(-f.Intercept))
	}
	return fmt.Sprintf("%s + size / %s", FormatSeconds(f.Intercept), FormatRate(f.Rate()))
}

// SizeHoldOut checks a fit's predictions: fitted without the largest size, how
// far off is its prediction of that size from the measurement?
type SizeHoldOut struct {
	// Fit is the fit over the smaller sizes.
	Fit *Fit
	// Size is the held-out size, Measured its median seconds and Obs its
	// restores.
	Size, Measured float64
	Obs            []Obs
	Predicted      Estimate
}

// ErrorPercent is (predicted - measured) / measured × 100.
func (h *SizeHoldOut) ErrorPercent() float64 {
	return 100 * (h.Predicted.Value - h.Measured) / h.Measured
}

// HoldOutLargestSize fits the setup without its largest size and predicts that size.
// It needs MinFitSizes+1 sizes; with fewer it returns nil.
func HoldOutLargestSize(s *Setup, axis Axis) *SizeHoldOut {
	groups := BySize(s.Obs, axis)
	if len(groups) < MinFitSizes+1 {
		return nil
	}
	last := groups[len(groups)-1]
	var rest []Obs
	for _, g := range groups[:len(groups)-1] {
		rest = append(rest, g...)
	}
	f, err := fitObs(s, axis, rest)
	if err != nil {
		return nil
	}
	secs := make([]float64, len(last))
	for i, o := range last {
		secs[i] = o.Seconds
	}
	x := axis.Of(last[0])
	return &SizeHoldOut{Fit: f, Size: x, Measured: runs.Median(secs), Obs: last, Predicted: f.Predict(x)}
}
