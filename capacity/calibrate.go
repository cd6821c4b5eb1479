package capacity

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/runs"
)

// EnginePair is one setting a run restored on both engines, as package
// compare pairs them (compare.EnginePairs: same settings but the engine and
// JVM, same changelog, restore seconds, repeat-by-repeat ratios model /
// Kafka Streams).
type EnginePair struct {
	Run  *Run
	Pair compare.EnginePair
	// Shape is what the changelog held besides its size (shapeOf:
	// partitions, key order, value sizes, tombstones, compression): a
	// factor is fitted per shape, as restore rates are.
	Shape string
}

// KafkaStreamsOverModel is how many times the model's restore time Kafka
// Streams takes: 1 / compare's ratio (EnginePair.ModelOverKafkaStreams).
// 0 when the pair has none.
func (p EnginePair) KafkaStreamsOverModel() float64 {
	if r := p.Pair.ModelOverKafkaStreams(); r > 0 {
		return 1 / r
	}
	return 0
}

// Factors are the pair's Kafka Streams / model factors, one per repeat
// pair (1 / each of compare's ratios); without any repeat pair, the one
// factor of the two medians.
func (p EnginePair) Factors() []float64 {
	var out []float64
	for _, r := range p.Pair.Ratios {
		if r > 0 {
			out = append(out, 1/r)
		}
	}
	if len(out) == 0 {
		if f := p.KafkaStreamsOverModel(); f > 0 {
			out = append(out, f)
		}
	}
	return out
}

// Calibration is how much longer real Kafka Streams takes than the model
// engine for the same settings: model-based predictions are multiplied by
// a factor and labelled calibrated. The factor is measured on the restore
// phase (Kafka Streams reports no separate ready phase) and applied to the
// time to ready: an approximation the report states.
//
// The factor moves with size (the JVM's start-up and JIT amortise over a
// longer restore), so a prediction takes it from the curve of its own
// setting and changelog shape at its own size (Rate.FactorAt), not from
// the overall median.
type Calibration struct {
	// KafkaStreamsOverModel is the median of the pairs'
	// KafkaStreamsOverModel, the factor when nothing about the question is
	// known; Min and Max their spread across pairs.
	KafkaStreamsOverModel, Min, Max float64
	Pairs                           []EnginePair
	// Curves are the factor against size, one per setting and changelog
	// shape, in the order their first pair was seen.
	Curves []*CalibrationCurve
}

// String is e.g. "×1.12 (1.08-1.15 over 3 engine pairs)": the overall median
// and its spread across pairs.
func (c *Calibration) String() string {
	if len(c.Pairs) == 1 {
		return fmt.Sprintf("×%.2f (1 engine pair)", c.KafkaStreamsOverModel)
	}
	return fmt.Sprintf("×%.2f (%.2f-%.2f over %d engine pairs)", c.KafkaStreamsOverModel, c.Min, c.Max, len(c.Pairs))
}

// Calibrate collects every run's engine pairs (compare.EnginePairs), takes
// the median factor over them and fits the factor against size per
// setting and changelog shape, across runs (a run per size calibrates as
// well as one size sweep); nil when no run has a pair.
func Calibrate(rs []*Run) *Calibration {
	var pairs []EnginePair
	var fs []float64
	for _, run := range rs {
		for _, p := range compare.EnginePairs(run.Results.Restores) {
			ep := EnginePair{Run: run, Pair: p, Shape: pairShape(run, p)}
			if f := ep.KafkaStreamsOverModel(); f > 0 && p.BytesPerThread() > 0 {
				pairs = append(pairs, ep)
				fs = append(fs, f)
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return &Calibration{KafkaStreamsOverModel: runs.Median(fs), Min: runs.Min(fs), Max: runs.Max(fs), Pairs: pairs, Curves: curvesOf(pairs)}
}

// pairShape is the shape of the changelog a pair restored, as shapeOf
// names a setup's.
func pairShape(run *Run, p compare.EnginePair) string {
	for i := range run.Results.Restores {
		r := &run.Results.Restores[i]
		if r.Case == p.ModelCase && r.Topic == p.Topic {
			return shapeOf(Obs{Run: run, Restore: r})
		}
	}
	return ""
}

// curvesOf groups the pairs by setting and shape into curves. The pairs
// of one model setting with several kafka-streams cases (Kafka
// Streams-only settings apart, compare.EnginePair.KafkaStreamsSide) fall
// on one curve, as the planner cannot know which of them the user's
// application runs; its Setting names them, pooled.
func curvesOf(pairs []EnginePair) []*CalibrationCurve {
	var out []*CalibrationCurve
	index := map[string]*CalibrationCurve{}
	for _, p := range pairs {
		id := compare.SettingID(p.Pair.Params)
		key := id + "|" + p.Shape
		c, ok := index[key]
		if !ok {
			c = &CalibrationCurve{Setting: p.Pair.Setting, Shape: p.Shape, id: id}
			index[key] = c
			out = append(out, c)
		}
		c.add(p)
	}
	for _, c := range out {
		var sides []string
		for _, p := range c.Points {
			if side := p.Pair.Pair.KafkaStreamsSide; side != "" && !slices.Contains(sides, side) {
				sides = append(sides, side)
			}
		}
		if len(sides) > 0 {
			c.Setting += " (Kafka Streams cases pooled: " + strings.Join(sides, "; ") + ")"
		}
		c.finish()
	}
	return out
}

// CalibrationCurve is one setting on one changelog shape, calibrated at
// one or more sizes: per size the factor's median and its spread over
// repeat pairs, and across sizes a fit of the factor against log size.
type CalibrationCurve struct {
	// Setting names the setting as compare labels it ("threads=1"), or
	// "every setting" for a pooled curve; Shape is the changelog's.
	Setting, Shape string
	// Points are the pairs, one per size (a pooled curve may have several
	// at one size), by bytes per thread ascending.
	Points []CalibrationPoint
	// Fit is the factor against size through the points' medians; nil with
	// fewer than two sizes, or when no line through them stays above
	// minFactor, which NoFit then says.
	Fit   *FactorFit
	NoFit string
	id    string
}

// CalibrationPoint is one pair: the factor at one size.
type CalibrationPoint struct {
	Pair EnginePair
	// Bytes is the changelog bytes one thread restored
	// (compare.EnginePair.BytesPerThread).
	Bytes float64
	// Factors are the repeat pairs' Kafka Streams / model factors; Factor
	// their median, Lo and Hi their range: the factor's spread over
	// repeats at this size.
	Factors        []float64
	Factor, Lo, Hi float64
	// Fitted is the fit's factor at Bytes (0 without a fit).
	Fitted float64
}

// Residual is the measured median factor minus the fitted one.
func (p CalibrationPoint) Residual() float64 { return p.Factor - p.Fitted }

// add places pair p on the curve.
func (c *CalibrationCurve) add(p EnginePair) {
	fs := p.Factors()
	c.Points = append(c.Points, CalibrationPoint{Pair: p, Bytes: p.Pair.BytesPerThread(), Factors: fs,
		Factor: runs.Median(fs), Lo: runs.Min(fs), Hi: runs.Max(fs)})
}

// finish orders the points by size and fits them when they span two sizes
// or more.
func (c *CalibrationCurve) finish() {
	sort.SliceStable(c.Points, func(i, j int) bool { return c.Points[i].Bytes < c.Points[j].Bytes })
	c.Fit, c.NoFit = fitFactor(c.Points)
	if c.Fit == nil {
		return
	}
	for i := range c.Points {
		c.Points[i].Fitted = c.Fit.At(c.Points[i].Bytes)
	}
}

// Sizes is how many distinct sizes the curve measured (within
// sizeTolerance).
func (c *CalibrationCurve) Sizes() int { return len(c.sizeGroups()) }

// MinBytes and MaxBytes bound the sizes measured, bytes per thread.
func (c *CalibrationCurve) MinBytes() float64 { return c.Points[0].Bytes }

// MaxBytes is the largest size measured, bytes per thread.
func (c *CalibrationCurve) MaxBytes() float64 { return c.Points[len(c.Points)-1].Bytes }

// sizeGroups are the points grouped by size (within sizeTolerance),
// ascending.
func (c *CalibrationCurve) sizeGroups() [][]CalibrationPoint {
	var out [][]CalibrationPoint
	for _, p := range c.Points {
		n := len(out)
		if n > 0 && p.Bytes <= out[n-1][0].Bytes*(1+sizeTolerance) {
			out[n-1] = append(out[n-1], p)
			continue
		}
		out = append(out, []CalibrationPoint{p})
	}
	return out
}

// Label is the curve in words: "threads=1 on partitions=4 keys=uniform ...".
func (c *CalibrationCurve) Label() string {
	if c.Shape == "" {
		return c.Setting
	}
	return c.Setting + " on " + c.Shape
}
