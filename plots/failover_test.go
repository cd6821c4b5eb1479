package plots

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
	"gonum.org/v1/plot/vg"
)

// failoverResults has case "eos-standby" (kills with max gaps 6, 7, 8 and
// an exact ledger) and case "alos-no-standby" (gaps 10 and 14, 31
// duplicates).
func failoverResults() *runs.Results {
	r := synthetic()
	r.Restores = nil
	add := func(c string, gaps []float64, l *runs.LedgerCheck) {
		for i, g := range gaps {
			f := &runs.FailoverRecord{Kill: i + 1, Tasks: []runs.FailoverTask{{Task: "0_0", GapSeconds: g}}, MaxGapSeconds: g, Takeover: runs.TakeoverPromoted, SessionTimeoutMs: 6000}
			if i == len(gaps)-1 {
				f.Ledger = l
			}
			r.Restores = append(r.Restores, runs.Restore{Case: c, Repeat: 1, Verified: l.Exact, Failover: f})
		}
	}
	add("eos-standby", []float64{6, 8, 7}, &runs.LedgerCheck{Acked: 100, Counted: 100, Exact: true})
	add("alos-no-standby", []float64{10, 14}, &runs.LedgerCheck{Acked: 100, Counted: 131, Duplicates: 31, Mismatched: 20})
	return r
}

func TestFailoverGapsBarsAndVerdicts(t *testing.T) {
	p, err := FailoverGaps(failoverResults())
	if err != nil || p == nil {
		t.Fatalf("%v %v", p, err)
	}
	rec := drawn(t, p)
	green := tallRects(filledRects(rec, gapColors[gapVerified]))
	orange := tallRects(filledRects(rec, gapColors[gapDuplicates]))
	if len(green) != 2 || len(orange) != 2 {
		t.Fatalf("%d green and %d orange fills, want a bar and a legend thumbnail each", len(green), len(orange))
	}
	// Bar heights are the median gaps, 7 and 12; the green bar is first
	// (each colour's leftmost fill is its bar, the legend is on the right).
	g, o := green[0], orange[0]
	if g.Min.X >= o.Min.X {
		t.Fatal("the verified case's bar is not first")
	}
	if ratio := float64(o.Max.Y-o.Min.Y) / float64(g.Max.Y-g.Min.Y); math.Abs(ratio-12.0/7) > 1e-6 {
		t.Errorf("bar heights in ratio %.4f, want 12/7", ratio)
	}
	got := texts(rec)
	for _, s := range []string{"7 s", "verified", "12 s", "31 duplicates", "eos-standby", "alos-no-standby", "ledger verified", "duplicates (at-least-once)", "session.timeout.ms"} {
		if countEq(got, s) != 1 {
			t.Errorf("text %q not drawn once; texts %q", s, got)
		}
	}
	if countEq(got, "lost, mismatch or unchecked") != 0 {
		t.Error("legend names a class no case is in")
	}
}

// WriteAll draws the failover chart for failover results only.
func TestWriteAllDrawsFailoverGapsOnlyForFailovers(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteAll(failoverResults(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FailoverGapFile+".png")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	written, err := WriteAll(synthetic(), other)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range written {
		if strings.Contains(w, FailoverGapFile) {
			t.Fatalf("failover chart drawn for results without failovers: %s", w)
		}
	}
}

// tallRects drops rectangles without height (the zero bars a colour draws
// in the other cases' slots), keeping the order.
func tallRects(rs []vg.Rectangle) []vg.Rectangle {
	var out []vg.Rectangle
	for _, r := range rs {
		if r.Max.Y-r.Min.Y > 0.01 {
			out = append(out, r)
		}
	}
	return out
}

// With six cases a long verdict wraps at its space rather than vanish.
func TestFailoverGapsWrapsLongVerdicts(t *testing.T) {
	r := failoverResults()
	base := r.Restores[len(r.Restores)-1]
	for _, c := range []string{"alos-standby-nocache", "c4", "c5", "c6"} {
		rs := base
		f := *base.Failover
		f.Ledger = &runs.LedgerCheck{Acked: 100754, Counted: 131971, Duplicates: 31217, Mismatched: 1000}
		rs.Case, rs.Failover = c, &f
		r.Restores = append(r.Restores, rs)
	}
	p, err := FailoverGaps(r)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(drawn(t, p))
	if countEq(got, "31217") != 4 || countEq(got, "duplicates") != 4 {
		t.Errorf("long verdicts not wrapped onto their bars; texts %q", got)
	}
}
