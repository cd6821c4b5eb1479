package plots

import (
	"errors"
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/runs"
)

// ErrNotApplicable is returned by a scenario's chart for results without
// that scenario's records; WriteAll skips those charts.
var ErrNotApplicable = errors.New("plots: results have no records of this chart's scenario")

// File base names of the scenario charts.
const (
	WarmVsColdFile      = "warm-vs-cold"
	StandbyLagFile      = "standby-lag"
	StandbyCatchUpFile  = "standby-catch-up"
	warmMinChangedShown = 1 // where 0 changed records sit on the log axis
)

// WarmVsCold charts warm-restart restore time against the records written
// while the instance was down (log scale; 0 drawn at 1), one line per case,
// with each case's cold baseline as a dashed line of the same colour.
// Medians over verified repeats; a restart whose offsets fell below the log
// start is a cross at the changes it restarted after.
func WarmVsCold(r *runs.Results) (*plot.Plot, error) {
	type key struct {
		c       string
		changed int64
	}
	times := map[key][]float64{}
	cold := map[string][]float64{}
	fallback := map[string][]float64{}
	fallbackChanged := map[string][]float64{}
	var cases []string
	seen := map[string]bool{}
	for _, rec := range r.Restores {
		if rec.Warm == nil || !rec.Counts() {
			continue
		}
		c := caseOf(rec)
		if !seen[c] {
			seen[c] = true
			cases = append(cases, c)
		}
		switch rec.StepKind() {
		case runs.StepCold:
			cold[c] = append(cold[c], rec.DurationSeconds)
		case runs.StepFallback:
			fallback[c] = append(fallback[c], rec.DurationSeconds)
			fallbackChanged[c] = append(fallbackChanged[c], float64(rec.Warm.Changed))
		default:
			k := key{c, rec.Warm.Changed}
			times[k] = append(times[k], rec.DurationSeconds)
		}
	}
	if len(cases) == 0 {
		return nil, ErrNotApplicable
	}
	p := newPlot("Warm restart vs cold restore (median over repeats)")
	p.X.Label.Text = "records written while the instance was down (log scale; 0 at 1)"
	p.Y.Label.Text = "restore time (s)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	var legend []legendEntry
	maxX := 10.0
	for ci, c := range cases {
		col := palette[ci%len(palette)]
		var xys plotter.XYs
		for k, ts := range times {
			if k.c == c {
				xys = append(xys, plotter.XY{X: float64(max(k.changed, warmMinChangedShown)), Y: runs.Median(ts)})
			}
		}
		sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
		for _, xy := range xys {
			maxX = max(maxX, xy.X)
		}
		if len(xys) > 0 {
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color = col, col
			line.Width = vg.Points(1.5)
			p.Add(line, points)
			legend = append(legend, legendEntry{name: c, suffix: " warm", thumb: line})
		}
		if ts := cold[c]; len(ts) > 0 {
			coldLine := horizontal(runs.Median(ts), 1, maxX*10)
			coldLine.Color, coldLine.Dashes = col, []vg.Length{vg.Points(6), vg.Points(3)}
			p.Add(coldLine)
			legend = append(legend, legendEntry{name: c, suffix: fmt.Sprintf(" cold %.2f s", runs.Median(ts)), thumb: coldLine})
		}
		if ts := fallback[c]; len(ts) > 0 {
			// At the changes it restarted after, like the warm steps: its
			// time is a restore from the log start, whatever they were.
			changed := runs.Median(fallbackChanged[c])
			fb, err := plotter.NewScatter(plotter.XYs{{X: max(changed, warmMinChangedShown), Y: runs.Median(ts)}})
			if err != nil {
				return nil, err
			}
			fb.Color, fb.Shape = col, draw.CrossGlyph{}
			fb.Radius = vg.Points(5)
			p.Add(fb)
			legend = append(legend, legendEntry{name: c, suffix: fmt.Sprintf(" below log start (%.0f changes)", changed), thumb: fb})
		}
	}
	p.X.Min, p.X.Max = 0.8, maxX*10
	p.Y.Min = 0
	p.Y.Max *= 1.1
	legendOutside(p, legend)
	return p, nil
}

// horizontal is a line at y from x0 to x1.
func horizontal(y, x0, x1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Width = vg.Points(1.2)
	return l
}

// StandbyLag charts a standby's lag over each rate step (the first repeat
// of each case), one line per step, labelled with its write rate and
// whether the standby sustained it.
func StandbyLag(r *runs.Results) (*plot.Plot, error) {
	var steps []runs.Restore
	for _, rec := range r.Restores {
		if rec.Standby != nil && rec.StepKind().IsRate() && rec.Repeat == 1 && len(rec.Standby.Lag) > 0 {
			steps = append(steps, rec)
		}
	}
	if len(steps) == 0 {
		return nil, ErrNotApplicable
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Standby.TargetRate < steps[j].Standby.TargetRate })
	p := newPlot("Standby lag while the changelog is written")
	p.X.Label.Text = "time into the step (s)"
	p.Y.Label.Text = "lag (records not yet applied)"
	p.Add(plotter.NewGrid())
	var legend []legendEntry
	maxT := 0.0
	// Each case (an engine's standby) draws its own dash pattern, so two
	// cases' lines stay apart when the palette's colours come round again.
	dashOf := map[string][]vg.Length{}
	caseDashes := [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}
	for i, rec := range steps {
		sb := rec.Standby
		if _, ok := dashOf[caseOf(rec)]; !ok {
			dashOf[caseOf(rec)] = caseDashes[len(dashOf)%len(caseDashes)]
		}
		xys, tMax := lagXYs(sb.Lag)
		maxT = max(maxT, tMax)
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color = palette[i%len(palette)]
		line.Width = vg.Points(1.5)
		line.Dashes = dashOf[caseOf(rec)]
		p.Add(line)
		kept := "kept up"
		switch {
		case !sb.Judged():
			kept = fmt.Sprintf("no verdict (%d lag samples)", sb.WriteSamples())
		case !sb.Sustained:
			kept = "fell behind"
		}
		written := ""
		if sb.ProducerLimited {
			written = fmt.Sprintf(", written %.0f", sb.WrittenRate)
		}
		legend = append(legend, legendEntry{name: caseOf(rec), suffix: fmt.Sprintf(" %.0f rec/s%s: %s", sb.TargetRate, written, kept), thumb: line})
	}
	if len(steps) > 0 {
		acc := horizontal(float64(steps[0].Standby.AcceptableRecoveryLag), 0, maxT)
		acc.Color, acc.Dashes = palette[len(palette)-1], []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(acc)
		legend = append(legend, legendEntry{name: "acceptable.recovery.lag", thumb: acc})
	}
	finishAxes(p, maxT)
	legendOutside(p, legend)
	return p, nil
}

// StandbyCatchUp charts, per case, the time a paused standby took after its
// restart to get within acceptable.recovery.lag, against how long it was
// paused (median over repeats).
func StandbyCatchUp(r *runs.Results) (*plot.Plot, error) {
	type key struct {
		c     string
		pause float64
	}
	times := map[key][]float64{}
	var cases []string
	seen := map[string]bool{}
	for _, rec := range r.Restores {
		if rec.Standby == nil || rec.StepKind() != runs.StepPause || !rec.Counts() || rec.Standby.CatchUpSeconds <= 0 {
			continue
		}
		c := caseOf(rec)
		if !seen[c] {
			seen[c] = true
			cases = append(cases, c)
		}
		k := key{c, rec.Standby.PauseSeconds}
		times[k] = append(times[k], rec.Standby.CatchUpSeconds)
	}
	if len(cases) == 0 {
		return nil, ErrNotApplicable
	}
	p := newPlot("Standby catch-up after a pause (median over repeats)")
	p.X.Label.Text = "pause (s): standby stopped while writes went on"
	p.Y.Label.Text = "catch-up to acceptable.recovery.lag (s)"
	p.Add(plotter.NewGrid())
	var legend []legendEntry
	maxX := 0.0
	for ci, c := range cases {
		var xys plotter.XYs
		for k, ts := range times {
			if k.c == c {
				xys = append(xys, plotter.XY{X: k.pause, Y: runs.Median(ts)})
				maxX = max(maxX, k.pause)
			}
		}
		sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		col := palette[ci%len(palette)]
		line.Color, points.Color = col, col
		line.Width = vg.Points(1.5)
		p.Add(line, points)
		legend = append(legend, legendEntry{name: c, thumb: line})
	}
	finishAxes(p, maxX*1.1)
	legendOutside(p, legend)
	return p, nil
}

// caseOf names the case a scenario step's record belongs to, at its sweep
// size ("warm@256MiB"): one line or bar per case.
func caseOf(rec runs.Restore) string { return rec.CaseAtSize() }
