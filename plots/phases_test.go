package plots

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/recorder"
)

// phasesResults has case "bulk-batch1000" with three verified repeats and an
// unverified fourth, whose phases have known medians (load 20, finish 5,
// ready 2, total 27.5), and case "ingest-batch1000" whose only repeat is
// unverified.
func phasesResults() *runs.Results {
	r := synthetic()
	r.Restores = nil
	p := config.Case{Strategy: "bulk", BatchRecords: 1000, Store: "rocksdb"}
	for i, ph := range []phaseTimes{{10, 6, 1}, {30, 4, 3}, {20, 5, 2}} {
		rs := restore("bulk-batch1000", i+1, p, ph)
		rs.Phase.TotalSeconds = []float64{17, 37, 27.5}[i]
		r.Restores = append(r.Restores, rs)
	}
	bad := restore("bulk-batch1000", 4, p, phaseTimes{1000, 1000, 1000})
	bad.Verified = false
	r.Restores = append(r.Restores, bad)
	bad = restore("ingest-batch1000", 1, p, phaseTimes{8, 2, 1})
	bad.Verified = false
	r.Restores = append(r.Restores, bad)
	return r
}

func TestPhaseMedians(t *testing.T) {
	got := phaseMedians(phasesResults().Restores)
	want := []casePhases{
		{name: "bulk-batch1000", repeats: 4, verified: 3, load: 20, finish: 5, ready: 2, total: 27.5},
		{name: "ingest-batch1000", repeats: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("phaseMedians = %+v, want %+v", got, want)
	}
}

// filledRects returns the bounding boxes of the paths filled in colour c.
func filledRects(rec *recorder.Canvas, c color.Color) []vg.Rectangle {
	var cur color.Color
	var out []vg.Rectangle
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Fill:
			if cur != c || len(a.Path) == 0 {
				continue
			}
			r := vg.Rectangle{Min: a.Path[0].Pos, Max: a.Path[0].Pos}
			for _, pc := range a.Path {
				if pc.Type != vg.MoveComp && pc.Type != vg.LineComp {
					continue // CloseComp has no position
				}
				r.Min.X, r.Min.Y = min(r.Min.X, pc.Pos.X), min(r.Min.Y, pc.Pos.Y)
				r.Max.X, r.Max.Y = max(r.Max.X, pc.Pos.X), max(r.Max.Y, pc.Pos.Y)
			}
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b vg.Rectangle) int { return int(a.Min.X - b.Min.X) })
	return out
}

func TestRestorePhasesStacksMedians(t *testing.T) {
	p, err := RestorePhases(phasesResults())
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "Restore and ready phases per case" {
		t.Errorf("title %q", p.Title.Text)
	}
	rec := drawn(t, p)
	// Each phase colour fills the verified case's bar segment (leftmost)
	// and its legend thumbnail (rightmost); the unverified case's bar has
	// no height.
	want := []float64{20, 5, 2} // load, finish, ready medians
	var segs []vg.Rectangle
	for k, c := range phaseColors {
		rs := filledRects(rec, c)
		if len(rs) < 2 {
			t.Fatalf("phase %d: %d filled rectangles, want a bar and a legend thumbnail", k, len(rs))
		}
		for _, r := range rs[1 : len(rs)-1] {
			if h := r.Max.Y - r.Min.Y; h > 0.01 {
				t.Errorf("phase %d: unverified case's bar is %v pt high", k, h)
			}
		}
		segs = append(segs, rs[0])
	}
	// Stacked: each segment starts where the one below ends, and heights
	// are in proportion to the medians.
	scale := float64(segs[0].Max.Y-segs[0].Min.Y) / want[0]
	for k, s := range segs {
		if k > 0 && math.Abs(float64(s.Min.Y-segs[k-1].Max.Y)) > 0.01 {
			t.Errorf("phase %d starts at %v, the one below ends at %v", k, s.Min.Y, segs[k-1].Max.Y)
		}
		got := float64(s.Max.Y-s.Min.Y) / scale
		if math.Abs(got-want[k]) > 1e-6 {
			t.Errorf("phase %d stacks %v s, want the median %v s", k, got, want[k])
		}
	}
	got := texts(rec)
	for _, s := range []string{
		"27.5 s", // median total above the bar
		"bulk-batch1000", "ingest-batch1000 (unverified)", "no verified", "repeat",
		"load (records written)", "finish (compact / ingest)", "ready (flush + settle)",
	} {
		if countEq(got, s) != 1 {
			t.Errorf("text %q not drawn once; texts %q", s, got)
		}
	}
}

func TestRestorePhasesManyCases(t *testing.T) {
	// 24 cases with long names stay within the chart: every case is
	// labelled and every total has a label.
	r := sweep()
	for len(phaseMedians(r.Restores)) < 24 {
		rs := r.Restores[0]
		rs.Case = "put-rocksdb-level-zstd-writebuffer64m-batch" + string(rune('a'+len(r.Restores)%26))
		r.Restores = append(r.Restores, rs)
	}
	p, err := RestorePhases(r)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(drawn(t, p))
	if n := countEq(got, "no verified repeat"); n != 1 {
		t.Errorf("unverified case labelled %d times; texts %q", n, got)
	}
	marked, totals := 0, 0
	for _, s := range got {
		if strings.HasSuffix(s, "(unverified)") {
			marked++
		}
		if strings.HasSuffix(s, " s") {
			totals++
		}
	}
	if marked != 1 {
		t.Errorf("%d case names marked unverified, want 1; texts %q", marked, got)
	}
	if totals != 23 {
		t.Errorf("%d totals labelled, want 23 (one per verified case); texts %q", totals, got)
	}
}
