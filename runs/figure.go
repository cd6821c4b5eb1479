package runs

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/units"
)

// DeclaredFigure is the one figure a simple scenario's records are read
// by, declared with its record (recordDef.figure, in runs/<scenario>.go):
// what it is, its unit, how to read it from a record, and the words its
// views use. From it alone package report derives the scenario's summary
// table, report section and headline fact, and package plots its chart,
// when the scenario registers no view of that kind of its own; a scenario
// with views of its own needs none. The figure is a cost, the larger the
// worse (a time, a size): the headline fact's worst is the largest.
type DeclaredFigure struct {
	// Name says what the figure is, as a table's legend tells it: "the
	// restart's time to ready, opening the stores and finding nothing to
	// replay".
	Name string
	// Unit is the figure's unit as written after a value: "s" (written
	// with units.Seconds), "B" (units.Bytes), or any other, written after
	// three significant digits.
	Unit string
	// Column heads the figure's column in a table, with its unit:
	// "reopen s".
	Column string
	// Title titles the scenario's chart, report section and headline
	// fact: "Time to reopen restored stores".
	Title string
	// Axis labels the chart's value axis: "seconds to ready".
	Axis string
	// Paragraph opens the report's section: what each record measured and
	// how to read the figure (Markdown, as the report's paragraphs).
	Paragraph string
	// Read reads the figure from one of the scenario's records; false when
	// the record measured none (a step that failed before it measured).
	Read func(r Restore) (float64, bool)
}

// Format writes value v of the figure for people, with its unit: "0.35 s".
func (f DeclaredFigure) Format(v float64) string {
	switch f.Unit {
	case "s":
		return units.Seconds(v)
	case "B":
		return units.Bytes(v)
	}
	return units.Sig3(v) + " " + f.Unit
}

// check says what the declaration of scenario sc lacks, if anything.
func (f DeclaredFigure) check(sc config.Scenario) error {
	if f.Name == "" || f.Unit == "" || f.Column == "" || f.Title == "" || f.Axis == "" || f.Paragraph == "" || f.Read == nil {
		return fmt.Errorf("runs: record of %s declares a figure without its name, unit, column, title, axis, paragraph or reader", sc)
	}
	return nil
}

// FigureOf is the figure scenario sc's record declares; false when it
// declares none (its views are its own).
func FigureOf(sc config.Scenario) (DeclaredFigure, bool) {
	if d, ok := recordDefs[sc]; ok && d.figure != nil {
		return *d.figure, true
	}
	return DeclaredFigure{}, false
}

// FigureValues are the figures of the records of scenario sc in restores
// that count (verified, no error) and measured it, in order, read as fig
// reads them: what the default views take medians and worsts of.
func FigureValues(fig DeclaredFigure, sc config.Scenario, restores []Restore) []float64 {
	var out []float64
	for _, r := range restores {
		if r.Scenario() != sc || !r.Counts() {
			continue
		}
		if v, ok := fig.Read(r); ok {
			out = append(out, v)
		}
	}
	return out
}
