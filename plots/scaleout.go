package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 70, Name: "scaleout-warmup-lag", File: WarmupLagFile, Scenario: config.ScenarioScaleOut, Draw: WarmupLag, Report: true,
		Title:   "Warmup lag during the scale-out",
		Caption: "Each warmup's lag against seconds from the new instances' start; dashed: acceptable.recovery.lag"})
	registerChart(Chart{Order: 80, Name: "scaleout-model", File: ModelVsMeasuredFile, Scenario: config.ScenarioScaleOut, Draw: ModelVsMeasured, Report: true,
		Title:   "Warmup-assignment time: measured vs model",
		Caption: "Measured beside the warmup model's prediction from the same run's inputs"})
	registerChart(Chart{Order: 100, Name: "rolling-downtime", File: RollingDowntimeFile, Scenario: config.ScenarioRolling, Draw: RollingDowntime, Report: true,
		Title:   "Rolling restart downtime",
		Caption: "Per restart the longest any task processed nothing"})
}

// File base names of the scale-out and rolling charts.
const (
	WarmupLagFile       = "scaleout-warmup-lag"
	ModelVsMeasuredFile = "scaleout-model-vs-measured"
	RollingDowntimeFile = "rolling-downtime"
)

// WarmupLag charts every warmup's lag (records behind its changelog's end,
// from the instances' lags events) against seconds from the new instances'
// start, a colour per scale-out record, with acceptable.recovery.lag as a
// dashed line: a warmup below it is caught up, and moves at the next
// probing rebalance. (nil, nil) for results without warmup lags.
func WarmupLag(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	p := newPlot("Warmup lag over time")
	p.Add(plotter.NewGrid())
	p.X.Label.Text = "seconds from the new instances' start"
	p.Y.Label.Text = "lag (records behind the changelog's end)"
	var legend []legendEntry
	var acceptable int64 = -1
	xMax := 0.0
	n := 0
	for _, rs := range r.Restores {
		so := rs.ScaleOut
		if so == nil {
			continue
		}
		var thumb plot.Thumbnailer
		for _, s := range so.Lags {
			if s.Role != runs.RoleWarmup || len(s.Points) == 0 {
				continue
			}
			xys, tMax := lagXYs(s.Points)
			xMax = max(xMax, tMax)
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("plots: warmup lag: %w", err)
			}
			l.Color, l.Width = palette[n%len(palette)], vg.Points(1.2)
			p.Add(l)
			thumb = l
		}
		if thumb != nil {
			legend = append(legend, legendEntry{name: fmt.Sprintf("%s #%d", rs.Case, rs.Repeat), suffix: " warmups", thumb: thumb})
			acceptable = so.AcceptableRecoveryLag
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	al, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(acceptable)}, {X: xMax, Y: float64(acceptable)}})
	if err != nil {
		return nil, err
	}
	al.Color, al.Dashes, al.Width = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
	p.Add(al)
	legend = append(legend, legendEntry{name: fmt.Sprintf("acceptable.recovery.lag %d", acceptable), thumb: al})
	finishAxes(p, xMax)
	legendOutside(p, legend)
	return p, nil
}

// ModelVsMeasured charts per scale-out record the measured
// warmup-assignment time beside the warmup model's prediction from the
// inputs measured in the same run, with the prediction's error above.
// (nil, nil) for results without a prediction.
func ModelVsMeasured(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var names, errs []string
	var measured, predicted plotter.Values
	for _, rs := range r.Restores {
		so := rs.ScaleOut
		if so == nil || so.Prediction == nil {
			continue
		}
		names = append(names, fmt.Sprintf("%s #%d", rs.Case, rs.Repeat))
		measured = append(measured, so.WarmupAssignmentSeconds)
		predicted = append(predicted, so.Prediction.TotalSeconds)
		errs = append(errs, fmt.Sprintf("%+.0f%%", so.PredictionErrorPct))
	}
	if len(names) == 0 {
		return nil, nil
	}
	p := newPlot("Warmup-assignment time: measured vs model (prediction)")
	p.Y.Label.Text = "seconds until balanced, every task running"
	mb, pb, _, err := pairedBars(p, caseTicks(p, names), measured, predicted, palette[0], palette[1])
	if err != nil {
		return nil, err
	}
	tops := make(plotter.Values, len(names))
	for i := range names {
		tops[i] = max(measured[i], predicted[i])
	}
	if err := addBarLabels(p, tops, errs, 0); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(names))
	legendOutside(p, []legendEntry{{name: "measured", thumb: mb}, {name: "model (prediction)", thumb: pb}, {name: "above: model error"}})
	return p, nil
}

// RollingDowntime charts per rolling-restart record (a configuration:
// state persistent or ephemeral, standbys, static membership) the downtime
// of each restart as a bar (the longest any task processed nothing), one
// colour per restart in order, with the total above. (nil, nil) for
// results without a rolling restart.
func RollingDowntime(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var names []string
	var recs []*runs.RollingRecord
	restarts := 0
	for _, rs := range r.Restores {
		if ro := rs.Rolling; ro != nil && len(ro.Restarts) > 0 {
			names = append(names, fmt.Sprintf("%s #%d", rs.Case, rs.Repeat))
			recs = append(recs, ro)
			restarts = max(restarts, len(ro.Restarts))
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	p := newPlot("Rolling restart: downtime per restart")
	p.Y.Label.Text = "downtime (s, longest a task processed nothing)"
	var legend []legendEntry
	var all []plot.Plotter
	var bars []*plotter.BarChart
	for k := 0; k < restarts; k++ {
		vals := make(plotter.Values, len(recs))
		for i, ro := range recs {
			if k < len(ro.Restarts) {
				vals[i] = ro.Restarts[k].DowntimeSeconds
			}
		}
		b, err := plotter.NewBarChart(vals, vg.Points(1)) // widened below, once the legend has its column
		if err != nil {
			return nil, err
		}
		b.Color, b.LineStyle.Width = palette[k%len(palette)], 0
		bars = append(bars, b)
		all = append(all, b)
		legend = append(legend, legendEntry{name: fmt.Sprintf("restart %d", k+1), thumb: b})
	}
	p.Add(hGrid())
	p.Add(all...)
	tops := make(plotter.Values, len(recs))
	totals := make([]string, len(recs))
	for i, ro := range recs {
		for _, rst := range ro.Restarts {
			tops[i] = max(tops[i], rst.DowntimeSeconds)
		}
		totals[i] = strings.TrimSpace(formatSeconds(ro.DowntimeSeconds) + " s")
	}
	if err := addBarLabels(p, tops, totals, 0); err != nil {
		return nil, err
	}
	legendOutside(p, append(legend, legendEntry{name: "above: total of the restarts"}))
	slot := caseTicksIn(p, names, besideLegend(p))
	w := min(max(slot*0.8/vg.Length(restarts), vg.Points(2)), vg.Points(24))
	for k, b := range bars {
		b.Width, b.Offset = w, w*vg.Length(float64(k)-float64(restarts-1)/2)
	}
	finishCaseAxes(p, len(names))
	return p, nil
}
