package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The default chart of a simple scenario: a scenario whose record declares
// the figure it is read by (runs.DeclaredFigure) and that registers no
// chart of its own gets one chart derived from the declaration, per case
// the median of the figure over its verified repeats. It is not
// registered from a file of its own: Charts derives it, after the
// registry's charts, for every such scenario in config's order, so a new
// simple scenario needs no file here.

// figureOf is the figure a scenario's record declares (runs.FigureOf);
// tests declare one through it.
var figureOf = runs.FigureOf

// figureCharts are the default charts of the scenarios config registers,
// in its order, whose record declares a figure and none of whose charts
// are among own (the registry's): one each, placed after own's orders and
// named, and written, as its scenario.
func figureCharts(own []Chart) []Chart {
	next := 1
	if len(own) > 0 {
		next = own[len(own)-1].Order + 1
	}
	var out []Chart
	for _, sc := range config.Scenarios {
		fig, ok := figureOf(sc)
		if !ok || slices.ContainsFunc(own, func(c Chart) bool { return c.Scenario == sc }) {
			continue
		}
		out = append(out, figureChart(next, sc, fig))
		next++
	}
	return out
}

// figureChart is scenario sc's default chart, in order, drawn from fig.
func figureChart(order int, sc config.Scenario, fig runs.DeclaredFigure) Chart {
	return Chart{Order: order, Name: string(sc), File: string(sc), Scenario: sc, Report: true,
		Title:   fig.Title,
		Caption: fmt.Sprintf("Median of %s, per case over its verified repeats", fig.Name),
		Draw:    func(r *runs.Results) (*plot.Plot, error) { return FigureMedians(r, sc, fig) }}
}

// figureCase is one case's bar of a default chart: the median of its
// verified repeats' figures, and how many there were.
type figureCase struct {
	name     string
	median   float64
	verified int
}

// figureCases are the cases of scenario sc's records in r, in first-seen
// order, each with the median of fig over its repeats that count (zero and
// none verified when no repeat counts).
func figureCases(r *runs.Results, sc config.Scenario, fig runs.DeclaredFigure) []figureCase {
	var names []string
	byCase := map[string][]runs.Restore{}
	for _, rs := range r.Restores {
		if rs.Scenario() != sc {
			continue
		}
		c := caseOf(rs)
		if _, seen := byCase[c]; !seen {
			names = append(names, c)
		}
		byCase[c] = append(byCase[c], rs)
	}
	out := make([]figureCase, len(names))
	for i, c := range names {
		vals := runs.FigureValues(fig, sc, byCase[c])
		out[i] = figureCase{name: c, verified: len(vals)}
		if len(vals) > 0 {
			out[i].median = runs.Median(vals)
		}
	}
	return out
}

// FigureMedians charts, per case of scenario sc, the median of its
// declared figure fig over its verified, error-free repeats, as a bar with
// the median and the count above it; a case without such a repeat is a
// zero bar whose label ends in " (unverified)". (nil, nil) for results
// without records of sc.
func FigureMedians(r *runs.Results, sc config.Scenario, fig runs.DeclaredFigure) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	cases := figureCases(r, sc, fig)
	if len(cases) == 0 {
		return nil, nil
	}
	p := newPlot(fig.Title + " (median over verified repeats)")
	p.Y.Label.Text = fig.Axis
	values := make(plotter.Values, len(cases))
	names := make([]string, len(cases))
	lblXYs := make(plotter.XYs, len(cases))
	lbls := make([]string, len(cases))
	for i, c := range cases {
		names[i] = caseLabel(c.name, c.verified)
		values[i] = c.median
		lblXYs[i] = plotter.XY{X: float64(i), Y: c.median}
		lbls[i] = noVerifiedLabel
		if c.verified > 0 {
			lbls[i] = fmt.Sprintf("%s\nn=%d", fig.Format(c.median), c.verified)
		}
	}
	slot := caseTicks(p, names)
	bars, err := plotter.NewBarChart(values, barWidth(slot))
	if err != nil {
		return nil, fmt.Errorf("plots: bars: %w", err)
	}
	bars.Color, bars.LineStyle.Width = palette[0], 0
	p.Add(hGrid(), bars)
	if err := addMedianLabels(p, lblXYs, lbls, slot*0.95); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(cases))
	return p, nil
}
