package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 140, Name: "failover-gap", File: FailoverGapFile, Scenario: config.ScenarioFailover, Draw: FailoverGaps, Report: true,
		Title:   "Processing gap after a SIGKILL",
		Caption: "Per case the gap of its kills, median with min–max, coloured by the ledger check; dashed: session.timeout.ms"})
}

// FailoverGapFile is the file base name WriteAll gives FailoverGaps.
const FailoverGapFile = "failover-gap"

// Verdict classes of a failover case, each a bar colour.
const (
	gapVerified   = iota // every balance check exact
	gapDuplicates        // duplicates only (at-least-once)
	gapFailed            // a loss, a mismatch, or a sequence that broke off
	gapClasses
)

// gapColors are the bar colours of the verdict classes: green, orange, red.
var gapColors = [gapClasses]color.Color{palette[4], palette[1], palette[2]}

// gapClassNames label the classes in the legend.
var gapClassNames = [gapClasses]string{"ledger verified", "duplicates (at-least-once)", "lost, mismatch or unchecked"}

// gapClass is the verdict class of a case.
func gapClass(s runs.FailoverSummary) int {
	switch {
	case s.Checked == 0 || s.Checked < s.Sequences || s.Lost > 0:
		return gapFailed
	case s.Exact == s.Checked:
		return gapVerified
	case s.Duplicates > 0 && s.Lost == 0:
		return gapDuplicates
	}
	return gapFailed
}

// FailoverGaps charts per failover case the processing gap of its kills
// (each kill's longest task gap: last record processed by the killed
// instance to the first processed by the survivor) as a bar at the median
// with a min–max error bar over the kills, coloured and labelled with what
// the case's balance checks found ("verified", "N duplicates", "LOST N").
// Case names are set as RestoreTimePerCase sets them. It returns (nil, nil)
// for results without failover records, so WriteAll draws it only for them.
func FailoverGaps(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	sums := runs.SummarizeFailover(r.Restores)
	if len(sums) == 0 {
		return nil, nil
	}
	p := newPlot("Failover gap per configuration (median, min–max over kills)")
	p.Y.Label.Text = "gap (s): killed instance's last record → survivor's first"

	var bars [gapClasses]*plotter.BarChart
	var vals [gapClasses]plotter.Values
	used := [gapClasses]bool{}
	names := make([]string, len(sums))
	for k := range vals {
		vals[k] = make(plotter.Values, len(sums))
	}
	for i, s := range sums {
		names[i] = s.Case
		c := gapClass(s)
		vals[c][i], used[c] = s.MedianGap, true
	}
	var legend []legendEntry
	for k := range bars {
		b, err := plotter.NewBarChart(vals[k], vg.Points(10)) // width set below
		if err != nil {
			return nil, fmt.Errorf("plots: bars: %w", err)
		}
		b.Color, b.LineStyle.Width = gapColors[k], 0
		bars[k] = b
		if used[k] {
			legend = append(legend, legendEntry{name: gapClassNames[k], thumb: b})
		}
	}
	session, err := sessionLine(sums)
	if err != nil {
		return nil, err
	}
	if session != nil {
		legend = append(legend, legendEntry{name: "session.timeout.ms", thumb: session})
	}
	legend = append(legend, legendEntry{name: "above bar: median gap, ledger"})
	legendOutside(p, legend)

	slot := caseTicksIn(p, names, besideLegend(p))
	w := barWidth(slot)
	for _, b := range bars {
		b.Width = w
	}
	p.Add(hGrid(), bars[0], bars[1], bars[2])
	if session != nil {
		p.Add(session)
	}
	if err := addGapRanges(p, sums, w); err != nil {
		return nil, err
	}
	if err := addGapLabels(p, sums, slot); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(sums))
	return p, nil
}

// sessionLine is a dashed line across the chart at the largest
// session.timeout.ms of the cases: a killed member is noticed only after
// it, so no gap is much shorter. Nil when no case recorded one.
func sessionLine(sums []runs.FailoverSummary) (*plotter.Line, error) {
	var ms int64
	for _, s := range sums {
		ms = max(ms, s.SessionTimeoutMs)
	}
	if ms <= 0 {
		return nil, nil
	}
	y := float64(ms) / 1000
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: float64(len(sums)) - 0.5, Y: y}})
	if err != nil {
		return nil, fmt.Errorf("plots: session line: %w", err)
	}
	l.Color = color.Gray{Y: 0x40}
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	l.Width = vg.Points(1)
	return l, nil
}

// addGapRanges draws the min–max error bar of every case with more than
// one kill.
func addGapRanges(p *plot.Plot, sums []runs.FailoverSummary, barWidth vg.Length) error {
	var xys plotter.XYs
	var ys plotter.YErrors
	for i, s := range sums {
		if s.Kills < 2 {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(i), Y: s.MedianGap})
		ys = append(ys, struct{ Low, High float64 }{s.MedianGap - s.MinGap, s.MaxGap - s.MedianGap})
	}
	if len(xys) == 0 {
		return nil
	}
	eb, err := NewYErrorBars(xys, ys)
	if err != nil {
		return fmt.Errorf("plots: error bars: %w", err)
	}
	eb.LineStyle.Width = vg.Points(1.2)
	eb.CapWidth = min(barWidth*0.5, vg.Points(12))
	p.Add(eb)
	return nil
}

// addGapLabels writes above each bar its median gap and the ledger's
// verdict, the verdict wrapped at spaces to the slot's width; in a slot too
// narrow for the verdict, the gap alone (the colour still tells it).
func addGapLabels(p *plot.Plot, sums []runs.FailoverSummary, slot vg.Length) error {
	xys := make(plotter.XYs, len(sums))
	lbls := make([]string, len(sums))
	for i, s := range sums {
		xys[i] = plotter.XY{X: float64(i), Y: s.MaxGap}
		gap := "no gap"
		if s.Kills > 0 {
			gap = formatSeconds(s.MedianGap) + " s"
		}
		lbls[i] = gap + "\n" + s.Verdict()
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: lbls})
	if err != nil {
		return fmt.Errorf("plots: labels: %w", err)
	}
	fit := slot * 0.95
	for i := range labels.TextStyle {
		sty := &labels.TextStyle[i]
		sty.Font.Size = vg.Points(8)
		sty.XAlign = draw.XCenter
		gap, verdict, _ := strings.Cut(labels.Labels[i], "\n")
		if verdict = wrapLabel(verdict, fit, *sty); labelWidth(verdict, *sty) <= fit {
			labels.Labels[i] = gap + "\n" + verdict
		} else {
			labels.Labels[i] = gap
		}
		if labelWidth(labels.Labels[i], *sty) > fit {
			labels.Labels[i] = ""
		}
	}
	labels.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(labels)
	return nil
}
