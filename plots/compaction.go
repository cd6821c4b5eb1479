package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/runs"
)

// CompactionFile is the file base name WriteAll gives CompactionAmplification.
const CompactionFile = "compaction-amplification"

// CompactionAmplification charts per compaction case the restore
// amplification (records the restore read per live key, after the log
// cleaner ran) as a bar at the median over repeats, beside the bound the
// case's cleaner settings allow, with the median above: 1 is a fully
// compacted changelog. (nil, nil) for results without compaction records.
func CompactionAmplification(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var names []string
	var measured, bound plotter.Values
	index := map[string]int{}
	amps := map[string][]float64{}
	for _, rs := range r.Restores {
		cr := rs.Compaction
		if cr == nil || !rs.Counts() || cr.LiveKeys == 0 {
			continue
		}
		c := caseOf(rs)
		if _, ok := index[c]; !ok {
			index[c] = len(names)
			names = append(names, c)
			bound = append(bound, cr.Bound)
		}
		amps[c] = append(amps[c], cr.Amplification)
	}
	if len(names) == 0 {
		return nil, nil
	}
	labels := make([]string, len(names))
	for i, c := range names {
		m := runs.Median(amps[c])
		measured = append(measured, m)
		labels[i] = fmt.Sprintf("×%.2f", m)
	}
	p := newPlot("Restore amplification per cleaner setting (median over repeats)")
	p.Y.Label.Text = "records read at restore per live key"
	slot := caseTicks(p, names)
	w := min(max(slot*0.3, vg.Points(3)), vg.Points(30))
	mb, err := plotter.NewBarChart(measured, w)
	if err != nil {
		return nil, err
	}
	bb, err := plotter.NewBarChart(bound, w)
	if err != nil {
		return nil, err
	}
	mb.Color, bb.Color = palette[0], palette[9]
	mb.LineStyle.Width, bb.LineStyle.Width = 0, 0
	mb.Offset, bb.Offset = -w/2, w/2
	p.Add(hGrid(), mb, bb)
	if err := addBarLabels(p, measured, labels, -w/2); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(names))
	legendOutside(p, []legendEntry{{name: "measured", thumb: mb}, {name: "bound the settings allow", thumb: bb}})
	return p, nil
}

// addBarLabels writes labels above bars at values, shifted by offset.
func addBarLabels(p *plot.Plot, values plotter.Values, texts []string, offset vg.Length) error {
	xys := make(plotter.XYs, len(values))
	for i, v := range values {
		xys[i] = plotter.XY{X: float64(i), Y: v}
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(8)
		labels.TextStyle[i].XAlign = draw.XCenter
	}
	labels.Offset = vg.Point{X: offset, Y: vg.Points(3)}
	p.Add(labels)
	return nil
}
