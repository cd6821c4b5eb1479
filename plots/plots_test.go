package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// series makes a throughput series of n whole seconds at mbps MB/s with a
// ramp-up and a final partial interval of 0.4 s.
func series(n int, mbps float64) []measure.Point {
	var pts []measure.Point
	for i := 1; i <= n; i++ {
		f := min(1, float64(i)/3)
		b := int64(mbps * 1e6 * f)
		pts = append(pts, measure.Point{T: float64(i), Records: b / 100, Bytes: b})
	}
	b := int64(mbps * 1e6 * 0.4)
	return append(pts, measure.Point{T: float64(n) + 0.4, Records: b / 100, Bytes: b})
}

// synthetic returns results of 2 cases × 2 repeats, all with series, the
// second repeat of the second case unverified, and a fill with a series.
func synthetic() *runs.Results {
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &runs.Results{
		SchemaVersion: runs.SchemaVersion,
		RunID:         "test-run",
		StartedAt:     start,
		Complete:      true,
		Fill: &runs.Fill{
			Topic:           "changelog",
			FilledAt:        start,
			Bytes:           200e6,
			DurationSeconds: 10.4,
			MBPerSec:        19.2,
			Series:          series(10, 20),
		},
	}
	for ci, c := range []string{"put-batch500-t1", "put-batch5000-t4"} {
		for rep := 1; rep <= 2; rep++ {
			n := 12 - 4*ci + rep
			s := series(n, 30+20*float64(ci)+float64(rep))
			var b int64
			for _, p := range s {
				b += p.Bytes
			}
			dur := s[len(s)-1].T
			r.Restores = append(r.Restores, runs.Restore{
				Case:     c,
				Repeat:   rep,
				Phase:    &runs.RestorePhase{Seconds: dur, TotalSeconds: dur, MBPerSec: runs.MBPerSec(b, dur)},
				Bytes:    b,
				Series:   s,
				Verified: !(ci == 1 && rep == 2),
			})
		}
	}
	return r
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(synthetic(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	// Not a batch-size sweep: no RestoreTimeByBatch chart.
	for _, name := range []string{RestoreThroughputFile, RestoreTimePerCaseFile, RestorePhasesFile, FillThroughputFile} {
		for _, ext := range []string{"png", "svg"} {
			want = append(want, filepath.Join(dir, name+"."+ext))
		}
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
	// The PNG pixel size follows from the chart size at vgimg's default dpi.
	wantW := int(math.Round(float64(Width/vg.Inch) * vgimg.DefaultDPI))
	wantH := int(math.Round(float64(Height/vg.Inch) * vgimg.DefaultDPI))
	if wantW != 768 || wantH != 432 {
		t.Fatalf("expected 8in×4.5in at 96 dpi = 768×432, got %d×%d", wantW, wantH)
	}
	for _, p := range want {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2000 {
			t.Errorf("%s: only %d bytes", p, len(b))
		}
		switch filepath.Ext(p) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if got := img.Bounds().Size(); got.X != wantW || got.Y != wantH {
				t.Errorf("%s: %d×%d px, want %d×%d", p, got.X, got.Y, wantW, wantH)
			}
		case ".svg":
			if !bytes.Contains(b, []byte("<svg")) {
				t.Errorf("%s: no <svg element", p)
			}
		}
	}
	// Atomic writes leave no temporary files behind.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(want) {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %q, want only the %d charts", names, len(want))
	}

	svg, err := os.ReadFile(filepath.Join(dir, RestoreThroughputFile+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("put-batch5000-t4 #2 (UNVERIFIED)")) {
		t.Error("restore throughput SVG does not mark the unverified restore")
	}
	if n := bytes.Count(svg, []byte("UNVERIFIED")); n != 1 {
		t.Errorf("UNVERIFIED appears %d times in the SVG, want 1 (one unverified restore)", n)
	}
}

// drawn records what a plot draws at the chart size.
func drawn(t *testing.T, p *plot.Plot) *recorder.Canvas {
	t.Helper()
	var rec recorder.Canvas
	p.Draw(draw.NewCanvas(&rec, Width, Height))
	return &rec
}

// texts returns every string the recorded drawing writes.
func texts(rec *recorder.Canvas) []string {
	var out []string
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, fs.String)
		}
	}
	return out
}

// strokesOfWidth counts the paths stroked with line width w.
func strokesOfWidth(rec *recorder.Canvas, w vg.Length) int {
	var cur vg.Length
	n := 0
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetLineWidth:
			cur = a.Width
		case *recorder.Stroke:
			if cur == w {
				n++
			}
		}
	}
	return n
}

func TestRestoreThroughputOneLinePerRestore(t *testing.T) {
	r := synthetic()
	p, err := RestoreThroughput(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "Restore throughput over time" {
		t.Errorf("title %q", p.Title.Text)
	}
	rec := drawn(t, p)
	got := texts(rec)
	for _, rs := range r.Restores {
		label := fmt.Sprintf("%s #%d", rs.Case, rs.Repeat)
		if !rs.Verified {
			label += " (UNVERIFIED)"
		}
		if n := countEq(got, label); n != 1 {
			t.Errorf("legend entry %q drawn %d times, want 1 (texts: %q)", label, n, got)
		}
	}
	legend := 0
	for _, s := range got {
		if strings.Contains(s, " #") {
			legend++
		}
	}
	if legend != len(r.Restores) {
		t.Errorf("%d legend entries, want %d", legend, len(r.Restores))
	}
	// Each restore's line is stroked once in the data area and once as its
	// legend thumbnail, and nothing else uses the lines' 1.5 pt width.
	if n := strokesOfWidth(rec, vg.Points(1.5)); n != 2*len(r.Restores) {
		t.Errorf("%d line strokes, want %d (2 per restore)", n, 2*len(r.Restores))
	}
	// Axis labels carry units.
	for _, want := range []string{"time since restore start (s)", "throughput (MB/s, 1 MB = 10⁶ bytes)"} {
		if countEq(got, want) != 1 {
			t.Errorf("axis label %q missing", want)
		}
	}
}

func TestRateXYs(t *testing.T) {
	got := rateXYs([]measure.Point{
		{T: 1, Bytes: 2e6},
		{T: 2, Bytes: 4e6},
		{T: 2, Bytes: 1}, // zero-length interval: dropped
		{T: 2.5, Bytes: 1e6},
	})
	want := []struct{ X, Y float64 }{{0, 2}, {1, 2}, {2, 4}, {2.5, 2}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].X != want[i].X || math.Abs(got[i].Y-want[i].Y) > 1e-9 {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestRestoreTimePerCase(t *testing.T) {
	r := synthetic()
	// A third case with only an unverified restore.
	r.Restores = append(r.Restores, runs.Restore{
		Case: "memory", Repeat: 1, Phase: &runs.RestorePhase{Seconds: 3, TotalSeconds: 3}, Series: series(3, 10), Verified: false,
	})
	p, err := RestoreTimePerCase(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "Restore time per case (median, min–max)" {
		t.Errorf("title %q", p.Title.Text)
	}
	got := texts(drawn(t, p))
	for _, want := range []string{"put-batch500-t1", "put-batch5000-t4", "memory (unverified)", "restore time (s)"} {
		if countEq(got, want) != 1 {
			t.Errorf("text %q not drawn once; texts: %q", want, got)
		}
	}
	// Median of the two verified repeats of the first case, n=2; one
	// verified repeat of the second case.
	s := runs.Summarize(r.Restores)
	for _, want := range []string{
		fmt.Sprintf("%s s", formatSeconds(s[0].MedianSeconds)), "n=2",
		fmt.Sprintf("%s s", formatSeconds(s[1].MedianSeconds)), "n=1",
	} {
		if countEq(got, want) != 1 {
			t.Errorf("bar label %q not drawn; texts: %q", want, got)
		}
	}
	if p.Y.Max < s[0].MaxSeconds {
		t.Errorf("y axis max %v below the first case's max %v", p.Y.Max, s[0].MaxSeconds)
	}
}

func TestNoRestoresSkipsRestoreCharts(t *testing.T) {
	r := synthetic()
	r.Restores = nil
	if _, err := RestoreThroughput(r); !errors.Is(err, ErrNoRestores) {
		t.Errorf("RestoreThroughput err = %v, want ErrNoRestores", err)
	}
	if _, err := RestoreTimePerCase(r); !errors.Is(err, ErrNoRestores) {
		t.Errorf("RestoreTimePerCase err = %v, want ErrNoRestores", err)
	}
	dir := t.TempDir()
	paths, err := WriteAll(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, FillThroughputFile+".png"), filepath.Join(dir, FillThroughputFile+".svg")}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want only the fill chart %q", paths, want)
	}
	for _, name := range []string{RestoreThroughputFile, RestoreTimePerCaseFile} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(dir, name+ext)); !os.IsNotExist(err) {
				t.Errorf("%s%s exists (err %v), want no restore chart", name, ext, err)
			}
		}
	}

	// Without a fill series either, nothing is written and nothing fails.
	r.Fill.Series = nil
	if p, err := FillThroughput(r); p != nil || err != nil {
		t.Errorf("FillThroughput = %v, %v; want nil, nil", p, err)
	}
	dir = t.TempDir()
	paths, err = WriteAll(r, dir)
	if err != nil || len(paths) != 0 {
		t.Errorf("WriteAll = %q, %v; want nothing, no error", paths, err)
	}
}

func TestNilResults(t *testing.T) {
	if _, err := WriteAll(nil, t.TempDir()); err == nil {
		t.Error("WriteAll(nil) did not fail")
	}
	if _, err := RestoreThroughput(nil); err == nil {
		t.Error("RestoreThroughput(nil) did not fail")
	}
}

func countEq(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}
