package plots

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 60, Name: "scaleout-timeline", File: ScaleOutTimelineFile, Scenario: config.ScenarioScaleOut, Draw: ScaleOutTimeline, Report: true,
		Title:   "Scale-out: each task's roles over time",
		Caption: "Per task where it was active, restoring or warming up, with gaps in processing; dashed: probing rebalances"})
	registerChart(Chart{Order: 90, Name: "rolling-timeline", File: RollingTimelineFile, Scenario: config.ScenarioRolling, Draw: RollingTimeline, Report: true,
		Title: "Rolling restart: each task's roles over time",
		Caption: "Per task where it was active, restoring, warming up or a standby, with gaps in processing, against " +
			"seconds from the first stop; dashed: each restart's stop; solid: the last restart's ready"})
}

// File base names of the task timelines.
const (
	ScaleOutTimelineFile = "scaleout-timeline"
	RollingTimelineFile  = "rolling-timeline"
)

// maxTimelineRows bounds a timeline chart's rows (tasks of the first
// records); more would not be readable.
const maxTimelineRows = 40

// timelineLead is how far before the origin a timeline chart starts (s).
const timelineLead = 5

// roleColors are the timeline's colours by task role (an active task is
// coloured by its instance, from instanceColors); gapColor marks pauses in
// processing.
var (
	roleColors = map[string]color.Color{
		runs.RoleRestoring: palette[1], runs.RoleWarmup: palette[4], runs.RoleStandby: palette[9],
	}
	instanceColors = []color.Color{palette[0], palette[6], palette[3], palette[8], palette[7], palette[5]}
	gapColor       = palette[2]
)

// timelineRecord is one measurement's timelines and marks, whichever
// scenario made it.
type timelineRecord struct {
	name     string
	tasks    []runs.TaskTimeline
	marks    []float64 // probing rebalances or restarts
	end      float64   // balanced, or the last ready
	markName string
}

// ScaleOutTimeline charts, for the scale-out records (up to
// maxTimelineRows tasks, first records first), one row per task: where it
// was active or restoring (upper band, the instance named at each change),
// its warmups and standbys (lower band), and its gaps in processing (red,
// on top), against seconds from the new instances' start; dashed lines
// mark probing rebalances, a solid one the balanced end. (nil, nil) for
// results without a scale-out timeline.
func ScaleOutTimeline(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var recs []timelineRecord
	for _, rs := range r.Restores {
		if so := rs.ScaleOut; so != nil && len(so.TaskTimelines) > 0 {
			recs = append(recs, timelineRecord{name: fmt.Sprintf("%s #%d", rs.Case, rs.Repeat), tasks: so.TaskTimelines,
				marks: so.ProbingTimes, end: so.WarmupAssignmentSeconds, markName: "probing rebalance"})
		}
	}
	return timelineChart("Scale-out: each task's roles over time", "seconds from the new instances' start", recs)
}

// RollingTimeline is ScaleOutTimeline for rolling restarts: seconds from
// the first stop, dashed lines at each restart's stop. (nil, nil) for
// results without one.
func RollingTimeline(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var recs []timelineRecord
	for _, rs := range r.Restores {
		if ro := rs.Rolling; ro != nil && len(ro.TaskTimelines) > 0 {
			tr := timelineRecord{name: fmt.Sprintf("%s #%d", rs.Case, rs.Repeat), tasks: ro.TaskTimelines, markName: "restart (stop)"}
			for _, rst := range ro.Restarts {
				tr.marks = append(tr.marks, rst.Stop)
				tr.end = max(tr.end, rst.Ready)
			}
			recs = append(recs, tr)
		}
	}
	return timelineChart("Rolling restart: each task's roles over time", "seconds from the first stop", recs)
}

// timelineChart draws the records' task rows.
func timelineChart(title, xLabel string, recs []timelineRecord) (*plot.Plot, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	p := newPlot(title)
	p.X.Label.Text = xLabel
	g := &gantt{}
	var names []string
	xMax := 1.0
	for _, rec := range recs {
		if len(names)+len(rec.tasks) > maxTimelineRows && len(names) > 0 {
			break
		}
		for _, t := range rec.tasks {
			row := float64(len(names))
			names = append(names, rowName(rec, t, len(recs) > 1))
			xMax = max(xMax, g.addTask(row, t))
		}
		g.addMarks(rec, float64(len(names)-len(rec.tasks)), float64(len(names)))
	}
	p.Add(plotter.NewGrid(), g)
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(max(5, min(9, 300/float64(len(names)))))
	labels, err := g.labels()
	if err != nil {
		return nil, err
	}
	if labels != nil {
		p.Add(labels)
	}
	p.X.Min, p.X.Max = -timelineLead, xMax
	p.Y.Min, p.Y.Max = -0.6, float64(len(names))-0.4
	p.X.Tick.Marker = niceTicks{n: 8}
	legendOutside(p, timelineLegend(g, recs[0].markName))
	return p, nil
}

func rowName(rec timelineRecord, t runs.TaskTimeline, withCase bool) string {
	if withCase {
		return rec.name + " " + t.Task
	}
	return t.Task
}

// timelineLegend names the colours and lines.
func timelineLegend(g *gantt, markName string) []legendEntry {
	var out []legendEntry
	for _, id := range slices.Sorted(slices.Values(g.instances)) {
		out = append(out, legendEntry{name: "active on " + id, thumb: swatch{g.instanceColor(id)}})
	}
	return append(out, []legendEntry{
		{name: "restoring", thumb: swatch{roleColors[runs.RoleRestoring]}},
		{name: "warmup (lower band)", thumb: swatch{roleColors[runs.RoleWarmup]}},
		{name: "standby (lower band)", thumb: swatch{roleColors[runs.RoleStandby]}},
		{name: "not processing (top)", thumb: swatch{gapColor}},
		{name: markName, thumb: lineThumb{color.Gray{Y: 0x60}, true}},
		{name: "balanced / ready", thumb: lineThumb{color.Black, false}},
	}...)
}

// swatch is a legend thumbnail: a filled box.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// lineThumb is a legend thumbnail: a line, dashed or solid.
type lineThumb struct {
	c      color.Color
	dashed bool
}

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	sty := draw.LineStyle{Color: l.c, Width: vg.Points(1.2)}
	if l.dashed {
		sty.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
}

// gantt is a plotter of filled boxes, vertical lines and instance labels.
type gantt struct {
	// instances are the instance ids in the order first seen: their
	// index picks the colour of their active bars.
	instances []string
	boxes     []box
	lines     []vline
	labelX    plotter.XYs
	labelT    []string
}

type box struct {
	x0, x1, y0, y1 float64
	c              color.Color
}

type vline struct {
	x, y0, y1 float64
	dashed    bool
}

// addTask adds one task's row at y and returns the latest time in it.
func (g *gantt) addTask(y float64, t runs.TaskTimeline) float64 {
	end := 0.0
	last := ""
	for _, s := range t.Segments {
		if s.End < -timelineLead {
			continue
		}
		x0 := max(s.Start, -timelineLead)
		c := roleColors[s.Role]
		if s.Role == runs.RoleActive {
			c = g.instanceColor(s.Instance)
		}
		if s.Role == runs.RoleActive || s.Role == runs.RoleRestoring {
			g.boxes = append(g.boxes, box{x0, s.End, y - 0.05, y + 0.3, c})
			if s.Instance != last {
				g.labelX = append(g.labelX, plotter.XY{X: x0, Y: y + 0.02})
				g.labelT = append(g.labelT, s.Instance)
				last = s.Instance
			}
		} else {
			g.boxes = append(g.boxes, box{x0, s.End, y - 0.38, y - 0.12, c})
		}
		end = max(end, s.End)
	}
	for _, gp := range t.Gaps {
		g.boxes = append(g.boxes, box{gp.Start, gp.End, y + 0.3, y + 0.42, gapColor})
	}
	return end
}

// instanceColor is the colour of instance id's active bars.
func (g *gantt) instanceColor(id string) color.Color {
	i := slices.Index(g.instances, id)
	if i < 0 {
		i = len(g.instances)
		g.instances = append(g.instances, id)
	}
	return instanceColors[i%len(instanceColors)]
}

// addMarks adds a record's marks over its rows [y0, y1).
func (g *gantt) addMarks(rec timelineRecord, y0, y1 float64) {
	for _, m := range rec.marks {
		g.lines = append(g.lines, vline{m, y0 - 0.5, y1 - 0.5, true})
	}
	if rec.end > 0 {
		g.lines = append(g.lines, vline{rec.end, y0 - 0.5, y1 - 0.5, false})
	}
}

// Plot draws the boxes, then the lines.
func (g *gantt) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, b := range g.boxes {
		pts := []vg.Point{{X: trX(b.x0), Y: trY(b.y0)}, {X: trX(b.x1), Y: trY(b.y0)}, {X: trX(b.x1), Y: trY(b.y1)}, {X: trX(b.x0), Y: trY(b.y1)}}
		c.FillPolygon(b.c, c.ClipPolygonXY(pts))
	}
	for _, l := range g.lines {
		sty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		if l.dashed {
			sty.Color, sty.Dashes = color.Gray{Y: 0x60}, []vg.Length{vg.Points(4), vg.Points(3)}
		}
		c.StrokeLines(sty, c.ClipLinesXY([]vg.Point{{X: trX(l.x), Y: trY(l.y0)}, {X: trX(l.x), Y: trY(l.y1)}})...)
	}
}

// DataRange covers the boxes and lines.
func (g *gantt) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = -timelineLead, -0.5
	for _, b := range g.boxes {
		xmax, ymax = max(xmax, b.x1), max(ymax, b.y1)
	}
	for _, l := range g.lines {
		xmax = max(xmax, l.x)
	}
	return xmin, xmax, ymin, ymax
}

// labels are the instance names at each change of owner, in small type.
func (g *gantt) labels() (*plotter.Labels, error) {
	if len(g.labelT) == 0 {
		return nil, nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: g.labelX, Labels: g.labelT})
	if err != nil {
		return nil, fmt.Errorf("plots: timeline labels: %w", err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(6)
		l.TextStyle[i].Color = color.White
	}
	l.Offset = vg.Point{X: vg.Points(1)}
	return l, nil
}
