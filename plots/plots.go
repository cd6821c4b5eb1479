package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 10, Name: "restore-throughput", File: RestoreThroughputFile, Draw: RestoreThroughput})
	registerChart(Chart{Order: 20, Name: "time-per-case", File: RestoreTimePerCaseFile, Draw: RestoreTimePerCase, Report: true,
		Title: "Restore time per case", Caption: "Median restore phase per case (package plots), min–max over verified repeats."})
	registerChart(Chart{Order: 50, Name: "fill-throughput", File: FillThroughputFile, Draw: FillThroughput})
}

// Width and Height are the size WriteAll draws every chart at. PNGs are
// rendered at gonum's default 96 dpi, i.e. 768×432 pixels.
const (
	Width  = 8 * vg.Inch
	Height = 4.5 * vg.Inch
)

// ErrNoRestores is returned by the restore charts for results without any
// restore; WriteAll skips those charts.
var ErrNoRestores = errors.New("plots: results have no restores")

var errNilResults = errors.New("plots: nil results")

// File base names (without extension) WriteAll uses.
const (
	RestoreThroughputFile  = "restore-throughput"
	RestoreTimePerCaseFile = "restore-time-per-case"
	FillThroughputFile     = "fill-throughput"
)

// formats are the image formats WriteAll writes, as file extensions.
var formats = []string{"png", "svg"}

// palette is Tableau 10: distinct on white and for most colour-blind readers.
var palette = []color.Color{
	rgb(0x4e, 0x79, 0xa7), rgb(0xf2, 0x8e, 0x2b), rgb(0xe1, 0x57, 0x59),
	rgb(0x76, 0xb7, 0xb2), rgb(0x59, 0xa1, 0x4f), rgb(0xed, 0xc9, 0x48),
	rgb(0xb0, 0x7a, 0xa1), rgb(0xff, 0x9d, 0xa7), rgb(0x9c, 0x75, 0x5f),
	rgb(0xba, 0xb0, 0xac),
}

// PaletteColor is colour i of the palette (Tableau 10), from the start
// again after the tenth: for charts of other packages that should look like
// these.
func PaletteColor(i int) color.Color { return palette[i%len(palette)] }

// dashes tell apart the repeats of one case (which share a colour).
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(1), vg.Points(3)},
	{vg.Points(12), vg.Points(4)},
}

// lineStyles hands out the styles of a chart's lines that come in groups
// (a case's repeats, a strategy's lines): the lines of a group share a
// palette colour, the groups numbered in first-seen order, and are told
// apart by their variant, their number within the group.
type lineStyles struct {
	colour  map[string]int // group → palette index
	variant map[string]int // group → lines drawn
}

// next is the palette index and the variant of the next line of group.
func (s *lineStyles) next(group string) (ci, vi int) {
	if s.colour == nil {
		s.colour, s.variant = map[string]int{}, map[string]int{}
	}
	ci, ok := s.colour[group]
	if !ok {
		ci = len(s.colour)
		s.colour[group] = ci
	}
	vi = s.variant[group]
	s.variant[group]++
	return ci, vi
}

// variantDashes is the dash pattern of variant vi of palette index ci. The
// cycle is shifted for groups that reuse a colour, so that no two lines of
// different groups look the same for the first rounds.
func variantDashes(ci, vi int) []vg.Length {
	return dashes[(vi+ci/len(palette))%len(dashes)]
}

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }

// RestoreThroughput charts each restore's throughput in MB/s (10^6 bytes)
// against seconds since that restore started, one line per cold restore
// (other scenarios' records are drawn by their own charts), labelled
// "case #repeat" (" (UNVERIFIED)" appended for a restore that was not
// verified or failed). Each point of a restore's series is drawn as a step
// covering its interval, (T[i-1], T[i]], with the first interval from 0.
// Repeats of one case share a colour and differ in dash pattern. Results
// without restores give ErrNoRestores.
func RestoreThroughput(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	restores := r.ColdRestores()
	if len(restores) == 0 {
		return nil, ErrNoRestores
	}
	title := "Restore throughput over time"
	of := map[string]int{}
	if len(restores) > maxThroughputLines {
		restores, of = medianRepeats(restores)
		title += " (median repeat of each case)"
	}
	p := newPlot(title)
	p.Add(plotter.NewGrid()) // first, so it is drawn behind the lines
	p.X.Label.Text = "time since restore start (s)"
	p.Y.Label.Text = "throughput (MB/s, 1 MB = 10⁶ bytes)"

	var styles lineStyles // a case's repeats share a colour
	maxDur := 0.0
	var legend []legendEntry
	for _, rs := range restores {
		ci, ri := styles.next(rs.Case)
		if secs, ok := rs.RestoreSeconds(); ok {
			maxDur = max(maxDur, secs)
		}

		e := legendEntry{name: rs.Case, suffix: fmt.Sprintf(" #%d", rs.Repeat)}
		if n := of[rs.Case]; n > 1 {
			e.suffix += fmt.Sprintf(" of %d", n)
		}
		if !rs.Counts() {
			e.suffix += " (UNVERIFIED)"
		}
		label := e.name + e.suffix
		xys := rateXYs(rs.Series)
		if len(xys) == 0 {
			e.suffix += " (no series)"
			legend = append(legend, e)
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plots: restore %s: %w", label, err)
		}
		l.StepStyle = plotter.PreStep
		l.Color = PaletteColor(ci)
		l.Dashes = variantDashes(ci, ri)
		l.Width = vg.Points(1.5)
		p.Add(l)
		e.thumb = l
		legend = append(legend, e)
	}
	finishAxes(p, maxDur)
	legendOutside(p, legend)
	return p, nil
}

// maxThroughputLines is the most restores RestoreThroughput draws one line
// each for; past it, each case's median repeat stands for the case.
const maxThroughputLines = 12

// medianRepeats returns, per case in run order, the verified repeat of
// median restore time (the lower of two middle ones), or the first repeat
// when none verified, and how many repeats each case had.
func medianRepeats(restores []runs.Restore) ([]runs.Restore, map[string]int) {
	groups := runs.GroupByCase(restores)
	out := make([]runs.Restore, 0, len(groups))
	of := map[string]int{}
	for _, g := range groups {
		all := g.Restores
		of[g.Case] = len(all)
		var ok []runs.Restore
		for _, rs := range all {
			if rs.Counts() && rs.Phase != nil {
				ok = append(ok, rs)
			}
		}
		if len(ok) == 0 {
			out = append(out, all[0])
			continue
		}
		sort.SliceStable(ok, func(i, j int) bool { return ok[i].Phase.Seconds < ok[j].Phase.Seconds })
		out = append(out, ok[(len(ok)-1)/2])
	}
	return out, of
}

// RestoreTimePerCase charts each case's median restore duration in seconds
// over its verified, error-free repeats (runs.Summarize), with a min–max
// error bar when more than one repeat counts, and the median and count above
// each bar. A case without such a repeat is a zero bar whose label ends in
// " (unverified)". Results without restores give ErrNoRestores.
func RestoreTimePerCase(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	cold := r.ColdRestores()
	if len(cold) == 0 {
		return nil, ErrNoRestores
	}
	sums := runs.Summarize(cold)
	p := newPlot("Restore time per case (median, min–max)")
	p.Y.Label.Text = "restore time (s)"

	values := make(plotter.Values, len(sums))
	names := make([]string, len(sums))
	var errXYs plotter.XYs
	var errYs plotter.YErrors
	var lblXYs plotter.XYs
	var lbls []string
	for i, s := range sums {
		names[i] = caseLabel(s.Case, s.Verified)
		if s.Verified == 0 {
			lblXYs = append(lblXYs, plotter.XY{X: float64(i), Y: 0})
			lbls = append(lbls, noVerifiedLabel)
			continue
		}
		values[i] = s.MedianSeconds
		if s.Verified > 1 {
			errXYs = append(errXYs, plotter.XY{X: float64(i), Y: s.MedianSeconds})
			errYs = append(errYs, struct{ Low, High float64 }{s.MedianSeconds - s.MinSeconds, s.MaxSeconds - s.MedianSeconds})
		}
		lblXYs = append(lblXYs, plotter.XY{X: float64(i), Y: s.MaxSeconds})
		lbls = append(lbls, fmt.Sprintf("%s s\nn=%d", formatSeconds(s.MedianSeconds), s.Verified))
	}

	slot := caseTicks(p, names)
	w := barWidth(slot)
	bars, err := plotter.NewBarChart(values, w)
	if err != nil {
		return nil, fmt.Errorf("plots: bars: %w", err)
	}
	bars.Color = palette[0]
	bars.LineStyle.Width = 0
	p.Add(hGrid(), bars)

	if len(errXYs) > 0 {
		eb, err := NewYErrorBars(errXYs, errYs)
		if err != nil {
			return nil, fmt.Errorf("plots: error bars: %w", err)
		}
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = min(w*0.5, vg.Points(12))
		p.Add(eb)
	}
	if err := addMedianLabels(p, lblXYs, lbls, slot*0.95); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(sums))
	return p, nil
}

// noVerifiedLabel stands at the foot of a per-case chart's zero bar, for a
// case without a verified, error-free repeat.
const noVerifiedLabel = "no verified\nrepeat"

// caseLabel is a case's name on a per-case chart's X axis: name, with
// " (unverified)" appended when none of its repeats counts (verified 0), as
// its zero bar would otherwise read as an instant restore.
func caseLabel(name string, verified int) string {
	if verified == 0 {
		return name + " (unverified)"
	}
	return name
}

// barWidth is the width of a per-case chart's single bar (or stack) in a
// case slot of width slot: 60% of it, but at least 3 pt so that it shows
// and at most 60 pt so that few cases do not make slabs.
func barWidth(slot vg.Length) vg.Length {
	return min(max(slot*0.6, vg.Points(3)), vg.Points(60))
}

// addMedianLabels writes RestoreTimePerCase's labels ("median s\nn=count")
// at xys, small and centred above their bars. A label wider than fit (a
// narrow case slot) keeps only what fits: the median without its unit, or
// nothing. No labels add nothing.
func addMedianLabels(p *plot.Plot, xys plotter.XYs, texts []string, fit vg.Length) error {
	if len(xys) == 0 {
		return nil
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return fmt.Errorf("plots: labels: %w", err)
	}
	for i := range labels.TextStyle {
		sty := &labels.TextStyle[i]
		sty.Font.Size = vg.Points(8)
		sty.XAlign = draw.XCenter
		if labelWidth(labels.Labels[i], *sty) > fit {
			labels.Labels[i], _, _ = strings.Cut(labels.Labels[i], "\n")
			labels.Labels[i] = strings.TrimSuffix(labels.Labels[i], " s")
			if labelWidth(labels.Labels[i], *sty) > fit {
				labels.Labels[i] = ""
			}
		}
	}
	labels.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(labels)
	return nil
}

// FillThroughput charts each fill's produce throughput in MB/s (10^6 bytes
// of key+value) against seconds since that fill started, one line per fill
// (every size of a sweep), with each fill's overall mean in its legend and,
// for a single fill, as a dashed line. It returns (nil, nil) when the
// results carry no fill series.
func FillThroughput(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	fills := r.Fills
	if len(fills) == 0 && r.Fill != nil {
		fills = []*runs.Fill{r.Fill}
	}
	var drawn []*runs.Fill
	for _, f := range fills {
		if f != nil && len(rateXYs(f.Series)) > 0 {
			drawn = append(drawn, f)
		}
	}
	if len(drawn) == 0 {
		return nil, nil
	}
	title := "Fill throughput over time"
	if len(drawn) == 1 && drawn[0].Reused {
		title += fmt.Sprintf(" (reused fill of %s)", drawn[0].FilledAt.UTC().Format("2006-01-02 15:04 MST"))
	}
	p := newPlot(title)
	p.Add(plotter.NewGrid()) // first, so it is drawn behind the lines
	p.X.Label.Text = "time since fill start (s)"
	p.Y.Label.Text = "throughput (MB/s, 1 MB = 10⁶ bytes)"
	var legend []legendEntry
	longest := 0.0
	for i, f := range drawn {
		xys := rateXYs(f.Series)
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plots: fill: %w", err)
		}
		l.StepStyle = plotter.PreStep
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		end := max(xys[len(xys)-1].X, f.DurationSeconds)
		longest = max(longest, end)
		mean := fillMean(f, xys[len(xys)-1].X)
		name := "fill"
		if f.Topic != "" {
			name += " " + f.Topic
		}
		suffix := ""
		if len(drawn) > 1 && mean > 0 {
			suffix = fmt.Sprintf(" (mean %.1f MB/s)", mean)
		}
		legend = append(legend, legendEntry{name: name, suffix: suffix, thumb: l})
		if len(drawn) == 1 && mean > 0 {
			ml, err := plotter.NewLine(plotter.XYs{{X: 0, Y: mean}, {X: end, Y: mean}})
			if err != nil {
				return nil, fmt.Errorf("plots: fill mean: %w", err)
			}
			ml.Color = color.Gray{Y: 0x40}
			ml.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			ml.Width = vg.Points(1)
			p.Add(ml)
			legend = append(legend, legendEntry{name: fmt.Sprintf("mean %.1f MB/s", mean), thumb: ml})
		}
	}
	finishAxes(p, longest)
	legendOutside(p, legend)
	return p, nil
}

// fillMean is the fill's recorded MB/s, else its series' bytes over the
// series' last time.
func fillMean(f *runs.Fill, end float64) float64 {
	if f.MBPerSec > 0 {
		return f.MBPerSec
	}
	var b int64
	for _, pt := range f.Series {
		b += pt.Bytes
	}
	return runs.MBPerSec(b, end)
}

// WriteAll draws every chart of the registry (Charts) the results have
// data for into dir (created if missing) as <File>.png and <File>.svg, each
// Width×Height and each written atomically, and returns the paths written,
// in registry order. The restore
// charts are skipped, not an error, for results without restores,
// RestoreTimeByBatch also for results that do not sweep the batch size, and
// the fill chart for results without a fill series. On error it returns the
// paths written before the error.
func WriteAll(r *runs.Results, dir string) ([]string, error) {
	if r == nil {
		return nil, errNilResults
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var written []string
	for _, c := range Charts() {
		if c.Draw == nil {
			continue // a chart of the analysis across runs: the report's
		}
		p, err := c.Draw(r)
		if errors.Is(err, ErrNoRestores) || errors.Is(err, ErrNotASweep) || errors.Is(err, ErrNotApplicable) {
			continue
		}
		if err != nil {
			return written, fmt.Errorf("plots: %s: %w", c.File, err)
		}
		if p == nil {
			continue
		}
		for _, ext := range formats {
			path := filepath.Join(dir, c.File+"."+ext)
			if err := save(p, ext, path); err != nil {
				return written, fmt.Errorf("plots: %s: %w", c.File, err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

// save renders p in format ext and writes it atomically to path.
func save(p *plot.Plot, ext, path string) error {
	w, err := p.WriterTo(Width, Height, ext)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes())
}

// rateXYs turns a series of per-interval deltas into MB/s points for a
// PreStep line: a leading point at 0 carrying the first interval's rate, then
// one point at the end of each interval. Intervals of no length are dropped.
func rateXYs(series []measure.Point) plotter.XYs {
	var xys plotter.XYs
	prev := 0.0
	for _, pt := range series {
		dt := pt.T - prev
		if dt <= 0 || math.IsNaN(dt) || math.IsInf(pt.T, 0) {
			continue
		}
		v := runs.MBPerSec(pt.Bytes, dt)
		if len(xys) == 0 {
			xys = append(xys, plotter.XY{X: prev, Y: v})
		}
		xys = append(xys, plotter.XY{X: pt.T, Y: v})
		prev = pt.T
	}
	return xys
}

// Tick label layout for RestoreTimePerCase: about dataWidth of the chart is
// data area; rotated labels are set smaller and shortened to maxRotated.
const (
	dataWidth   = 500
	rotatedFont = 8
	maxRotated  = 150
)

// caseTicks sets the case names as the X tick labels, each centred under its
// slot: as they are if they fit, else wrapped after separators (up to three
// lines), else rotated by 30°, smaller, and shortened in the middle when
// still long. It returns the estimated slot width, for the bars.
func caseTicks(p *plot.Plot, names []string) (slot vg.Length) {
	return caseTicksIn(p, names, vg.Points(dataWidth))
}

// besideLegend is the data area's width once the legend column that
// legendOutside placed has taken its share.
func besideLegend(p *plot.Plot) vg.Length {
	lr := p.Legend.Rectangle(draw.Canvas{})
	return vg.Points(dataWidth) - (lr.Max.X - lr.Min.X) - (-p.Legend.XOffs + vg.Points(10))
}

// caseTicksIn is caseTicks for a data area about width wide (narrower than
// dataWidth when a legend column shares the chart).
func caseTicksIn(p *plot.Plot, names []string, width vg.Length) (slot vg.Length) {
	slot = width / vg.Length(len(names))
	fit := slot * 0.95
	wrapped := make([]string, len(names))
	fits := true
	for i, n := range names {
		wrapped[i] = wrapLabel(n, fit, p.X.Tick.Label)
		fits = fits && labelWidth(wrapped[i], p.X.Tick.Label) <= fit && strings.Count(wrapped[i], "\n") < 3
	}
	if fits {
		p.NominalX(wrapped...)
		return slot
	}
	sty := &p.X.Tick.Label
	sty.Font.Size = vg.Points(rotatedFont)
	short := make([]string, len(names))
	for i, n := range names {
		short[i] = shorten(n, "", vg.Points(maxRotated), *sty)
	}
	p.NominalX(short...)
	sty.Rotation = math.Pi / 6
	sty.XAlign = draw.XRight
	sty.YAlign = draw.YCenter
	// gonum leaves rotated tick labels out of the left padding; make room.
	p.Add(tickLabelSpace(short))
	// The first label reaches left of its slot; the data area narrows by that.
	ext := sty.Rectangle(short[0]).Size().X
	narrowed := width - max(0, ext-slot/2)
	return max(narrowed, width/2) / vg.Length(len(names))
}

// withoutSharedEnds drops from the names of entries (two or more) the
// start and end they all share, cut at a separator ('-', '_', '.', '/',
// ' '), each of at least minSharedEnd runes, and marked with "…", so
// names too wide for the legend keep what tells them apart ("fill
// rb-stores-timestamped-window-balances-changelog" and "fill
// rb-stores-window-balances-changelog" become "…timestamped-window…" and
// "…window…") before shorten cuts their middles. Entries are copied, not
// changed.
func withoutSharedEnds(entries []legendEntry) []legendEntry {
	if len(entries) < 2 {
		return entries
	}
	names := make([][]rune, len(entries))
	for i, e := range entries {
		names[i] = []rune(e.name)
	}
	// shared is how many runes every name shares read by at (its i-th
	// rune from the start, or from the end), up to and with the last
	// separator among them.
	shared := func(at func(n []rune, i int) rune) int {
		cut := 0
		for i := 0; ; i++ {
			for _, n := range names {
				if i >= len(n) || at(n, i) != at(names[0], i) {
					return cut
				}
			}
			if strings.ContainsRune("-_./ ", at(names[0], i)) {
				cut = i + 1
			}
		}
	}
	head := shared(func(n []rune, i int) rune { return n[i] })
	tail := shared(func(n []rune, i int) rune { return n[len(n)-1-i] })
	// An end shorter than minSharedEnd tells the reader more than the
	// room it takes (" #1", "fill "): it stays.
	if head < minSharedEnd {
		head = 0
	}
	if tail < minSharedEnd {
		tail = 0
	}
	out := slices.Clone(entries)
	for i, n := range names {
		if head+tail >= len(n) {
			return entries // a name would be left empty: they differ too little to cut
		}
		mid := string(n[head : len(n)-tail])
		if head > 0 {
			mid = "…" + mid
		}
		if tail > 0 {
			mid += "…"
		}
		out[i].name = mid
	}
	return out
}

// minSharedEnd is the shortest shared start or end withoutSharedEnds
// drops, in runes with its separator.
const minSharedEnd = 6

// shorten drops runes from the middle of name, marking the cut with "…",
// until name+suffix is at most w wide in sty (or name is down to 8 runes).
func shorten(name, suffix string, w vg.Length, sty text.Style) string {
	out := name
	for r := []rune(name); len(r) > 8 && sty.Width(out+suffix) > w; {
		r = append(r[:len(r)/2-1], r[len(r)/2:]...)
		out = string(r[:len(r)/2]) + "…" + string(r[len(r)/2:])
	}
	return out
}

// wrapLabel breaks s after '-', '_', '.', '/' or ' ' so that each line is at
// most w wide in sty where possible.
func wrapLabel(s string, w vg.Length, sty text.Style) string {
	if sty.Width(s) <= w {
		return s
	}
	var parts []string // each ends in its separator
	start := 0
	for i, c := range s {
		if strings.ContainsRune("-_./ ", c) {
			parts = append(parts, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	var lines []string
	cur := ""
	for _, part := range parts {
		if cur != "" && sty.Width(strings.TrimRight(cur+part, " ")) > w {
			lines = append(lines, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += part
	}
	lines = append(lines, strings.TrimRight(cur, " "))
	return strings.Join(lines, "\n")
}

// labelWidth is the width of the widest line of s in sty.
func labelWidth(s string, sty text.Style) vg.Length {
	var w vg.Length
	for _, l := range strings.Split(s, "\n") {
		w = max(w, sty.Width(l))
	}
	return w
}

func formatSeconds(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f", s)
	}
	return fmt.Sprintf("%.3g", s)
}

func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	return p
}

// finishAxes starts both axes at 0, extends X to at least minX (e.g. the
// restore's duration), gives Y a little headroom and sets the tick marks.
func finishAxes(p *plot.Plot, minX float64) {
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max = max(p.X.Max, minX)
	if p.X.Max <= 0 {
		p.X.Max = 1
	}
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.05
	p.X.Tick.Marker = niceTicks{n: 8}
	p.Y.Tick.Marker = niceTicks{n: 5}
}

func hGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	return g
}

// legendEntry is one legend line: name (shortened in the middle if the
// legend would be too wide) followed by suffix (never shortened), and the
// thumbnail of what it labels (nil for none).
type legendEntry struct {
	name, suffix string
	thumb        plot.Thumbnailer
}

// Legend limits: the legend column takes at most maxLegendWidth of the
// chart; its font shrinks from 10 pt down to minLegendFont to fit entries
// in the height and text in the width, after which names are shortened.
const (
	maxLegendWidth = 0.36 * Width
	minLegendFont  = 7
)

// legendOutside adds entries as the legend, to the right of the data area,
// which is narrowed to make room, so the legend never covers a line.
func legendOutside(p *plot.Plot, entries []legendEntry) {
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(4)
	p.Legend.ThumbnailWidth = vg.Points(24)
	if len(entries) == 0 {
		return
	}
	// About 270 pt of height is free below the title; an entry takes ~1.2 em.
	size := min(10, max(minLegendFont, 270/(float64(len(entries))*1.2)))
	textMax := maxLegendWidth - p.Legend.ThumbnailWidth
	sty := &p.Legend.TextStyle
	widest := func() vg.Length {
		var w vg.Length
		for _, e := range entries {
			w = max(w, sty.Rectangle(" "+e.name+e.suffix).Max.X)
		}
		return w
	}
	sty.Font.Size = font.Length(size)
	for widest() > textMax && size > minLegendFont {
		size = max(minLegendFont, size-0.5)
		sty.Font.Size = font.Length(size)
	}
	if widest() > textMax {
		entries = withoutSharedEnds(entries)
	}
	for _, e := range entries {
		name := shorten(e.name, e.suffix, textMax-sty.Width(" "), *sty)
		if e.thumb != nil {
			p.Legend.Add(name+e.suffix, e.thumb)
		} else {
			p.Legend.Add(name + e.suffix)
		}
	}
	p.Add(legendSpace{})
}

// legendSpace is an invisible plotter whose glyph box, at the right edge of
// the data area, is as wide as the legend: gonum pads the data area so that
// glyph boxes fit, which leaves the legend a column of its own.
type legendSpace struct{}

func (legendSpace) Plot(draw.Canvas, *plot.Plot) {}

func (legendSpace) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := p.Legend.Rectangle(draw.Canvas{})
	w := r.Max.X - r.Min.X
	if w <= 0 {
		return nil
	}
	w += -p.Legend.XOffs + vg.Points(10)
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: w}}}}
}

// tickLabelSpace is an invisible plotter with a glyph box for each nominal X
// tick label, so the data area is padded on the left for rotated labels too
// (gonum counts the X axis' own glyph boxes for right padding only).
type tickLabelSpace []string

func (tickLabelSpace) Plot(draw.Canvas, *plot.Plot) {}

func (names tickLabelSpace) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for i, name := range names {
		r := p.X.Tick.Label.Rectangle(name)
		r.Min.Y, r.Max.Y = 0, 0 // only horizontal room: the axis sizes itself vertically
		boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(float64(i)), Rectangle: r})
	}
	return boxes
}

// niceTicks marks about n labelled ticks at 1, 2 or 5 × 10^k steps, labelled
// without trailing zeros, with an unlabelled minor tick between each.
type niceTicks struct{ n int }

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) || t.n < 1 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, prec := NiceStep(lo, hi, t.n)
	var ticks []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+step*1e-9; i++ {
		v := i / 2 * step
		if math.Mod(i, 2) != 0 {
			ticks = append(ticks, plot.Tick{Value: v})
			continue
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}

// lagXYs is a lag series as points (time, records behind), with the
// largest of its times (0 when none is positive).
func lagXYs(pts []runs.LagPoint) (plotter.XYs, float64) {
	xys := make(plotter.XYs, len(pts))
	tMax := 0.0
	for i, pt := range pts {
		xys[i] = plotter.XY{X: pt.T, Y: float64(pt.Lag)}
		tMax = max(tMax, pt.T)
	}
	return xys, tMax
}

// NewYErrorBars draws errs (low and high extents) as vertical error bars
// at xys.
func NewYErrorBars(xys plotter.XYs, errs plotter.YErrors) (*plotter.YErrorBars, error) {
	return plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
}

// NiceStep is the 1, 2 or 5 × 10^k step that marks about n ticks from lo
// to hi (lo < hi, both finite, n ≥ 1), and the decimals its multiples need
// as labels without trailing zeros.
func NiceStep(lo, hi float64, n int) (step float64, prec int) {
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, f := range []float64{1, 2, 5} {
		if raw <= f*mag {
			step = f * mag
			break
		}
	}
	return step, max(0, int(-math.Floor(math.Log10(step))))
}

// finishCaseAxes sets the axes of a per-case bar chart: y from 0 with 5%
// headroom and nice ticks, one x slot per case, so bars need no padding and
// the grid spans the area.
func finishCaseAxes(p *plot.Plot, cases int) {
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.05
	p.Y.Tick.Marker = niceTicks{n: 5}
	p.X.Min, p.X.Max = -0.5, float64(cases)-0.5
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

// pairedBars adds two bar series side by side in each case's slot, a on
// the left and b on the right, with a grid behind; w is each bar's width.
func pairedBars(p *plot.Plot, slot vg.Length, a, b plotter.Values, ca, cb color.Color) (left, right *plotter.BarChart, w vg.Length, err error) {
	w = min(max(slot*0.3, vg.Points(3)), vg.Points(30))
	if left, err = plotter.NewBarChart(a, w); err != nil {
		return nil, nil, 0, err
	}
	if right, err = plotter.NewBarChart(b, w); err != nil {
		return nil, nil, 0, err
	}
	left.Color, right.Color = ca, cb
	left.LineStyle.Width, right.LineStyle.Width = 0, 0
	left.Offset, right.Offset = -w/2, w/2
	p.Add(hGrid(), left, right)
	return left, right, w, nil
}
