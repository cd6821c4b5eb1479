package capacity

import (
	"fmt"
	"strconv"
)

// Figure is an answer's one number, the one shape every answer, RTO-table
// cell and JSON field takes it from (an answer's Value text is written
// from it through Text; plan --format json writes its fields).
//
// Its Estimate carries:
//   - Value, in Unit;
//   - Lo and Hi, the interval the measurements give Value (the spread of
//     the restores it rests on, and the calibration factor's). A figure
//     without one (a count, a measured worst case, a ratio) has Lo = Hi = 0,
//     and HasInterval reports false: "no interval" is read from that, never
//     from Lo = Hi (an interval of no spread, which a calibrated figure with
//     one restore can have, is said as such);
//   - Extrapolated, Beyond and Below: how far outside the sizes measured the
//     figure lies (Beyond 1 inside them, and for a measurement; a count
//     derived from an estimate carries that estimate's; 0 when not derived);
//   - Factor, the calibration factor applied at its size (nil when
//     uncalibrated);
//   - ShapeBeyond, ShapeBelow and ShapeWhat: how far outside the changelog
//     shapes its restore cost was fitted over (0 when it rests on no cost).
type Figure struct {
	Estimate
	// Unit is what Value, Lo and Hi count: UnitSeconds, UnitBytes,
	// UnitCount, UnitRatio or UnitBytesPerSecond.
	Unit string
}

// The units of an answer's Figure.
const (
	UnitSeconds        = "seconds"
	UnitBytes          = "bytes"
	UnitCount          = "count"
	UnitRatio          = "ratio"
	UnitBytesPerSecond = "bytes_per_second"
)

// figureOf is an estimate as a figure in unit, for an answer to point at.
func figureOf(e Estimate, unit string) *Figure { return &Figure{Estimate: e, Unit: unit} }

// measuredFigure is a measured figure in unit: no interval, inside what
// was measured (Beyond 1).
func measuredFigure(v float64, unit string) *Figure {
	return figureOf(Estimate{Value: v, Beyond: 1}, unit)
}

// pointFigure is a figure in unit with no interval whose distance from
// what was measured is not derived (Beyond 0): a bound of settings, a
// measured ratio applied at another size.
func pointFigure(v float64, unit string) *Figure { return figureOf(Estimate{Value: v}, unit) }

// SecondsFigure is a time in seconds with the interval [lo, hi] a model
// of it gives (failure detection from a session timeout and heartbeats, a
// handover ASSUMED), its distance from what was measured not derived
// (Beyond 0). The audit's times are these.
func SecondsFigure(value, lo, hi float64) Figure {
	return Figure{Estimate: Estimate{Value: value, Lo: lo, Hi: hi}, Unit: UnitSeconds}
}

// Add is f followed by o, two terms of one time (or any sum of one unit):
// values added, and interval ends added, a term without an interval
// counting its value at both ends (the sum has none when neither has
// one). The sum lies as far outside what was measured as its farther term
// (its Extrapolated, Beyond, Below, Factor and shape distance), since an
// exact term added does not bring it nearer. Terms of two units are a
// bug, and panic.
func (f Figure) Add(o Figure) Figure {
	if f.Unit != o.Unit {
		panic(fmt.Sprintf("capacity: adding a figure in %s to one in %s", o.Unit, f.Unit))
	}
	sum := f
	if o.Beyond > f.Beyond || o.ShapeBeyond > f.ShapeBeyond && o.Beyond == f.Beyond {
		sum = o
	}
	sum.Value = f.Value + o.Value
	if f.HasInterval() || o.HasInterval() {
		sum.Lo, sum.Hi = f.low()+o.low(), f.high()+o.high()
	}
	return sum
}

// low and high are the ends of f's interval, its value at both when it
// has none.
func (f Figure) low() float64 {
	if f.HasInterval() {
		return f.Lo
	}
	return f.Value
}

func (f Figure) high() float64 {
	if f.HasInterval() {
		return f.Hi
	}
	return f.Value
}

// countFigure is a count derived from an estimate (partitions, instances):
// no interval of its own, but as far outside the sizes and shapes measured
// as the estimate it rests on, so that a count from a wide extrapolation
// says so.
func countFigure(n int, from Estimate) *Figure {
	e := from
	e.Value, e.Lo, e.Hi, e.Factor = float64(n), 0, 0, nil
	return figureOf(e, UnitCount)
}

// Text is the figure as an answer shows it, through its unit's one
// formatter: "2.9 min (2.4–3.5 min)" for a calibrated time with its
// interval, "4.80 GB", "118 MB/s", "12", "1.25×".
func (f Figure) Text() string { return withInterval(f.Estimate, unitFormat(f.Unit)) }

// unitFormat is the one formatter of a unit's values.
func unitFormat(unit string) func(float64) string {
	switch unit {
	case UnitSeconds:
		return FormatSeconds
	case UnitBytes:
		return FormatBytes
	case UnitBytesPerSecond:
		return FormatRate
	case UnitCount:
		return func(n float64) string { return strconv.FormatFloat(n, 'f', 0, 64) }
	case UnitRatio:
		return func(r float64) string { return fmt.Sprintf("%.2f×", r) }
	}
	return func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
}
