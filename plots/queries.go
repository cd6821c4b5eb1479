package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 55, Name: "lookups-answered", File: LookupsAnsweredFile, Draw: LookupsAnswered})
}

// LookupsAnsweredFile is the lookups-answered chart's base name.
const LookupsAnsweredFile = "lookups-answered"

// LookupsAnswered draws, for each restore with a query load, the share of
// its lookups answered second by second (answered over sent, %), against
// seconds since the lookups began: when reads were served again, and how
// far they fell meanwhile. Results without a query load have none.
func LookupsAnswered(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var with []runs.Restore
	for _, x := range r.Restores {
		if x.Queries != nil && len(x.Queries.Series) > 0 {
			with = append(with, x)
		}
	}
	if len(with) == 0 {
		return nil, ErrNotApplicable
	}
	p := newPlot("Lookups answered while the state came back")
	p.Add(plotter.NewGrid())
	p.X.Label.Text = "time since the lookups began (s)"
	p.Y.Label.Text = "lookups answered (% of those sent that second)"
	var styles lineStyles
	var legend []legendEntry
	maxT := 0.0
	for _, x := range with {
		ci, ri := styles.next(x.Case)
		xys := answeredXYs(x.Queries.Series)
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plots: lookups of %s #%d: %w", x.Case, x.Repeat, err)
		}
		l.StepStyle = plotter.PreStep
		l.Color, l.Dashes, l.Width = PaletteColor(ci), variantDashes(ci, ri), vg.Points(1.5)
		p.Add(l)
		maxT = max(maxT, xys[len(xys)-1].X)
		suffix := fmt.Sprintf(" #%d", x.Repeat)
		if x.Step != nil && x.Step.Kill > 0 {
			// A failover's records are one per kill of the repeat.
			suffix += fmt.Sprintf(" kill %d", x.Step.Kill)
		}
		if x.Queries.Stale {
			suffix += " (stale reads)"
		}
		legend = append(legend, legendEntry{name: x.Case, suffix: suffix, thumb: l})
	}
	finishAxes(p, maxT)
	p.Y.Max = 105
	legendOutside(p, legend)
	return p, nil
}

// answeredXYs is a query series' answered share per second, each second
// drawn at its end.
func answeredXYs(series []runs.QuerySecond) plotter.XYs {
	xys := make(plotter.XYs, 0, len(series)+1)
	xys = append(xys, plotter.XY{X: 0, Y: share(series[0])})
	for _, s := range series {
		xys = append(xys, plotter.XY{X: float64(s.T + 1), Y: share(s)})
	}
	return xys
}

// share is the second's answered lookups over those sent, in %.
func share(s runs.QuerySecond) float64 {
	if s.Lookups == 0 {
		return 0
	}
	return 100 * float64(s.Answered) / float64(s.Lookups)
}
