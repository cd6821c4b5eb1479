package plots

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 160, Name: "lookups-by-instance", File: LookupsByInstanceFile, Scenario: config.ScenarioFailover,
		Draw: LookupsByInstance, Report: true,
		Title: "Lookups answered per instance around a SIGKILL",
		Caption: "Each failover case's first kill under a query load: the answers each instance gave second by second, " +
			"from when the lookups began; dotted: the kill"})
}

// LookupsByInstanceFile is the lookups-by-instance chart's base name.
const LookupsByInstanceFile = "lookups-by-instance"

// LookupsByInstance draws, for the first kill of each failover case with a
// query load (one per case, so the lines stay few), the lookups answered
// each second by each instance that answered (the survivor directly, the
// killed one through forwards before the kill), against seconds since the
// lookups began, with the kill marked: where the answers moved and how
// long they stopped. ErrNotApplicable without such kills.
func LookupsByInstance(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	with := firstQueryKills(r.Restores)
	if len(with) == 0 {
		return nil, ErrNotApplicable
	}
	p := newPlot("Lookups answered per instance around a SIGKILL")
	p.Add(plotter.NewGrid())
	p.X.Label.Text = "time since the lookups began (s)"
	p.Y.Label.Text = "lookups answered (per second)"
	var styles lineStyles
	var legend []legendEntry
	maxT := 0.0
	for _, x := range with {
		for _, id := range instancesOf(x.Queries.Series) {
			ci, ri := styles.next(x.Case + "/" + id)
			l, err := plotter.NewLine(instanceXYs(x.Queries.Series, id))
			if err != nil {
				return nil, fmt.Errorf("plots: lookups of %s by %s: %w", x.Case, id, err)
			}
			l.StepStyle = plotter.PreStep
			l.Color, l.Dashes, l.Width = PaletteColor(ci), variantDashes(ci, ri), vg.Points(1.5)
			p.Add(l)
			legend = append(legend, legendEntry{name: x.Case, suffix: fmt.Sprintf(" kill %d: %s", x.Failover.Kill, id), thumb: l})
		}
		maxT = max(maxT, float64(len(x.Queries.Series)))
		kill, err := plotter.NewLine(plotter.XYs{{X: x.Queries.Outage.KillSeconds, Y: 0}, {X: x.Queries.Outage.KillSeconds, Y: x.Queries.Rate}})
		if err != nil {
			return nil, err
		}
		kill.Dashes, kill.Color = []vg.Length{vg.Points(1), vg.Points(3)}, color.Gray{Y: 96}
		p.Add(kill)
	}
	finishAxes(p, maxT)
	legendOutside(p, legend)
	return p, nil
}

// firstQueryKills are each failover case's first kill with a query load
// whose series say which instance answered (results before they did have
// none to draw).
func firstQueryKills(restores []runs.Restore) []runs.Restore {
	var with []runs.Restore
	seen := map[string]bool{}
	for _, x := range restores {
		q := x.Queries
		if x.Failover == nil || q == nil || q.Outage == nil || len(instancesOf(q.Series)) == 0 || seen[x.Case] {
			continue
		}
		seen[x.Case] = true
		with = append(with, x)
	}
	return with
}

// instancesOf are the instances that answered in a series, sorted.
func instancesOf(series []runs.QuerySecond) []string {
	set := map[string]bool{}
	for _, s := range series {
		for id := range s.ByInstance {
			set[id] = true
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// instanceXYs are instance id's answers per second, each second drawn at
// its end. The last second is left out when there are others: the
// lookups stopped within it, so its count is of part of a second and
// would draw as a drop in answers that never happened.
func instanceXYs(series []runs.QuerySecond, id string) plotter.XYs {
	if len(series) > 1 {
		series = series[:len(series)-1]
	}
	xys := make(plotter.XYs, 0, len(series)+1)
	xys = append(xys, plotter.XY{X: 0, Y: float64(series[0].ByInstance[id])})
	for _, s := range series {
		xys = append(xys, plotter.XY{X: float64(s.T + 1), Y: float64(s.ByInstance[id])})
	}
	return xys
}
