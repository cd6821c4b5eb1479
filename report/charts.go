package report

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/runs"
)

var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}

// svgOf renders p as SVG at the size package plots draws its charts.
func svgOf(p *plot.Plot) ([]byte, error) {
	w, err := p.WriterTo(plots.Width, plots.Height, "svg")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sizeUnit picks MB or GB for an axis whose largest value is max bytes.
func sizeUnit(max float64) (scale float64, name string) {
	if max >= 5e9 {
		return 1e9, "GB"
	}
	return 1e6, "MB"
}

func newChart(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Add(plotter.NewGrid())
	return p
}

// fitChart plots every cold setup's restores (time to ready against size on
// axis) as points and each fit as a line over its measured range.
func fitChart(a *capacity.Analysis, axis capacity.Axis) (*plot.Plot, error) {
	fits := map[*capacity.Setup]*capacity.Fit{}
	for _, f := range a.FitsOn(axis) {
		fits[f.Setup] = f
	}
	maxX := 0.0
	for _, o := range a.Obs {
		maxX = max(maxX, axis.Of(o))
	}
	scale, unit := sizeUnit(maxX)
	p := newChart("Time to ready against "+axis.Label(), fmt.Sprintf("%s (%s)", axis.Label(), unit), "time to ready (s)")
	setups := coldSetups(a)
	named, engines := map[string]int{}, map[string]map[config.Engine]bool{}
	for _, s := range setups {
		n := caseNames(s)
		named[n]++
		if engines[n] == nil {
			engines[n] = map[config.Engine]bool{}
		}
		engines[n][runs.EngineOf(s.Params)] = true
	}
	for i, s := range setups {
		c := plots.PaletteColor(i)
		xys := make(plotter.XYs, len(s.Obs))
		for j, o := range s.Obs {
			xys[j] = plotter.XY{X: axis.Of(o) / scale, Y: o.Seconds}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: shapes[i%len(shapes)]}
		p.Add(sc)
		name := caseNames(s)
		if len(engines[name]) > 1 { // one case on both engines (a restore of the user's topic)
			name += ", " + string(runs.EngineOf(s.Params))
		}
		if named[caseNames(s)] > 1 { // setups of one case on changelogs of other shapes (a shape sweep)
			name += ", " + recordSizeLabel(s)
		}
		f := fits[s]
		if f == nil {
			p.Legend.Add(name+" (no fit)", sc)
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
		p.Legend.Add(fmt.Sprintf("%s  R² %.3f", name, f.R2), sc, line)
	}
	p.X.Min, p.Y.Min = 0, 0
	// Room past the largest size, so its points are not cut by the edge.
	p.X.Max *= 1.04
	p.Y.Max *= 1.08
	setTicks(p)
	return p, nil
}

// throughputChart plots each cold setup's median restore MB/s per
// changelog size with min-max bars; nil when no setup has two sizes.
func throughputChart(a *capacity.Analysis) (*plot.Plot, error) {
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
	p := newChart("Restore throughput per configuration and size", fmt.Sprintf("changelog size (%s)", unit), "restore throughput (MB/s, median, min–max)")
	p.Legend.Left = false
	p.Legend.Top = false
	p.Legend.XOffs = -vg.Points(8)
	p.Legend.YOffs = vg.Points(8)
	for i, s := range setups {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, g := range sizeGroups(s) {
			mbs := make([]float64, len(g))
			for j, o := range g {
				mbs[j] = o.Restore.MBPerSec
			}
			m := runs.Median(mbs)
			pts = append(pts, plotter.XY{X: g[0].ChangelogBytes / scale, Y: m})
			errs = append(errs, struct{ Low, High float64 }{m - runs.Min(mbs), runs.Max(mbs) - m})
		}
		c := plots.PaletteColor(i)
		line, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = c, vg.Points(1.3)
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: shapes[i%len(shapes)]}
		eb, err := plots.NewYErrorBars(pts, errs)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = c
		p.Add(line, sc, eb)
		p.Legend.Add(caseNames(s), line, sc)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max *= 1.04 // the largest size's bars inside the edge
	p.Y.Max *= 1.1
	setTicks(p)
	return p, nil
}

// rtoChart plots the largest per-task changelog that restores within a
// given time at the chosen rate: solid where measured sizes back it,
// dashed where it extrapolates, with the RTO targets marked.
func rtoChart(a *capacity.Analysis) (*plot.Plot, error) {
	r := a.Rate
	if r == nil {
		return nil, nil
	}
	end := 0.0
	for _, rto := range a.Options.RTOs {
		end = max(end, rto.Minutes()*1.08)
	}
	top := r.BytesWithin(end * 60).Value
	scale, unit := sizeUnit(top)
	p := newChart("Largest changelog per task that restores cold within a time",
		"recovery-time objective (min)", fmt.Sprintf("changelog per task (%s)", unit))
	var measured, beyond plotter.XYs
	const steps = 240
	for i := 0; i <= steps; i++ {
		t := end * float64(i) / steps
		e := r.BytesWithin(t * 60)
		pt := plotter.XY{X: t, Y: e.Value / scale}
		if e.Value <= r.Hi*1.01 {
			measured = append(measured, pt)
		} else {
			if len(beyond) == 0 && len(measured) > 0 {
				beyond = append(beyond, measured[len(measured)-1])
			}
			beyond = append(beyond, pt)
		}
	}
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
		l.Color, l.Width = plots.PaletteColor(0), vg.Points(1.6)
		if seg.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(seg.name, l)
	}
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
	sc.GlyphStyle = draw.GlyphStyle{Color: plots.PaletteColor(2), Radius: vg.Points(3.2), Shape: draw.CircleGlyph{}}
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
	p.Legend.Add("RTO targets", sc)
	p.X.Min, p.Y.Min, p.X.Max = 0, 0, end
	p.Y.Max *= 1.1
	setTicks(p)
	return p, nil
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

// caseNames are a setup's case names, "a/b" when several.
func caseNames(s *capacity.Setup) string {
	out := ""
	for i, c := range s.Cases {
		if i > 0 {
			out += "/"
		}
		out += c
	}
	return out
}

// niceTicks marks about n labelled ticks at plots.NiceStep, labelled
// without trailing zeros (package plots' own also marks minor ticks).
type niceTicks struct{ n int }

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, prec := plots.NiceStep(lo, hi, t.n)
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}

// setTicks gives both axes nice ticks.
func setTicks(p *plot.Plot) {
	p.X.Tick.Marker = niceTicks{n: 8}
	p.Y.Tick.Marker = niceTicks{n: 6}
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
