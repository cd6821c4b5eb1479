package plots

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// compactionResults has two cleaner settings, two repeats each, and a
// failed repeat that must not count.
func compactionResults() *runs.Results {
	rec := func(name string, rep int, amp, bound float64, ok bool) runs.Restore {
		return runs.Restore{Case: name, Repeat: rep, Verified: ok,
			Compaction: &runs.CompactionRecord{Written: 500_000, LiveKeys: 80_000, Read: int64(80_000 * amp), Amplification: amp, Bound: bound, CleanedBy: "kafka"}}
	}
	return &runs.Results{Restores: []runs.Restore{
		rec("compaction-kafka-defaults", 1, 6.1, 6.25, true), rec("compaction-kafka-defaults", 2, 6.0, 6.25, true),
		rec("compaction-aggressive", 1, 1.3, 1.9, true), rec("compaction-aggressive", 2, 1.5, 1.9, true),
		rec("compaction-aggressive", 3, 9.9, 1.9, false),
	}}
}

// TestCompactionAmplification: one slot per case with the median of its
// verified repeats above the bar, and the chart written only for results
// with compaction records.
func TestCompactionAmplification(t *testing.T) {
	p, err := CompactionAmplification(compactionResults())
	if err != nil || p == nil {
		t.Fatalf("chart: %v", err)
	}
	got := texts(drawn(t, p))
	for _, w := range []string{"compaction-kafka-defaults", "compaction-aggressive", "×6.05", "×1.40", "bound the settings allow"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("%q not drawn (%q)", w, got)
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "9.9") }) {
		t.Error("the failed repeat counted")
	}
	dir := t.TempDir()
	if _, err := WriteAll(compactionResults(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CompactionFile+".svg")); err != nil {
		t.Error(err)
	}
	if p, err := CompactionAmplification(synthetic()); p != nil || err != nil {
		t.Errorf("results without compaction records: %v, %v", p, err)
	}
}
