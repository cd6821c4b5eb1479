package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/runs"
)

// TestReadsServedAgainRowTakesTheWorstGap: cold restores with a query
// load and stale reads off make the row: each cell is what a cold restore
// reaches within the objective less the worst gap measured between a
// restore's end and its first lookup answered after it; an objective the
// gap alone exceeds holds nothing. Without such restores the row says how
// to measure it.
func TestReadsServedAgainRowTakesTheWorstGap(t *testing.T) {
	rs := syntheticRuns()
	if row := Analyze(rs, Options{}).RTO.Row(RowReadsServedAgain); row == nil || row.Measured || !strings.Contains(row.Missing, "queries block") {
		t.Fatalf("without query loads: %+v, want not measured, saying how", row)
	}
	gaps := []float64{1, 3, 2}
	n := 0
	for _, r := range rs {
		for i := range r.Results.Restores {
			rec := &r.Results.Restores[i]
			if rec.ProfileCase() != "kstreams-default" || n >= len(gaps) {
				continue
			}
			served := rec.DurationSeconds + gaps[n]
			rec.Queries = &runs.QueryFigures{Rate: 100, RestoredSeconds: rec.DurationSeconds, ServedAgainSeconds: &served}
			n++
		}
	}
	if n != len(gaps) {
		t.Fatalf("gave %d restores a query load, want %d", n, len(gaps))
	}
	a := Analyze(rs, Options{Threads: 2, RTOs: []time.Duration{2 * time.Second, time.Minute}})
	row := a.RTO.Row(RowReadsServedAgain)
	if row == nil || !row.Measured {
		t.Fatalf("row %+v", row)
	}
	if c := row.Cells[0]; c.Task.Value != 0 {
		t.Errorf("2 s objective under a 3 s gap: cell %+v, want nothing", c)
	}
	want := a.Rate.BytesWithin(60 - 3)
	if c := row.Cells[1]; !near(c.Task.Value, want.Value, 1e-12) || !near(c.Instance.Value, 2*want.Value, 1e-12) {
		t.Errorf("1 min cell %+v, want the cold restore's within 57 s (%.4g) per task, twice per instance", c, want.Value)
	}
	if !strings.Contains(strings.Join(row.Basis, " "), "3.00 s after the last store restored at worst (median 2.00 s) over 3 cold restores") {
		t.Errorf("basis %q", row.Basis)
	}
}

// TestWindowStoreRateSaysWhatTheSizeIs: a rate measured on a window store
// (whose cold restore reads only the records within the retention of the
// last) makes every answer say that the size asked about is that part of
// the changelog; a key-value rate's answers say nothing of it.
func TestWindowStoreRateSaysWhatTheSizeIs(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/window"})
	if err != nil {
		t.Fatal(err)
	}
	a := Analyze(rs, Options{Case: "default-segments", Deployment: Deployment{StateBytes: 10e9, Partitions: 8}})
	if a.Rate == nil {
		t.Fatalf("no rate: %v", a.RateErr)
	}
	if got := a.stateText(); !strings.Contains(got, "window store's: the size is its changelog within the retention of its last record") {
		t.Errorf("window rate: %q", got)
	}
	kv := Analyze(syntheticRuns(), Options{Deployment: Deployment{StateBytes: 10e9, Partitions: 8}})
	if got := kv.stateText(); strings.Contains(got, "retention") {
		t.Errorf("key-value rate: %q", got)
	}
}
