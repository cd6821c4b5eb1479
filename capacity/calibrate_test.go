package capacity

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// ksFixed and ksRate are the synthetic Kafka Streams line: a longer fixed
// cost than the model's (0.5 s) and a slower rate (the model's 100 MB/s),
// so the factor falls from about 1.9 at 128 MB to 1.25 at 1 GB.
const (
	ksFixed = 2.0
	ksRate  = 90e6
)

// calibrationRuns are one run per size of capacitytest's sizes, each with
// the model's Kafka Streams defaults and the kafka-streams engine's, on a
// changelog of key order order (runs first labels them R<first+1>...).
func calibrationRuns(first int, order loadgen.KeyOrder) []*Run {
	var out []*Run
	for i, size := range capacitytest.Sizes {
		res := capacitytest.Run(first+i, size, []capacitytest.Case{capacitytest.Cases[0], capacitytest.KafkaStreams(ksFixed, ksRate)})
		res.Fill.Spec.KeyOrder = order
		out = append(out, &Run{Label: "R" + strconv.Itoa(first+i+1), Path: "x", Results: res})
	}
	return out
}

// synthFactor is repeat rep's Kafka Streams / model factor at size: the
// restore phases (time to ready less the 0.3 s ready phase) of both lines
// with their noise.
func synthFactor(size float64, rep int) float64 {
	modelNoise := []float64{1.00, 1.03, 0.98, 1.015}
	ksNoise := capacitytest.KafkaStreams(0, 1).Noise
	m := (0.5+size/100e6)*modelNoise[rep] - 0.3
	k := (ksFixed+size/ksRate)*ksNoise[rep] - 0.3
	return k / m
}

// TestCalibrationPerSizeAndShapeWithAFit: engine pairs at four sizes and
// two key orders give one curve per shape, a point per size with the
// factor's median and range over its four repeat pairs, and a fit against
// log size whose residuals are the medians against it.
func TestCalibrationPerSizeAndShapeWithAFit(t *testing.T) {
	rs := append(calibrationRuns(0, loadgen.KeysUniform), calibrationRuns(len(capacitytest.Sizes), loadgen.KeysZipf)...)
	c := Calibrate(rs)
	if c == nil || len(c.Curves) != 2 {
		t.Fatalf("calibration %+v, want a curve per key order", c)
	}
	for i, cv := range c.Curves {
		if want := []string{"keys=uniform", "keys=zipf"}[i]; !strings.Contains(cv.Shape, want) {
			t.Errorf("curve %d shape %q, want %s", i, cv.Shape, want)
		}
		if len(cv.Points) != len(capacitytest.Sizes) || cv.Sizes() != len(capacitytest.Sizes) || cv.Fit == nil || cv.Fit.N != 16 {
			t.Fatalf("curve %s: %d points at %d sizes, fit %+v", cv.Label(), len(cv.Points), cv.Sizes(), cv.Fit)
		}
		for j, p := range cv.Points {
			size := float64(capacitytest.Sizes[j])
			var fs []float64
			for rep := range 4 {
				fs = append(fs, synthFactor(size, rep))
			}
			lo, hi := slicesMin(fs), slicesMax(fs)
			if p.Bytes != size || len(p.Factors) != 4 || !near(p.Lo, lo, 1e-9) || !near(p.Hi, hi, 1e-9) || p.Lo >= p.Hi {
				t.Errorf("point %d: %v bytes, factors %v (%v–%v), want %v–%v", j, p.Bytes, p.Factors, p.Lo, p.Hi, lo, hi)
			}
			if !near(p.Fitted, cv.Fit.Intercept+cv.Fit.Slope*cv.Fit.Form.x(size), 1e-12) || p.Residual() != p.Factor-p.Fitted {
				t.Errorf("point %d: fitted %v, residual %v", j, p.Fitted, p.Residual())
			}
		}
		// The factor falls with size as a fixed cost amortises: the
		// inverse-size form fits it better than log size, tending to about
		// the two rates' ratio (100/90), and its residuals are not 0 (the
		// noise, and the model's own fixed cost).
		if cv.Fit.Form != FormInverseSize || cv.Fit.Slope <= 0 || !(cv.Fit.RMS < cv.Fit.OtherRMS) || math.Abs(cv.Fit.Intercept-100.0/90) > 0.05 {
			t.Errorf("fit %s", cv.Fit)
		}
		if math.Abs(cv.Points[1].Residual()) < 1e-3 || math.Abs(cv.Points[1].Residual()) > 0.05 {
			t.Errorf("fit %s, residual at 256 MB %v", cv.Fit, cv.Points[1].Residual())
		}
	}
}

// planAt analyzes the uniform calibration runs for one task of bytes with
// the given objectives, the rate taken from the model (the kafka-streams
// setup would be chosen first, uncalibrated), and returns its cold-restore
// answer.
func planAt(t *testing.T, bytes float64, rtos ...time.Duration) (*Analysis, Answer) {
	t.Helper()
	a := Analyze(calibrationRuns(0, loadgen.KeysUniform), Options{RTOs: rtos, Case: "kstreams-default", Deployment: Deployment{StateBytes: bytes, Partitions: 1}})
	for _, ans := range a.Answers {
		if strings.HasPrefix(ans.Question, "Cold restore of one task") {
			return a, ans
		}
	}
	t.Fatalf("no task answer among %+v", a.Answers)
	return nil, Answer{}
}

// TestPlanBetweenCalibratedSizesInterpolates: a task between two
// calibrated sizes takes the fit's factor at its own size, with an
// interval of the repeat pairs' spread at the two sizes around it plus
// the fit's residuals there, and prints its time with that interval.
func TestPlanBetweenCalibratedSizesInterpolates(t *testing.T) {
	a, ans := planAt(t, 700e6, 10*time.Minute)
	e := ans.Figure
	if e == nil || e.Factor == nil || a.Rate.Curve == nil || a.Rate.CurveMatch != "" {
		t.Fatalf("answer %+v: no calibrated estimate (curve %v, match %q)", ans, a.Rate.Curve, a.Rate.CurveMatch)
	}
	f, cv := e.Factor, a.Rate.Curve
	if f.Extrapolated || f.Beyond != 1 || f.Bytes != 700e6 || !near(f.Value, cv.Fit.At(700e6), 1e-12) {
		t.Fatalf("factor %+v, want the fit's at 700 MB, inside the sizes", f)
	}
	p512, p1g := cv.Points[2], cv.Points[3]
	spreadLo := math.Max(p512.Factor-p512.Lo, p1g.Factor-p1g.Lo)
	spreadHi := math.Max(p512.Hi-p512.Factor, p1g.Hi-p1g.Factor)
	resid := math.Max(math.Abs(p512.Residual()), math.Abs(p1g.Residual()))
	if !near(f.Lo, f.Value-spreadLo-resid, 1e-12) || !near(f.Hi, f.Value+spreadHi+resid, 1e-12) || f.Residual != resid {
		t.Errorf("factor interval %v–%v (spread −%v/+%v, residual %v), want %v–%v",
			f.Lo, f.Hi, f.SpreadLo, f.SpreadHi, f.Residual, f.Value-spreadLo-resid, f.Value+spreadHi+resid)
	}
	r := a.Rate
	model := r.Overhead + 700e6/r.PerThread
	if !near(e.Value, f.Value*model, 1e-12) || !near(e.Lo, f.Lo*model*r.SpreadLo, 1e-12) || !near(e.Hi, f.Hi*model*r.SpreadHi, 1e-12) {
		t.Errorf("estimate %v (%v–%v), want %v (%v–%v)", e.Value, e.Lo, e.Hi, f.Value*model, f.Lo*model*r.SpreadLo, f.Hi*model*r.SpreadHi)
	}
	if want := FormatSeconds(e.Value) + " ("; !strings.HasPrefix(ans.Value, want) || !strings.HasSuffix(ans.Value, " s)") {
		t.Errorf("value %q, want %q with its interval", ans.Value, want)
	}
	if in := strings.Join(ans.Inputs, "\n"); !strings.Contains(in, "interpolated on the fit over 4 sizes") {
		t.Errorf("inputs do not say the factor is interpolated:\n%s", in)
	}
	if c := ans.Checks[0]; !c.Meets || c.Inconclusive {
		t.Errorf("10 min: %s", c.Verdict())
	}
}

// TestPlanBeyondCalibratedSizesSaysExtrapolation: past the largest size
// calibrated the factor follows the fit's trend, flagged, its interval
// reaching back to the largest size's fitted factor; far past it a
// verdict is inconclusive.
func TestPlanBeyondCalibratedSizesSaysExtrapolation(t *testing.T) {
	a, ans := planAt(t, 3e9, 10*time.Minute)
	f, cv := ans.Figure.Factor, a.Rate.Curve
	if !f.Extrapolated || !near(f.Beyond, 3, 1e-12) || f.Wide() {
		t.Fatalf("factor %+v, want extrapolated 3× beyond", f)
	}
	if end := cv.Fit.At(1e9); !(f.Value < end) || !(f.Hi >= end) {
		t.Errorf("factor %v (%v–%v): the interval must reach the 1 GB fitted factor %v", f.Value, f.Lo, f.Hi, end)
	}
	if in := strings.Join(ans.Inputs, "\n"); !strings.Contains(in, "EXTRAPOLATED 3.0× beyond the sizes calibrated (128 MB–1.00 GB)") {
		t.Errorf("inputs do not flag the extrapolation:\n%s", in)
	}
	_, far := planAt(t, 20e9, 60*time.Minute)
	if c := far.Checks[0]; !c.Inconclusive || !strings.Contains(c.Why, "beyond") {
		t.Errorf("20 GB a task, 20× the rate's and the calibration's sizes: %s", c.Verdict())
	}
}

// TestRTOInsideTheCalibratedIntervalIsInconclusive: an objective above
// what the restores' spread alone allows but inside the calibrated
// interval is inconclusive, neither met nor missed; one above the
// interval is met.
func TestRTOInsideTheCalibratedIntervalIsInconclusive(t *testing.T) {
	_, probe := planAt(t, 700e6, time.Hour)
	e := probe.Figure
	uncalibratedTop := e.Value * e.Hi / e.Value / (e.Factor.Hi / e.Factor.Value) // the rate's spread alone
	rto := time.Duration((uncalibratedTop + e.Hi) / 2 * float64(time.Second)).Round(time.Millisecond)
	if !(rto.Seconds() > uncalibratedTop && rto.Seconds() < e.Hi) {
		t.Fatalf("rto %v not between %v and %v", rto, uncalibratedTop, e.Hi)
	}
	above := time.Duration(e.Hi * 1.05 * float64(time.Second)).Round(time.Millisecond)
	_, ans := planAt(t, 700e6, rto, above)
	c := ans.Checks[0]
	if !c.Inconclusive || !strings.HasPrefix(c.Verdict(), "INCONCLUSIVE") || !strings.Contains(c.Why, "straddles") {
		t.Errorf("RTO %v inside %s: %s", rto, ans.Value, c.Verdict())
	}
	if c := ans.Checks[1]; c.Inconclusive || !c.Meets {
		t.Errorf("RTO %v above %s: %s", above, ans.Value, c.Verdict())
	}
}

// TestCurveForFallsBackAndSaysSo: a rate whose setting was not calibrated
// takes every setting pooled, and says so.
func TestCurveForFallsBackAndSaysSo(t *testing.T) {
	c := Calibrate(calibrationRuns(0, loadgen.KeysUniform))
	p := c.Curves[0].Points[0].Pair.Pair.Params
	p.Threads = 3
	cv, why := c.CurveFor(p, c.Curves[0].Shape)
	if cv.Setting != "every setting" || !strings.Contains(why, "pooled") || len(cv.Points) != 4 || cv.Fit == nil {
		t.Fatalf("curve %+v, %q", cv, why)
	}
	if same, why := c.CurveFor(c.Curves[0].Points[0].Pair.Pair.Params, "another shape"); same != c.Curves[0] || !strings.Contains(why, "not the rate's") {
		t.Fatalf("same setting, other shape: %v, %q", same, why)
	}
}

func slicesMin(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func slicesMax(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// TestVerdictOnAFactorFarBeyondItsSizesIsInconclusive: a time whose own
// size was measured but whose calibration factor lies more than 4× beyond
// the sizes calibrated decides nothing.
func TestVerdictOnAFactorFarBeyondItsSizesIsInconclusive(t *testing.T) {
	e := Estimate{Value: 10, Lo: 9.5, Hi: 10.5, Beyond: 1, Factor: &AppliedFactor{Value: 1.1, Lo: 1.05, Hi: 1.15, Bytes: 6e9, Extrapolated: true, Beyond: 6}}
	c := checks(e, []time.Duration{time.Minute})[0]
	if !c.Inconclusive || !strings.Contains(c.Why, "factor taken 6× beyond the sizes it was measured at") {
		t.Fatalf("%s", c.Verdict())
	}
}

// TestCurveForTakesTheLikestShape: a setting calibrated on uniform and zipf
// keys, asked for a zipf changelog of another tombstone share, takes the
// zipf curve.
func TestCurveForTakesTheLikestShape(t *testing.T) {
	c := Calibrate(append(calibrationRuns(0, loadgen.KeysUniform), calibrationRuns(len(capacitytest.Sizes), loadgen.KeysZipf)...))
	zipf := c.Curves[1]
	asked := strings.Replace(zipf.Shape, "tombstones=0.02", "tombstones=0.01", 1)
	cv, why := c.CurveFor(zipf.Points[0].Pair.Pair.Params, asked)
	if cv != zipf || !strings.Contains(why, "keys=zipf") {
		t.Fatalf("curve %s (%s), want the zipf one", cv.Label(), why)
	}
}

// TestVerdictMarginHoldsOverTheInterval: a time that meets an objective
// meets it by the margin left at the interval's slow end, and one that
// misses misses by at least the gap to the fast end, never by the point
// estimate's larger distance.
func TestVerdictMarginHoldsOverTheInterval(t *testing.T) {
	rto := []time.Duration{time.Minute}
	meets := checks(Estimate{Value: 40, Lo: 35, Hi: 50, Beyond: 1}, rto)[0]
	if !meets.Meets || meets.Inconclusive || meets.Margin != 10 || meets.Verdict() != "meets the 1 min RTO by at least 10.0 s" {
		t.Errorf("meets: %+v, %q", meets, meets.Verdict())
	}
	misses := checks(Estimate{Value: 90, Lo: 70, Hi: 100, Beyond: 1}, rto)[0]
	if misses.Meets || misses.Margin != -10 || misses.Verdict() != "MISSES the 1 min RTO by at least 10.0 s" {
		t.Errorf("misses: %+v, %q", misses, misses.Verdict())
	}
	point := checks(Estimate{Value: 40, Beyond: 1}, rto)[0]
	if point.Margin != 20 || point.Verdict() != "meets the 1 min RTO by 20.0 s" {
		t.Errorf("point: %+v, %q", point, point.Verdict())
	}
}

// TestCalibrationPoolsKafkaStreamsCasesOfOneSettingAndSaysSo: one model
// case paired with two kafka-streams cases that differ only in a Kafka
// Streams-only property (one restores 1.5× slower). The planner cannot
// know which the user's application runs: it keeps both on one curve,
// whose name says it pools them and whose factor's interval spans both.
func TestCalibrationPoolsKafkaStreamsCasesOfOneSettingAndSaysSo(t *testing.T) {
	fast := capacitytest.KafkaStreams(ksFixed, ksRate)
	slow := capacitytest.KafkaStreams(ksFixed, ksRate/1.5)
	slow.Name, slow.Modify = "ks-wait", func(c *config.Case) {
		c.Engine = config.EngineKafkaStreams
		c.Streams = map[string]string{"restore.consumer.fetch.max.wait.ms": "10"}
	}
	res := capacitytest.Run(0, 1000e6, []capacitytest.Case{capacitytest.Cases[0], fast, slow})
	c := Calibrate([]*Run{{Label: "R1", Path: "x", Results: res}})
	if c == nil || len(c.Pairs) != 2 || len(c.Curves) != 1 {
		t.Fatalf("calibration %+v, want two pairs on one curve", c)
	}
	cv := c.Curves[0]
	for _, want := range []string{"Kafka Streams cases pooled", "restore.consumer.fetch.max.wait.ms=(unset)", "restore.consumer.fetch.max.wait.ms=10"} {
		if !strings.Contains(cv.Setting, want) {
			t.Errorf("curve %q does not say %q", cv.Setting, want)
		}
	}
	f := cv.At(1000e6)
	a, b := c.Pairs[0].KafkaStreamsOverModel(), c.Pairs[1].KafkaStreamsOverModel()
	lo, hi := math.Min(a, b), math.Max(a, b)
	if f.Lo > lo || f.Hi < hi {
		t.Errorf("factor %.3f (%.3f–%.3f) does not span the two cases' medians %.3f and %.3f", f.Value, f.Lo, f.Hi, lo, hi)
	}
}
