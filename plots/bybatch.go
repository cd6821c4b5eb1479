package plots

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 30, Name: "restore-time-by-batch", File: RestoreTimeByBatchFile, Draw: RestoreTimeByBatch})
}

// RestoreTimeByBatchFile is the file base name WriteAll gives RestoreTimeByBatch.
const RestoreTimeByBatchFile = "restore-time-by-batch"

// ErrNotASweep is returned by RestoreTimeByBatch when no line of the chart
// would have two or more batch sizes; WriteAll skips that chart.
var ErrNotASweep = errors.New("plots: restores do not sweep records per batch")

// batchPoint is one batch size of one line, over the verified, error-free
// repeats of every case of that line with that batch size.
type batchPoint struct {
	batch            int
	median, min, max float64
	n                int // verified, error-free repeats
}

// batchLine is one line of RestoreTimeByBatch: the cases whose params are
// equal except for BatchRecords.
type batchLine struct {
	params config.Case // of its first case, BatchRecords zeroed
	label  string
	// points are the batch sizes with a verified repeat, ascending.
	points []batchPoint
	// sizes are all its positive batch sizes, verified or not, ascending.
	sizes []int
}

// unverified are its batch sizes without a verified repeat, ascending.
func (l batchLine) unverified() []int {
	var out []int
	for _, b := range l.sizes {
		if !slices.ContainsFunc(l.points, func(pt batchPoint) bool { return pt.batch == b }) {
			out = append(out, b)
		}
	}
	return out
}

// batchLines groups restores into lines, in first-seen order: restores share
// a line when their params differ in nothing but BatchRecords (so in
// neither strategy nor anything else). Restores without a positive
// BatchRecords are left out. Each line is labelled by lineLabels.
func batchLines(restores []runs.Restore) []batchLine {
	type acc struct {
		line  batchLine
		secs  map[int][]float64
		sizes map[int]bool
	}
	var groups []*acc
	byKey := map[string]*acc{}
	for _, rs := range restores {
		if rs.Params.BatchRecords <= 0 {
			continue
		}
		q := rs.Params
		q.BatchRecords = 0
		kb, _ := json.Marshal(q) // plain data: cannot fail
		g, ok := byKey[string(kb)]
		if !ok {
			g = &acc{line: batchLine{params: q}, secs: map[int][]float64{}, sizes: map[int]bool{}}
			byKey[string(kb)] = g
			groups = append(groups, g)
		}
		b := rs.Params.BatchRecords
		g.sizes[b] = true
		if secs, ok := rs.RestoreSeconds(); ok && rs.Counts() {
			g.secs[b] = append(g.secs[b], secs)
		}
	}
	lines := make([]batchLine, len(groups))
	for i, g := range groups {
		l := g.line
		for b := range g.sizes {
			l.sizes = append(l.sizes, b)
		}
		slices.Sort(l.sizes)
		for _, b := range l.sizes {
			secs := g.secs[b]
			if len(secs) == 0 {
				continue
			}
			l.points = append(l.points, batchPoint{
				batch: b, median: runs.Median(secs),
				min: slices.Min(secs), max: slices.Max(secs), n: len(secs),
			})
		}
		lines[i] = l
	}
	lineLabels(lines)
	return lines
}

// paramField is one setting a line's label may mention: applies tells
// whether it means anything for params p, value renders it for the label.
type paramField struct {
	applies func(p config.Case) bool
	value   func(p config.Case) string
}

func always(config.Case) bool { return true }

func usesRocksDB(p config.Case) bool {
	return p.Strategy != "memory" && p.Store != "memory"
}

func hasRocksDBOptions(p config.Case) bool { return usesRocksDB(p) }

// opts is p's RocksDB options.
func opts(p config.Case) *config.RocksDB { return &p.RocksDB }

// rocksOpt is a RocksDB option field, labelled "name=value".
func rocksOpt(name string, v func(o *config.RocksDB) string) paramField {
	return paramField{hasRocksDBOptions, func(p config.Case) string {
		return name + "=" + v(opts(p))
	}}
}

// labelFields are the settings, besides strategy and batch size, in the
// order a label lists them.
var labelFields = []paramField{
	// The engine first: a calibration's lines differ by it alone.
	{always, func(p config.Case) string {
		if p.Engine == "" {
			return string(config.EngineModel)
		}
		return string(p.Engine)
	}},
	{always, func(p config.Case) string { return orDefault("scenario ", string(p.Scenario)) }},
	// The memory strategy implies the memory store: not worth saying.
	{func(p config.Case) bool { return p.Strategy != "memory" },
		func(p config.Case) string { return orDefault("store ", string(p.Store)) }},
	{usesRocksDB, func(p config.Case) string {
		if p.RocksDBPreset == "" {
			return orDefault("preset ", p.RocksDB.Preset)
		}
		return orDefault("preset ", p.RocksDBPreset)
	}},
	{hasRocksDBOptions, func(p config.Case) string {
		if c := opts(p).CompactionStyle; c != "" {
			return c
		}
		return "compaction default"
	}},
	{hasRocksDBOptions, func(p config.Case) string {
		switch c := opts(p).Compression; c {
		case "", "none":
			return "uncompressed"
		default:
			return c
		}
	}},
	{always, func(p config.Case) string {
		if p.Threads == 1 {
			return "1 thread"
		}
		return strconv.Itoa(p.Threads) + " threads"
	}},
	rocksOpt("write_buffer_size", func(o *config.RocksDB) string { return bytesLabel(int64(o.WriteBufferSize)) }),
	rocksOpt("max_write_buffer_number", func(o *config.RocksDB) string { return intLabel(o.MaxWriteBufferNumber) }),
	rocksOpt("block_cache_size", func(o *config.RocksDB) string { return bytesLabel(int64(o.BlockCacheSize)) }),
	rocksOpt("block_size", func(o *config.RocksDB) string { return bytesLabel(int64(o.BlockSize)) }),
	rocksOpt("bloom_bits_per_key", func(o *config.RocksDB) string {
		return strconv.FormatFloat(o.BloomBitsPerKey, 'g', -1, 64)
	}),
	rocksOpt("disable_wal", func(o *config.RocksDB) string { return strconv.FormatBool(o.DisableWAL) }),
	rocksOpt("increase_parallelism", func(o *config.RocksDB) string { return intLabel(o.Parallelism) }),
	rocksOpt("level0_file_num_compaction_trigger", func(o *config.RocksDB) string {
		return intLabel(o.Level0FileNumCompactionTrigger)
	}),
	rocksOpt("level0_slowdown_writes_trigger", func(o *config.RocksDB) string {
		return intLabel(o.Level0SlowdownWritesTrigger)
	}),
	rocksOpt("level0_stop_writes_trigger", func(o *config.RocksDB) string { return intLabel(o.Level0StopWritesTrigger) }),
	rocksOpt("max_background_jobs", func(o *config.RocksDB) string { return intLabel(o.MaxBackgroundJobs) }),
	{always, func(p config.Case) string {
		return "fetch.max.bytes=" + bytesLabel(int64(p.FetchMaxBytes))
	}},
	{always, func(p config.Case) string {
		return "max.partition.fetch.bytes=" + bytesLabel(int64(p.MaxPartitionFetchBytes))
	}},
	{func(p config.Case) bool { return p.Strategy == "ingest" },
		func(p config.Case) string { return "sort buffer " + bytesLabel(int64(p.SortBuffer)) }},
}

// lineLabels labels each line by its strategy plus, in parentheses, each
// setting in which it differs from the most common one among the lines the
// setting applies to (ties go to the first seen): "put", "put (level)".
// Settings a strategy makes meaningless (RocksDB options for the memory
// strategy, the sort buffer for all but ingest) are not mentioned. Lines
// that still share a label are told apart by every differing setting, then
// by " #2", " #3"….
func lineLabels(lines []batchLine) {
	mode := func(f paramField) string {
		count := map[string]int{}
		best := ""
		for _, l := range lines {
			if !f.applies(l.params) {
				continue
			}
			v := f.value(l.params)
			count[v]++
			if count[v] > count[best] || best == "" {
				best = v
			}
		}
		return best
	}
	modes := make([]string, len(labelFields))
	for i, f := range labelFields {
		modes[i] = mode(f)
	}
	label := func(p config.Case, all bool) string {
		var diffs []string
		for i, f := range labelFields {
			if !all && !f.applies(p) {
				continue
			}
			if v := f.value(p); v != modes[i] {
				diffs = append(diffs, v)
			}
		}
		s := orDefault("", string(p.Strategy))
		if len(diffs) > 0 {
			s += " (" + strings.Join(diffs, ", ") + ")"
		}
		return s
	}
	count := map[string]int{}
	for i := range lines {
		lines[i].label = label(lines[i].params, false)
		count[lines[i].label]++
	}
	seen := map[string]int{}
	for i := range lines {
		if count[lines[i].label] > 1 {
			lines[i].label = label(lines[i].params, true)
		}
		seen[lines[i].label]++
		if n := seen[lines[i].label]; n > 1 {
			lines[i].label += " #" + strconv.Itoa(n)
		}
	}
}

// glyphs tell apart the lines of one strategy (which share a colour), along
// with the dash pattern.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

// RestoreTimeByBatch charts the median restore duration in seconds (the
// restore phase, runs.Restore.RestoreSeconds) over the verified, error-free repeats
// against records per batch (Params.BatchRecords, log scale), one line with
// markers per group of cases whose params differ in nothing but batch size,
// labelled as lineLabels says. A point with more than one such repeat has a
// min–max error bar. Lines of one strategy share a colour and differ in dash
// and marker. Batch sizes without a verified repeat have no point; the
// legend names them (" (unverified at 500)", " (unverified at 5 sizes)",
// or " (unverified)" for a line without any point). Results without
// restores give ErrNoRestores; results where no line has two batch sizes
// give ErrNotASweep.
func RestoreTimeByBatch(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	cold := r.ColdRestores()
	if len(cold) == 0 {
		return nil, ErrNoRestores
	}
	lines := batchLines(cold)
	if !slices.ContainsFunc(lines, func(l batchLine) bool { return len(l.sizes) >= 2 }) {
		return nil, ErrNotASweep
	}
	p := newPlot("Restore time vs records per batch")
	p.Add(plotter.NewGrid()) // first, so it is drawn behind the lines
	p.X.Label.Text = "records per batch (max.poll.records, log scale)"
	p.Y.Label.Text = "restore time (s, median, min–max)"
	p.X.Scale = plot.LogScale{}

	var styles lineStyles // strategies share a colour
	var legend []legendEntry
	for _, l := range lines {
		ci, vi := styles.next(string(l.params.Strategy))
		e := legendEntry{name: l.label, suffix: unverifiedSuffix(l)}
		if len(l.points) > 0 {
			thumb, err := addBatchLine(p, l, ci, vi)
			if err != nil {
				return nil, err
			}
			e.thumb = thumb
		}
		legend = append(legend, e)
	}
	batchAxes(p, lines)
	legendOutside(p, legend)
	return p, nil
}

// unverifiedSuffix is what l's legend entry says of its batch sizes without
// a verified repeat: " (unverified)" for a line without any point, else
// the sizes (" (unverified at 500, 1000)") or, past three, their count
// (" (unverified at 5 sizes)"); nothing when every size has a point.
func unverifiedSuffix(l batchLine) string {
	switch u := l.unverified(); {
	case len(l.points) == 0:
		return " (unverified)"
	case len(u) > 3:
		return fmt.Sprintf(" (unverified at %d sizes)", len(u))
	case len(u) > 0:
		var s []string
		for _, b := range u {
			s = append(s, strconv.Itoa(b))
		}
		return " (unverified at " + strings.Join(s, ", ") + ")"
	}
	return ""
}

// addBatchLine draws line l's medians as a line with markers in palette
// colour ci and variant vi (dash and marker), with a min–max error bar at
// each point of more than one repeat, and returns its legend thumbnail.
func addBatchLine(p *plot.Plot, l batchLine, ci, vi int) (plot.Thumbnailer, error) {
	xys := make(plotter.XYs, len(l.points))
	var errXYs plotter.XYs
	var errYs plotter.YErrors
	for i, pt := range l.points {
		xys[i] = plotter.XY{X: float64(pt.batch), Y: pt.median}
		if pt.n > 1 {
			errXYs = append(errXYs, xys[i])
			errYs = append(errYs, struct{ Low, High float64 }{pt.median - pt.min, pt.max - pt.median})
		}
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, fmt.Errorf("plots: line %s: %w", l.label, err)
	}
	c := PaletteColor(ci)
	line.Color = c
	line.Width = vg.Points(1.5)
	line.Dashes = variantDashes(ci, vi)
	pts.Color = c
	pts.Shape = glyphs[vi%len(glyphs)]
	pts.Radius = vg.Points(3)
	p.Add(line, pts)
	if len(errXYs) > 0 {
		eb, err := NewYErrorBars(errXYs, errYs)
		if err != nil {
			return nil, fmt.Errorf("plots: error bars %s: %w", l.label, err)
		}
		eb.Color = c
		eb.Width = vg.Points(1)
		eb.CapWidth = vg.Points(6)
		p.Add(eb)
	}
	return thumbnails{line, pts}, nil
}

// batchAxes sets RestoreTimeByBatch's axes: X spans every line's batch
// sizes, verified or not, with a margin of a factor 1.5 that keeps the end
// markers off the axis edges, and ticks that label those sizes when few
// powers of ten do; Y starts at 0 with 5% headroom.
func batchAxes(p *plot.Plot, lines []batchLine) {
	lo, hi := math.Inf(1), math.Inf(-1)
	var used []float64
	for _, l := range lines {
		lo, hi = min(lo, float64(l.sizes[0])), max(hi, float64(l.sizes[len(l.sizes)-1]))
		for _, b := range l.sizes {
			used = append(used, float64(b))
		}
	}
	p.X.Min, p.X.Max = lo/1.5, hi*1.5
	p.X.Tick.Marker = batchTicks{used: used}
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.05
	p.Y.Tick.Marker = niceTicks{n: 5}
}

// thumbnails draws several legend thumbnails on top of each other, e.g. a
// line and its markers.
type thumbnails []plot.Thumbnailer

func (ts thumbnails) Thumbnail(c *draw.Canvas) {
	for _, t := range ts {
		t.Thumbnail(c)
	}
}

// batchTicks marks a log axis of batch sizes: labelled ticks at the powers
// of ten, as plain numbers ("100", "1000", "10000"), unlabelled ones at 2…9
// times them. When fewer than two powers of ten fall in range, the batch
// sizes in used are labelled too.
type batchTicks struct{ used []float64 }

func (t batchTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return plot.LogTicks{}.Ticks(max(lo, 1e-9), max(hi, 1))
	}
	var ticks []plot.Tick
	labelled := 0
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		pow := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * pow
			if v < lo || v > hi {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 {
				tk.Label = strconv.FormatFloat(v, 'f', -1, 64)
				labelled++
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled >= 2 {
		return ticks
	}
	for _, v := range t.used {
		if v < lo || v > hi {
			continue
		}
		i := slices.IndexFunc(ticks, func(tk plot.Tick) bool { return tk.Value == v })
		if i < 0 {
			ticks = append(ticks, plot.Tick{Value: v})
			i = len(ticks) - 1
		}
		ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
	}
	slices.SortFunc(ticks, func(a, b plot.Tick) int {
		if a.Value < b.Value {
			return -1
		}
		if a.Value > b.Value {
			return 1
		}
		return 0
	})
	return ticks
}

// orDefault is prefix+s, or prefix+"default" for an empty s.
func orDefault(prefix, s string) string {
	if s == "" {
		s = "default"
	}
	return prefix + s
}

// intLabel is n, or "default" for 0 (RocksDB's default left in place).
func intLabel(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

// bytesLabel renders a size compactly: "64MiB", "4KiB", "50MB", "1234B",
// or "default" for 0.
func bytesLabel(n int64) string {
	switch {
	case n == 0:
		return "default"
	case n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	case n%1e6 == 0:
		return strconv.FormatInt(n/1e6, 10) + "MB"
	default:
		return strconv.FormatInt(n, 10) + "B"
	}
}
