package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/runs"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 40, Name: "restore-phases", File: RestorePhasesFile, Draw: RestorePhases})
}

// RestorePhasesFile is the file base name WriteAll gives RestorePhases.
const RestorePhasesFile = "restore-phases"

// casePhases are one case's phase medians over its verified, error-free
// repeats (all zero when it has none).
type casePhases struct {
	name                       string
	repeats, verified          int
	load, finish, ready, total float64
}

// phaseColors are the colours of the load, finish and ready bars.
var phaseColors = [3]color.Color{palette[0], palette[1], palette[4]}

// phaseMedians groups restores by case, in first-seen order as
// runs.Summarize does, and takes the median of each phase over the
// verified, error-free repeats. A restore without a ready phase
// (runs.Restore.Ready) has one of 0; one without the model's load and
// finish split (kafka-streams, or results written before they were
// recorded) counts its whole restore phase as load.
func phaseMedians(restores []runs.Restore) []casePhases {
	groups := runs.GroupByCase(restores)
	out := make([]casePhases, len(groups))
	for i, g := range groups {
		c := casePhases{name: g.Case, repeats: len(g.Restores)}
		var load, finish, ready, total []float64
		for _, rs := range g.Restores {
			if !rs.Counts() {
				continue
			}
			c.verified++
			p := rs.Phase
			if p == nil {
				continue // no restore measured: no phases to stack
			}
			l, f, r := p.Seconds, 0.0, 0.0
			if m := rs.Model; m != nil && (m.LoadSeconds != 0 || m.FinishSeconds != 0) {
				l, f = m.LoadSeconds, m.FinishSeconds
			}
			if rd := rs.Ready(); rd != nil {
				r = rd.Seconds
			}
			t := p.TotalSeconds
			if t == 0 {
				t = p.Seconds + r
			}
			load, finish = append(load, l), append(finish, f)
			ready, total = append(ready, r), append(total, t)
		}
		c.load, c.finish = runs.Median(load), runs.Median(finish)
		c.ready, c.total = runs.Median(ready), runs.Median(total)
		out[i] = c
	}
	return out
}

// RestorePhases charts per case the medians, over its verified, error-free
// repeats, of the load phase (opening the stores to the last record
// written), the finish phase (bulk's compaction, ingest's sort and SST
// ingestion) and the ready phase (settling and the read probe) as stacked
// bars, with the median time to ready (TimeToReady) above each bar. A case
// without such a repeat is a zero bar whose label ends in " (unverified)".
// Case names are set as RestoreTimePerCase sets them. Results without
// restores give ErrNoRestores.
func RestorePhases(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	cold := r.ColdRestores()
	if len(cold) == 0 {
		return nil, ErrNoRestores
	}
	cases := phaseMedians(cold)
	p := newPlot("Restore and ready phases per case")
	p.Y.Label.Text = "time (s, medians of verified repeats)"

	bars, err := phaseBars(cases)
	if err != nil {
		return nil, err
	}
	phaseLegend(p, bars, slices.ContainsFunc(cold, func(rs runs.Restore) bool { return rs.Ready() != nil }))

	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = caseLabel(c.name, c.verified)
	}
	// The legend column takes its width from the data area.
	slot := caseTicksIn(p, names, besideLegend(p))
	w := barWidth(slot)
	for _, b := range bars {
		b.Width = w
	}
	p.Add(hGrid(), bars[0], bars[1], bars[2])

	if err := addPhaseTotals(p, cases, slot*0.95); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(cases))
	return p, nil
}

// phaseBars are the load, finish and ready bars of cases, each stacked on
// the one before, in phaseColors; a case without a verified repeat has bars
// of 0. Their width is left for the caller to set once the case slots are
// known.
func phaseBars(cases []casePhases) ([3]*plotter.BarChart, error) {
	vals := [3]plotter.Values{}
	for k := range vals {
		vals[k] = make(plotter.Values, len(cases))
	}
	for i, c := range cases {
		if c.verified > 0 {
			vals[0][i], vals[1][i], vals[2][i] = c.load, c.finish, c.ready
		}
	}
	var bars [3]*plotter.BarChart
	for k := range bars {
		b, err := plotter.NewBarChart(vals[k], vg.Points(10)) // width set by the caller
		if err != nil {
			return bars, fmt.Errorf("plots: bars: %w", err)
		}
		b.Color = phaseColors[k]
		b.LineStyle.Width = 0
		if k > 0 {
			b.StackOn(bars[k-1])
		}
		bars[k] = b
	}
	return bars, nil
}

// phaseLegend names the phases top to bottom, as the stack is, and says what
// the number above a bar is. readyMeasured tells whether any restore
// measured its ready phase; when none did the legend says so, lest the
// ready bars of 0 read as instant ready phases.
func phaseLegend(p *plot.Plot, bars [3]*plotter.BarChart, readyMeasured bool) {
	ready := "ready (flush + settle)"
	if !readyMeasured {
		ready = "ready (not measured)"
	}
	legendOutside(p, []legendEntry{
		{name: ready, thumb: bars[2]},
		{name: "finish (compact / ingest)", thumb: bars[1]},
		{name: "load (records written)", thumb: bars[0]},
		{name: "above bar: median total (s)"},
	})
}

// addPhaseTotals writes each case's median total time above its bar (at
// the top of the stack, or at the total when that is higher), and
// noVerifiedLabel at 0 for a case without a verified repeat, each set to
// fit a case slot of width fit as fitPhaseLabels says.
func addPhaseTotals(p *plot.Plot, cases []casePhases, fit vg.Length) error {
	var xys plotter.XYs
	var lbls []string
	var totals []int // indexes into lbls of the totals
	for i, c := range cases {
		if c.verified == 0 {
			xys = append(xys, plotter.XY{X: float64(i), Y: 0})
			lbls = append(lbls, noVerifiedLabel)
			continue
		}
		totals = append(totals, len(lbls))
		xys = append(xys, plotter.XY{X: float64(i), Y: max(c.load+c.finish+c.ready, c.total)})
		lbls = append(lbls, formatSeconds(c.total)+" s")
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: lbls})
	if err != nil {
		return fmt.Errorf("plots: labels: %w", err)
	}
	fitPhaseLabels(labels, totals, fit)
	labels.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(labels)
	return nil
}

// fitPhaseLabels sets labels small and centred above their bars, shortened
// or turned until they fit a slot of width fit. The totals (at indexes
// totals) are treated alike, so that one chart never mixes forms: all with
// their unit, else all without, else all upright, else none when the slot
// is narrower than a line of text. Every other label is kept as it is if it
// fits, else set upright on one line, else dropped.
func fitPhaseLabels(labels *plotter.Labels, totals []int, fit vg.Length) {
	lbls := slices.Clone(labels.Labels) // as first set, read while labels' own change
	sty := labels.TextStyle[0]
	sty.Font.Size = vg.Points(8)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YBottom
	upright := sty
	upright.Rotation = math.Pi / 2 // reading bottom to top
	upright.XAlign = draw.XLeft
	upright.YAlign = draw.YCenter
	fitsAll := func(f func(string) string) bool {
		for _, i := range totals {
			if labelWidth(f(lbls[i]), sty) > fit {
				return false
			}
		}
		return true
	}
	noUnit := func(s string) string { return strings.TrimSuffix(s, " s") }
	for _, i := range totals {
		labels.TextStyle[i] = sty
		switch {
		case fitsAll(func(s string) string { return s }):
		case fitsAll(noUnit):
			labels.Labels[i] = noUnit(lbls[i])
		case sty.Height("0") <= fit:
			labels.TextStyle[i] = upright
		default:
			labels.Labels[i] = ""
		}
	}
	for i := range labels.Labels {
		if slices.Contains(totals, i) {
			continue
		}
		labels.TextStyle[i] = sty
		switch {
		case labelWidth(lbls[i], sty) <= fit:
		case sty.Height("0") <= fit:
			labels.TextStyle[i] = upright
			labels.Labels[i] = strings.ReplaceAll(lbls[i], "\n", " ")
		default:
			labels.Labels[i] = ""
		}
	}
}
