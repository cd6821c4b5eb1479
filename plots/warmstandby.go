package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 110, Name: "warm-vs-cold", File: WarmVsColdFile, Scenario: config.ScenarioWarm, Draw: WarmVsCold, Report: true,
		Title:   "Warm restart vs cold restore",
		Caption: "Restore time against the records written while the instance was down (log scale), median over repeats; dashed: the cold restore of the same state"})
	registerChart(Chart{Order: 120, Name: "standby-lag", File: StandbyLagFile, Scenario: config.ScenarioStandby, Draw: StandbyLag, Report: true,
		Title: "Standby lag against the write rate",
		Caption: "Per case the p99 of each rate step's lag against the rate written, median over verified repeats; circles " +
			"kept up, crosses fell behind; a lag of 0 is drawn at 1; dashed: acceptable.recovery.lag"})
	registerChart(Chart{Order: 130, Name: "standby-catch-up", File: StandbyCatchUpFile, Scenario: config.ScenarioStandby, Draw: StandbyCatchUp, Report: true,
		Title:   "Standby catch-up after a pause",
		Caption: "Time from the standby's restart until its lag was within acceptable.recovery.lag, against how long it was stopped"})
}

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
	w := warmMedians(r)
	if len(w.cases) == 0 {
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
	for ci, c := range w.cases {
		col := palette[ci%len(palette)]
		xys := w.steps[c]
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
		if ts := w.cold[c]; len(ts) > 0 {
			coldLine := horizontal(runs.Median(ts), 1, maxX*10)
			coldLine.Color, coldLine.Dashes = col, []vg.Length{vg.Points(6), vg.Points(3)}
			p.Add(coldLine)
			legend = append(legend, legendEntry{name: c, suffix: fmt.Sprintf(" cold %.2f s", runs.Median(ts)), thumb: coldLine})
		}
		if ts := w.fallback[c]; len(ts) > 0 {
			e, err := addFallback(p, col, runs.Median(w.fallbackChanged[c]), runs.Median(ts))
			if err != nil {
				return nil, err
			}
			e.name = c
			legend = append(legend, e)
		}
	}
	p.X.Min, p.X.Max = 0.8, maxX*10
	p.Y.Min = 0
	p.Y.Max *= 1.1
	legendOutside(p, legend)
	return p, nil
}

// warmSteps are a run's verified warm-restart records by case, in run
// order: each case's warm steps as (changes, median time) sorted by
// changes, and its cold and fallback times.
type warmSteps struct {
	cases                           []string
	steps                           map[string]plotter.XYs
	cold, fallback, fallbackChanged map[string][]float64
}

// warmMedians gathers the warm-restart records WarmVsCold draws.
func warmMedians(r *runs.Results) warmSteps {
	type key struct {
		c       string
		changed int64
	}
	times := map[key][]float64{}
	var keys []key
	w := warmSteps{steps: map[string]plotter.XYs{}, cold: map[string][]float64{}, fallback: map[string][]float64{}, fallbackChanged: map[string][]float64{}}
	seen := map[string]bool{}
	for _, rec := range r.Restores {
		secs, restored := rec.RestoreSeconds()
		if rec.Warm == nil || !rec.Counts() || !restored || (rec.Params.Warm != nil && rec.Params.Warm.Kills()) {
			// A restart after a SIGKILL restores what the crash lost, not
			// the backlog this chart draws: the report's crash table has it.
			continue
		}
		c := caseOf(rec)
		if !seen[c] {
			seen[c] = true
			w.cases = append(w.cases, c)
		}
		switch rec.StepKind() {
		case runs.StepCold:
			w.cold[c] = append(w.cold[c], secs)
		case runs.StepFallback:
			w.fallback[c] = append(w.fallback[c], secs)
			w.fallbackChanged[c] = append(w.fallbackChanged[c], float64(rec.Warm.Changed))
		default:
			k := key{c, rec.Warm.Changed}
			if _, ok := times[k]; !ok {
				keys = append(keys, k)
			}
			times[k] = append(times[k], secs)
		}
	}
	for _, k := range keys {
		w.steps[k.c] = append(w.steps[k.c], plotter.XY{X: float64(max(k.changed, warmMinChangedShown)), Y: runs.Median(times[k])})
	}
	for _, c := range w.cases {
		xys := w.steps[c]
		sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
	}
	return w
}

// addFallback draws a restart whose offsets fell below the log start as a
// cross at the changes it restarted after, like the warm steps: its time
// is a restore from the log start, whatever they were.
func addFallback(p *plot.Plot, col color.Color, changed, seconds float64) (legendEntry, error) {
	fb, err := plotter.NewScatter(plotter.XYs{{X: max(changed, warmMinChangedShown), Y: seconds}})
	if err != nil {
		return legendEntry{}, err
	}
	fb.Color, fb.Shape = col, draw.CrossGlyph{}
	fb.Radius = vg.Points(5)
	p.Add(fb)
	return legendEntry{suffix: fmt.Sprintf(" below log start (%.0f changes)", changed), thumb: fb}, nil
}

// horizontal is a line at y from x0 to x1.
func horizontal(y, x0, x1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Width = vg.Points(1.2)
	return l
}

// StandbyLag charts, per case (an engine's standby), the lag each rate step
// left against the rate written: the p99 of the step's lag samples, median
// over its verified repeats, a filled circle where the standby kept up and
// a cross where it fell behind; dashed, acceptable.recovery.lag. Both axes
// are logarithmic: a standby that keeps up lags by 10^0-10^3 records, one
// that falls behind by 10^5 and more, and the steps span rates 10^3-10^5.
// A lag of 0 is drawn at 1. Steps without a verdict (too few samples) are
// left out, as the summary leaves them out of the highest sustained rate.
func StandbyLag(r *runs.Results) (*plot.Plot, error) {
	groups, order, acceptable := standbyRateSteps(r)
	if len(order) == 0 {
		return nil, ErrNotApplicable
	}
	p := newPlot("Standby lag against the write rate")
	p.X.Label.Text = "written (records/s, log scale)"
	p.Y.Label.Text = "lag p99 (records, log scale)"
	// X on gonum's log scale; Y as log10 of the lag on a linear axis with
	// ticks at the powers of ten: gonum centres a vertical axis' label at
	// the arithmetic middle of its range, which on a log scale lies near the
	// top and pushes the data area down by half the label's length.
	p.X.Scale = plot.LogScale{}
	p.Add(plotter.NewGrid())
	var legend []legendEntry
	minX, maxX, maxY := 0.0, 0.0, 10.0
	for i, c := range order {
		steps := groups[c]
		xys := make(plotter.XYs, len(steps))
		for j, st := range steps {
			xys[j] = plotter.XY{X: st.rate, Y: math.Log10(max(st.lagP99, 1))}
			if minX == 0 || st.rate < minX {
				minX = st.rate
			}
			maxX, maxY = max(maxX, st.rate), max(maxY, st.lagP99)
		}
		col := palette[i%len(palette)]
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = col, vg.Points(1.5)
		p.Add(line)
		pts, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		pts.GlyphStyleFunc = func(j int) draw.GlyphStyle {
			g := draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
			if !steps[j].keptUp {
				g.Shape, g.Radius = draw.CrossGlyph{}, vg.Points(5)
			}
			return g
		}
		p.Add(pts)
		legend = append(legend, legendEntry{name: c, suffix: keptUpSuffix(steps), thumb: line})
	}
	legend = append(legend, legendEntry{name: "● kept up, × fell behind"})
	if acceptable > 0 {
		acc := horizontal(math.Log10(float64(acceptable)), minX/1.5, maxX*1.5)
		acc.Color, acc.Dashes = palette[len(palette)-1], []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(acc)
		legend = append(legend, legendEntry{name: "acceptable.recovery.lag", thumb: acc})
		maxY = max(maxY, float64(acceptable))
	}
	p.X.Min, p.X.Max = minX/1.5, maxX*1.5
	p.Y.Min, p.Y.Max = 0, math.Ceil(math.Log10(maxY*1.5))
	var rates []float64
	for _, c := range order {
		for _, st := range groups[c] {
			// Labelled at two significant digits: 19988.8 reads as 20000.
			mag := math.Pow(10, math.Floor(math.Log10(st.rate))-1)
			rates = append(rates, math.Round(st.rate/mag)*mag)
		}
	}
	p.X.Tick.Marker = batchTicks{used: rates} // the rates labelled when few powers of ten are in range
	p.Y.Tick.Marker = powerTicks{}
	legendOutside(p, legend)
	return p, nil
}

// keptUpSuffix names the highest rate a case's standby kept up with and
// the lowest it fell behind at: ": kept up to 59917 rec/s, behind from 69217".
func keptUpSuffix(steps []rateStep) string {
	kept, behind := 0.0, 0.0
	for _, st := range steps {
		if st.keptUp {
			kept = max(kept, st.rate)
		} else if behind == 0 || st.rate < behind {
			behind = st.rate
		}
	}
	suffix := ""
	if kept > 0 {
		suffix += fmt.Sprintf(": kept up to %.0f rec/s", kept)
	}
	if behind > 0 {
		suffix += fmt.Sprintf(", behind from %.0f", behind)
	}
	return suffix
}

// powerTicks marks an axis of log10 values: labelled ticks at the integers,
// written as the power of ten they stand for ("1", "100", "10 k", "1 M"),
// unlabelled ones at log10 of 2…9 times them.
type powerTicks struct{}

func (powerTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(lo); e <= hi; e++ {
		ticks = append(ticks, plot.Tick{Value: e, Label: powerLabel(e)})
		for m := 2.0; m <= 9; m++ {
			if v := e + math.Log10(m); v <= hi {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// powerLabel writes 10^e compactly: "1", "1000", "10 k", "1 M".
func powerLabel(e float64) string {
	switch v := math.Pow(10, e); {
	case e >= 9:
		return fmt.Sprintf("%.0f G", v/1e9)
	case e >= 6:
		return fmt.Sprintf("%.0f M", v/1e6)
	case e >= 4:
		return fmt.Sprintf("%.0f k", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// rateStep is one rate step of a case: the median written rate and lag p99
// over its verified, judged repeats, and whether most of them kept up.
type rateStep struct {
	rate, lagP99 float64
	keptUp       bool
}

// standbyRateSteps groups the verified rate steps with a verdict by case
// and target rate, in order of rate; order is the cases in run order, and
// acceptable the acceptable.recovery.lag they ran with.
func standbyRateSteps(r *runs.Results) (groups map[string][]rateStep, order []string, acceptable int64) {
	type key struct {
		c      string
		target float64
	}
	type acc struct {
		rates, lags []float64
		kept, all   int
	}
	by := map[key]*acc{}
	var keys []key
	for _, rec := range r.Restores {
		sb := rec.Standby
		if sb == nil || !rec.StepKind().IsRate() || !rec.Counts() || !sb.Judged() {
			continue
		}
		k := key{caseOf(rec), sb.TargetRate}
		a := by[k]
		if a == nil {
			a = &acc{}
			by[k] = a
			keys = append(keys, k)
		}
		a.rates, a.lags = append(a.rates, sb.WrittenRate), append(a.lags, float64(sb.LagP99))
		a.all++
		if sb.KeptUp() {
			a.kept++
		}
		acceptable = max(acceptable, sb.AcceptableRecoveryLag)
	}
	groups = map[string][]rateStep{}
	for _, k := range keys {
		a := by[k]
		if _, ok := groups[k.c]; !ok {
			order = append(order, k.c)
		}
		groups[k.c] = append(groups[k.c], rateStep{rate: runs.Median(a.rates), lagP99: runs.Median(a.lags), keptUp: 2*a.kept > a.all})
	}
	for _, c := range order {
		sort.SliceStable(groups[c], func(i, j int) bool { return groups[c][i].rate < groups[c][j].rate })
	}
	return groups, order, acceptable
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
