package plots

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts of the planner's analysis across runs, in the registry
// (registerChart with Analysis): the report draws each once, named Name.
func init() {
	for i, axis := range []capacity.Axis{capacity.AxisChangelog, capacity.AxisLive} {
		registerChart(Chart{Order: 200 + i, Name: "fit-" + string(axis), File: "fit-" + string(axis), Report: true,
			Title:    "Time to ready against " + axis.Label(),
			Caption:  "Points: verified restores; lines: least-squares fits over the measured range.",
			Analysis: func(a *capacity.Analysis) (*plot.Plot, error) { return TimeAgainstSize(a, axis) }})
	}
	registerChart(Chart{Order: 210, Name: "throughput", File: "throughput-per-size", Analysis: ThroughputPerSize, Report: true,
		Title: "Restore throughput per configuration and size", Caption: "Median restore-phase MB/s per changelog size, min–max over verified repeats."})
	registerChart(Chart{Order: 220, Name: "rto", File: "rto", Analysis: SizeWithinRTO, Report: true,
		Title: "Largest changelog per task within a time", Caption: "Solid: within the measured sizes; dashed: extrapolated from the fit."})
}

// sizeUnit picks MB or GB for an axis whose largest value is max bytes.
func sizeUnit(max float64) (scale float64, name string) {
	if max >= 5e9 {
		return 1e9, "GB"
	}
	return 1e6, "MB"
}

// analysisPlot is a chart of the analysis in this package's style: title,
// axis labels and the grid drawn first, behind the data.
func analysisPlot(title, x, y string) *plot.Plot {
	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Add(plotter.NewGrid())
	return p
}

// analysisAxes starts both axes at 0, leaves room of xRoom and yRoom
// (factors) past the largest values so no point is cut by the edge, and
// sets this package's ticks.
func analysisAxes(p *plot.Plot, xRoom, yRoom float64) {
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max *= xRoom
	p.Y.Max *= yRoom
	p.X.Tick.Marker = niceTicks{n: 8}
	p.Y.Tick.Marker = niceTicks{n: 6}
}

// TimeAgainstSize plots every cold setup's restores (time to ready against
// size on axis) as points and each fit as a line over its measured range;
// a setup without a fit is named "(no fit)" in the legend.
func TimeAgainstSize(a *capacity.Analysis, axis capacity.Axis) (*plot.Plot, error) {
	fits := map[*capacity.Setup]*capacity.Fit{}
	for _, f := range a.FitsOn(axis) {
		fits[f.Setup] = f
	}
	maxX := 0.0
	for _, o := range a.Obs {
		maxX = max(maxX, axis.Of(o))
	}
	scale, unit := sizeUnit(maxX)
	p := analysisPlot("Time to ready against "+axis.Label(), fmt.Sprintf("%s (%s)", axis.Label(), unit), "time to ready (s)")
	setups := coldSetups(a)
	var legend []legendEntry
	for i, s := range setups {
		c := PaletteColor(i)
		xys := make(plotter.XYs, len(s.Obs))
		for j, o := range s.Obs {
			xys[j] = plotter.XY{X: axis.Of(o) / scale, Y: o.Seconds}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: glyphs[i%len(glyphs)]}
		p.Add(sc)
		name := setupLabel(s, setups)
		f := fits[s]
		if f == nil {
			legend = append(legend, legendEntry{name: name, suffix: " (no fit)", thumb: sc})
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{
			{X: f.Min() / scale, Y: f.Predict(f.Min()).Value},
			{X: f.Max() / scale, Y: f.Predict(f.Max()).Value},
		})
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = c, vg.Points(1.3)
		p.Add(line)
		legend = append(legend, legendEntry{name: name, suffix: fmt.Sprintf("  R² %.3f", f.R2), thumb: thumbnails{sc, line}})
	}
	analysisAxes(p, 1.04, 1.08)
	legendOutside(p, legend)
	return p, nil
}

// setupLabel names a cold setup in a legend by its cases, with its engine
// when the same cases ran on both (a restore of the user's topic) and its
// record size when they ran on changelogs of other shapes (a shape sweep).
func setupLabel(s *capacity.Setup, setups []*capacity.Setup) string {
	name := strings.Join(s.Cases, "/")
	engines, same := map[config.Engine]bool{}, 0
	for _, o := range setups {
		if strings.Join(o.Cases, "/") == name {
			engines[runs.EngineOf(o.Params)] = true
			same++
		}
	}
	if len(engines) > 1 {
		name += ", " + string(runs.EngineOf(s.Params))
	}
	if same > 1 {
		name += ", " + recordSizeLabel(s)
	}
	return name
}

// ThroughputPerSize plots each cold setup's median restore MB/s per
// changelog size with min–max bars; nil when no setup has two sizes.
func ThroughputPerSize(a *capacity.Analysis) (*plot.Plot, error) {
	setups := coldSetups(a)
	multi := false
	for _, s := range setups {
		multi = multi || len(sizeGroups(s)) > 1
	}
	if !multi {
		return nil, nil
	}
	maxX := 0.0
	for _, o := range a.Obs {
		maxX = max(maxX, o.ChangelogBytes)
	}
	scale, unit := sizeUnit(maxX)
	p := analysisPlot("Restore throughput per configuration and size", fmt.Sprintf("changelog size (%s)", unit),
		"restore throughput (MB/s, median, min–max)")
	var legend []legendEntry
	for i, s := range setups {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, g := range sizeGroups(s) {
			var mbs []float64
			for _, o := range g {
				if p := o.Restore.Phase; p != nil {
					mbs = append(mbs, p.MBPerSec)
				}
			}
			if len(mbs) == 0 {
				continue
			}
			m := runs.Median(mbs)
			pts = append(pts, plotter.XY{X: g[0].ChangelogBytes / scale, Y: m})
			errs = append(errs, struct{ Low, High float64 }{m - runs.Min(mbs), runs.Max(mbs) - m})
		}
		c := PaletteColor(i)
		line, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = c, vg.Points(1.3)
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: glyphs[i%len(glyphs)]}
		eb, err := NewYErrorBars(pts, errs)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = c
		p.Add(line, sc, eb)
		legend = append(legend, legendEntry{name: strings.Join(s.Cases, "/"), thumb: thumbnails{line, sc}})
	}
	analysisAxes(p, 1.04, 1.1) // the largest size's bars inside the edge
	legendOutside(p, legend)
	return p, nil
}

// SizeWithinRTO plots the largest per-task changelog that restores cold
// within a given time at the analysis' rate: solid where measured sizes
// back it, dashed where it extrapolates, with the recovery-time table's
// objectives marked and labelled; nil without a rate.
func SizeWithinRTO(a *capacity.Analysis) (*plot.Plot, error) {
	r := a.Rate
	if r == nil {
		return nil, nil
	}
	end := 0.0
	for _, rto := range a.Options.RTOs {
		end = max(end, rto.Minutes()*1.08)
	}
	scale, unit := sizeUnit(r.BytesWithin(end * 60).Value)
	p := analysisPlot("Largest changelog per task that restores cold within a time",
		"recovery-time objective (min)", fmt.Sprintf("changelog per task (%s)", unit))
	var legend []legendEntry
	measured, beyond := rtoCurve(r, end, scale)
	for _, seg := range []struct {
		xys    plotter.XYs
		dashed bool
		name   string
	}{{measured, false, "within measured sizes"}, {beyond, true, "extrapolated"}} {
		if len(seg.xys) < 2 {
			continue
		}
		l, err := plotter.NewLine(seg.xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = PaletteColor(0), vg.Points(1.6)
		if seg.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		legend = append(legend, legendEntry{name: seg.name, thumb: l})
	}
	sc, err := addRTOMarks(p, a, scale)
	if err != nil {
		return nil, err
	}
	legend = append(legend, legendEntry{name: "RTO targets", thumb: sc})
	analysisAxes(p, 1, 1.1)
	p.X.Max = end
	legendOutside(p, legend)
	return p, nil
}

// rtoCurve samples r's largest size within t minutes from 0 to end, split
// where it leaves the measured sizes (the extrapolated part starts at the
// measured part's last point, so the two join).
func rtoCurve(r *capacity.Rate, end, scale float64) (measured, beyond plotter.XYs) {
	const steps = 240
	for i := 0; i <= steps; i++ {
		t := end * float64(i) / steps
		e := r.BytesWithin(t * 60)
		pt := plotter.XY{X: t, Y: e.Value / scale}
		if e.Value <= r.Hi*1.01 {
			measured = append(measured, pt)
			continue
		}
		if len(beyond) == 0 && len(measured) > 0 {
			beyond = append(beyond, measured[len(measured)-1])
		}
		beyond = append(beyond, pt)
	}
	return measured, beyond
}

// addRTOMarks marks the cold-restore row's cells of the recovery-time
// table, each labelled with its size, and returns the marks for the legend.
func addRTOMarks(p *plot.Plot, a *capacity.Analysis, scale float64) (*plotter.Scatter, error) {
	var marks plotter.XYs
	var texts []string
	for _, c := range a.RTO.Row(capacity.RowColdRestore).Cells {
		marks = append(marks, plotter.XY{X: c.RTO.Minutes(), Y: c.Task.Value / scale})
		texts = append(texts, capacity.FormatBytes(c.Task.Value))
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: PaletteColor(2), Radius: vg.Points(3.2), Shape: draw.CircleGlyph{}}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: marks, Labels: texts})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign = draw.XRight
		labels.TextStyle[i].Font.Size = vg.Points(9)
	}
	labels.Offset = vg.Point{X: -vg.Points(6), Y: vg.Points(4)}
	p.Add(sc, labels)
	return sc, nil
}

// coldSetups are the setups of cold restores, in first-seen order.
func coldSetups(a *capacity.Analysis) []*capacity.Setup {
	var out []*capacity.Setup
	for _, s := range a.Setups {
		if s.Params.Scenario == config.ScenarioCold {
			out = append(out, s)
		}
	}
	return out
}

// sizeGroups groups a setup's restores by changelog size, ascending.
func sizeGroups(s *capacity.Setup) [][]capacity.Obs {
	return capacity.BySize(s.Obs, capacity.AxisChangelog)
}

// recordSizeLabel names a setup by its changelogs' key+value bytes a
// record: "16.0 B a record".
func recordSizeLabel(s *capacity.Setup) string {
	r := s.Obs[0].Restore
	if r.Records == 0 {
		return "no records"
	}
	return capacity.FormatBytes(float64(r.Bytes)/float64(r.Records)) + " a record"
}
