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
