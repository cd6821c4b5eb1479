package plots

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// kstreams returns Kafka Streams' RocksDB options with the given
// compaction style.
func kstreams(style string) *config.RocksDB {
	return &config.RocksDB{
		Preset: "kstreams", BlockCacheSize: 50 << 20, BlockSize: 4 << 10, BloomBitsPerKey: 10,
		WriteBufferSize: 16 << 20, MaxWriteBufferNumber: 3, CompactionStyle: style,
		Compression: "none", DisableWAL: true, Parallelism: 8,
	}
}

// phaseTimes are a synthetic restore's phases in seconds; ready < 0 means
// no ready phase measured.
type phaseTimes struct{ load, finish, ready float64 }

// restore makes one verified restore of case name with params and phases.
func restore(name string, rep int, p config.Case, ph phaseTimes) runs.Restore {
	dur := ph.load + ph.finish
	r := runs.Restore{
		Case: name, Repeat: rep, Params: p,
		Phase:   &runs.RestorePhase{Seconds: dur, TotalSeconds: dur},
		Model:   &runs.ModelRun{LoadSeconds: ph.load, FinishSeconds: ph.finish},
		Records: 10_000_000, Bytes: 1_200_000_000,
		Verified: true,
	}
	if ph.ready >= 0 {
		r.Model.Ready = &runs.ReadyPhase{Seconds: ph.ready}
		r.Phase.TotalSeconds += ph.ready
	}
	r.Phase.MBPerSec = runs.MBPerSec(r.Bytes, dur)
	r.Phase.RecordsPerSec = runs.PerSec(r.Records, dur)
	r.Series = series(int(dur), r.Phase.MBPerSec)
	return r
}

var (
	sweepStrategies = []string{"put", "bulk", "ingest", "memory"}
	sweepBatches    = []int{100, 1000, 10000, 100000}
)

// sweep returns results of a sweep of 4 strategies × 4 batch sizes × 3
// repeats on the kstreams preset, plus: put with level compaction at two
// batch sizes, put with lz4 and 4 threads at one, and a case whose only
// repeat is unverified.
func sweep() *runs.Results {
	r := synthetic()
	r.Restores = nil
	for _, s := range sweepStrategies {
		for bi, b := range sweepBatches {
			p := config.Case{Scenario: "cold", Strategy: config.Strategy(s), BatchRecords: b, Threads: 1,
				RocksDBPreset: "kstreams", Store: "rocksdb", RocksDB: *kstreams("universal")}
			if s == "memory" {
				p.Store, p.RocksDBPreset, p.RocksDB = "memory", "", config.RocksDB{}
			}
			if s == "ingest" {
				p.SortBuffer = 256 << 20
			}
			slow := float64(len(sweepBatches)-bi) * 8 // smaller batches are slower
			for rep := 1; rep <= 3; rep++ {
				j := float64(rep-2) * 0.7 // repeat jitter
				var ph phaseTimes
				switch s {
				case "put":
					ph = phaseTimes{40 + slow + j, 0, 25 + j}
				case "bulk":
					ph = phaseTimes{24 + slow*0.9 + j, 12 + j, 2}
				case "ingest":
					ph = phaseTimes{22 + slow*0.8 + j, 9, 0.5}
				case "memory":
					ph = phaseTimes{14 + slow*0.6 + j, 0, 0.05}
				}
				r.Restores = append(r.Restores, restore(fmt.Sprintf("%s-batch%d", s, b), rep, p, ph))
			}
		}
	}
	for _, b := range []int{1000, 100000} {
		p := config.Case{Scenario: "cold", Strategy: "put", BatchRecords: b, Threads: 1,
			RocksDBPreset: "kstreams", Store: "rocksdb", RocksDB: *kstreams("level")}
		for rep := 1; rep <= 3; rep++ {
			r.Restores = append(r.Restores, restore(fmt.Sprintf("put-level-batch%d", b), rep, p,
				phaseTimes{50 - float64(b)/10000, 0, 12}))
		}
	}
	o := kstreams("universal")
	o.Compression = "lz4"
	r.Restores = append(r.Restores, restore("put-lz4-threads4-batch10000", 1,
		config.Case{Scenario: "cold", Strategy: "put", BatchRecords: 10000, Threads: 4,
			RocksDBPreset: "kstreams", Store: "rocksdb", RocksDB: *o},
		phaseTimes{20, 0, 15}))
	bad := restore("bulk-batch500-unverified", 1, r.Restores[len(sweepBatches)*3].Params, phaseTimes{30, 10, 2})
	bad.Params.BatchRecords = 500
	bad.Verified = false
	r.Restores = append(r.Restores, bad)
	return r
}

func TestWriteAllSweep(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(sweep(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{RestoreThroughputFile, RestoreTimePerCaseFile, RestoreTimeByBatchFile, RestorePhasesFile, FillThroughputFile} {
		for _, ext := range []string{"png", "svg"} {
			want = append(want, filepath.Join(dir, name+"."+ext))
		}
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
	for _, p := range want {
		if st, err := os.Stat(p); err != nil || st.Size() < 2000 {
			t.Errorf("%s: %v, %v", p, st, err)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, RestoreTimeByBatchFile+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{">put<", ">bulk (unverified at 500)<", ">ingest<", ">memory<", ">put (level)<", ">put (lz4, 4 threads)<"} {
		if !bytes.Contains(svg, []byte(label)) {
			t.Errorf("by-batch SVG lacks legend label %s", label)
		}
	}
}

func TestRestoreTimeByBatchNotASweep(t *testing.T) {
	// synthetic's restores carry no batch size: no line, no sweep.
	r := synthetic()
	if _, err := RestoreTimeByBatch(r); !errors.Is(err, ErrNotASweep) {
		t.Errorf("err = %v, want ErrNotASweep", err)
	}
	// One batch size per strategy (each strategy at its own) is no sweep either.
	r = sweep()
	r.Restores = slices.DeleteFunc(r.Restores, func(rs runs.Restore) bool {
		return rs.Params.BatchRecords != 1000 || rs.Params.Strategy == "memory"
	})
	if len(r.Restores) == 0 {
		t.Fatal("no restores left")
	}
	if _, err := RestoreTimeByBatch(r); !errors.Is(err, ErrNotASweep) {
		t.Errorf("err = %v, want ErrNotASweep", err)
	}
	dir := t.TempDir()
	paths, err := WriteAll(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if filepath.Base(p) == RestoreTimeByBatchFile+".png" || filepath.Base(p) == RestoreTimeByBatchFile+".svg" {
			t.Errorf("WriteAll wrote %s for results that are not a sweep", p)
		}
	}
	if !slices.Contains(paths, filepath.Join(dir, RestorePhasesFile+".png")) {
		t.Errorf("WriteAll did not write the phases chart: %q", paths)
	}
	r.Restores = nil
	if _, err := RestoreTimeByBatch(r); !errors.Is(err, ErrNoRestores) {
		t.Errorf("no restores: err = %v, want ErrNoRestores", err)
	}
	if _, err := RestorePhases(r); !errors.Is(err, ErrNoRestores) {
		t.Errorf("no restores: RestorePhases err = %v, want ErrNoRestores", err)
	}
}

func TestBatchLines(t *testing.T) {
	lines := batchLines(sweep().Restores)
	type want struct {
		label    string
		batches  []int
		verified int // repeats per point
	}
	wants := []want{
		{"put", sweepBatches, 3},
		{"bulk", []int{100, 1000, 10000, 100000}, 3}, // 500 has no verified repeat
		{"ingest", sweepBatches, 3},
		{"memory", sweepBatches, 3},
		{"put (level)", []int{1000, 100000}, 3},
		{"put (lz4, 4 threads)", []int{10000}, 1},
	}
	if len(lines) != len(wants) {
		var got []string
		for _, l := range lines {
			got = append(got, l.label)
		}
		t.Fatalf("%d lines %q, want %d", len(lines), got, len(wants))
	}
	for i, w := range wants {
		l := lines[i]
		if l.label != w.label {
			t.Errorf("line %d label %q, want %q", i, l.label, w.label)
		}
		var got []int
		for _, pt := range l.points {
			got = append(got, pt.batch)
			if pt.n != w.verified {
				t.Errorf("%s batch %d: n=%d, want %d", l.label, pt.batch, pt.n, w.verified)
			}
			if !(pt.min <= pt.median && pt.median <= pt.max) {
				t.Errorf("%s batch %d: min %v median %v max %v", l.label, pt.batch, pt.min, pt.median, pt.max)
			}
		}
		if !slices.Equal(got, w.batches) {
			t.Errorf("%s: points at %v, want %v", l.label, got, w.batches)
		}
	}
	if u := lines[1].unverified(); !slices.Equal(u, []int{500}) {
		t.Errorf("bulk: unverified batch sizes %v, want [500]", u)
	}
	// put at batch 100: repeats 40+32±0.7 s; the median is the middle one.
	if pt := lines[0].points[0]; math.Abs(pt.median-72) > 1e-9 || math.Abs(pt.min-71.3) > 1e-9 || math.Abs(pt.max-72.7) > 1e-9 {
		t.Errorf("put@100 = %+v, want median 72, min 71.3, max 72.7", pt)
	}
}

func TestRestoreTimeByBatchDrawsLines(t *testing.T) {
	r := sweep()
	p, err := RestoreTimeByBatch(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "Restore time vs records per batch" {
		t.Errorf("title %q", p.Title.Text)
	}
	rec := drawn(t, p)
	got := texts(rec)
	for _, l := range []string{"put", "bulk (unverified at 500)", "ingest", "memory", "put (level)", "put (lz4, 4 threads)"} {
		if n := countEq(got, l); n != 1 {
			t.Errorf("legend entry %q drawn %d times, want 1 (texts %q)", l, n, got)
		}
	}
	// Tick labels are plain numbers.
	for _, l := range []string{"100", "1000", "10000", "100000"} {
		if countEq(got, l) != 1 {
			t.Errorf("x tick %q missing (texts %q)", l, got)
		}
	}
	// Six lines, each stroked in the data area and as its legend thumbnail,
	// but for the single point of "put (lz4, 4 threads)", which has only
	// its marker in the data area.
	if n := strokesOfWidth(rec, vg.Points(1.5)); n != 2*6-1 {
		t.Errorf("%d line strokes, want 11", n)
	}
	// Markers: 4+4+4+4+2+1 points plus 6 legend thumbnails.
	if n := markerFills(rec); n != 19+6 {
		t.Errorf("%d marker glyphs drawn, want %d", n, 19+6)
	}
}

func TestLineLabels(t *testing.T) {
	base := config.Case{Strategy: "put", Threads: 1, Store: "rocksdb", RocksDBPreset: "kstreams",
		RocksDB: *kstreams("universal")}
	lines := func(ps ...config.Case) []string {
		var rs []runs.Restore
		for _, p := range ps {
			for _, b := range []int{100, 1000} {
				p.BatchRecords = b
				rs = append(rs, runs.Restore{Params: p, Verified: true, Phase: &runs.RestorePhase{Seconds: 1, TotalSeconds: 1}})
			}
		}
		var out []string
		for _, l := range batchLines(rs) {
			out = append(out, l.label)
		}
		return out
	}
	level := base
	level.RocksDB = *kstreams("level")
	mem := config.Case{Strategy: "memory", Threads: 1, Store: "memory"}
	// The memory strategy's lack of RocksDB options is not a difference.
	if got, want := lines(base, level, mem), []string{"put", "put (level)", "memory"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
	// Settings that mean nothing for a strategy are named only when they
	// are all that tells two lines apart.
	sorted := base
	sorted.SortBuffer = 128 << 20
	if got, want := lines(base, sorted), []string{"put (sort buffer default)", "put (sort buffer 128MiB)"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}

// markerFills counts the glyphs drawn by scatter plotters: the Fill or
// Stroke actions with a path no larger than a 3 pt radius marker that are
// not text.
func markerFills(rec *recorder.Canvas) int {
	n := 0
	for _, a := range rec.Actions {
		var path vg.Path
		switch a := a.(type) {
		case *recorder.Fill:
			path = a.Path
		case *recorder.Stroke:
			path = a.Path
		default:
			continue
		}
		if isMarker(path) {
			n++
		}
	}
	return n
}

// isMarker reports whether path spans about a 6 pt square (a 3 pt radius glyph).
func isMarker(path vg.Path) bool {
	if len(path) < 3 {
		return false
	}
	var xs, ys []float64
	for _, c := range path {
		if c.Type == vg.MoveComp || c.Type == vg.LineComp {
			xs = append(xs, float64(c.Pos.X))
			ys = append(ys, float64(c.Pos.Y))
		}
		if c.Type == vg.ArcComp {
			return c.Radius == vg.Points(3)
		}
	}
	if len(xs) < 3 {
		return false
	}
	sort.Float64s(xs)
	sort.Float64s(ys)
	w, h := xs[len(xs)-1]-xs[0], ys[len(ys)-1]-ys[0]
	return w > 3 && w <= 7 && h > 3 && h <= 7
}
