package runs

import (
	"math"
	"testing"
	"time"

	"github.com/restorebench/restorebench/measure"
)

// TestCPUAwareBound: the bound is the largest of fetch-only wall,
// write-only wall and both sides' CPU over the cores, named by which it
// is, and a restore's efficiency against it is its MB/s over the bound's.
func TestCPUAwareBound(t *testing.T) {
	const bytes = 1_000_000_000 // 1000 MB
	lim := func(wall, cpu float64) measure.Limit {
		return measure.Limit{Duration: time.Duration(wall * float64(time.Second)), CPU: time.Duration(cpu * float64(time.Second)), Bytes: bytes, Records: 1000}
	}
	cases := []struct {
		name                string
		fetch, write        measure.Limit
		cores               int
		wantSeconds, cpuSec float64
		wantBound           string
	}{
		// Each side alone uses about one core of two, together more than two.
		{"cpu", lim(8, 9), lim(10, 14), 2, 11.5, 11.5, "cpu"},
		// With four cores the same CPU fits under the write side's wall.
		{"write", lim(8, 9), lim(10, 14), 4, 10, 5.75, "write"},
		{"fetch", lim(12, 6), lim(10, 8), 2, 12, 7, "fetch"},
	}
	for _, c := range cases {
		l := NewLimits(c.fetch, c.write, 2, c.cores)
		if !near(l.CPUAwareBoundSeconds, c.wantSeconds) || !near(l.CPUBoundSeconds, c.cpuSec) || l.CPUAwareBound != c.wantBound {
			t.Errorf("%s: bound %.3f s (%s), CPU term %.3f s; want %.3f s (%s), CPU term %.3f s",
				c.name, l.CPUAwareBoundSeconds, l.CPUAwareBound, l.CPUBoundSeconds, c.wantSeconds, c.wantBound, c.cpuSec)
		}
		if want := 1000 / c.wantSeconds; !near(l.CPUAwareBoundMBPerSec, want) {
			t.Errorf("%s: bound %.3f MB/s, want %.3f", c.name, l.CPUAwareBoundMBPerSec, want)
		}
		// A restore of the 1000 MB in 1.1 x the bound's time.
		got := l.For(1000 / (1.1 * c.wantSeconds))
		if !near(got.CPUAwareEfficiency, 1/1.1) {
			t.Errorf("%s: CPU-aware efficiency %.4f, want %.4f", c.name, got.CPUAwareEfficiency, 1/1.1)
		}
		// The wall-only efficiency stays over min(fetch-only, write-only) MB/s.
		if wall := max(c.fetch.Duration, c.write.Duration).Seconds(); !near(got.Efficiency, wall/(1.1*c.wantSeconds)) {
			t.Errorf("%s: efficiency %.4f, want %.4f", c.name, got.Efficiency, wall/(1.1*c.wantSeconds))
		}
	}
}

// TestCPUAwareEfficiencySummarized: a case's summary carries the median
// CPU-aware efficiency of its repeats and the limits behind it.
func TestCPUAwareEfficiencySummarized(t *testing.T) {
	l := NewLimits(measure.Limit{Duration: 8 * time.Second, CPU: 9 * time.Second, Bytes: 1e9},
		measure.Limit{Duration: 10 * time.Second, CPU: 14 * time.Second, Bytes: 1e9}, 2, 2)
	var rs []Restore
	for _, secs := range []float64{12, 13, 20} {
		r := Restore{Case: "put", Phase: &RestorePhase{Seconds: secs, MBPerSec: 1000 / secs}, Verified: true}
		r.Phase.Limits = l.For(r.Phase.MBPerSec)
		rs = append(rs, r)
	}
	s := Summarize(rs)[0]
	if !s.HasLimits || s.Limits == nil || !near(s.MedianCPUAwareEfficiency, 11.5/13) {
		t.Fatalf("summary: limits %v, CPU-aware efficiency %.4f; want the limits and %.4f", s.Limits != nil, s.MedianCPUAwareEfficiency, 11.5/13)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
