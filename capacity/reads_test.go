package capacity

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
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
			served := rec.Phase.Seconds + gaps[n]
			rec.Queries = &runs.QueryFigures{Rate: 100, RestoredSeconds: rec.Phase.Seconds, ServedAgainSeconds: &served}
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

// TestRecommendationComparesWithinOneEngine: a run that restored the
// defaults on both engines, Kafka Streams the faster, recommends no
// setting: the engine is not a setting, and each engine's cases are
// compared with that engine's defaults only.
func TestRecommendationComparesWithinOneEngine(t *testing.T) {
	var rs []*Run
	for i, size := range capacitytest.Sizes {
		res := capacitytest.Run(i, size, []capacitytest.Case{capacitytest.Cases[0], capacitytest.KafkaStreams(0.1, 400e6)})
		rs = append(rs, &Run{Label: fmt.Sprintf("R%d", i+1), Path: "x", Results: res})
	}
	first := Analyze(rs, Options{}).Recommendations[0]
	if first.Case != "" || strings.Contains(first.Text, "ks-default") || strings.Contains(strings.Join(first.Evidence, " "), "ks-default") {
		t.Errorf("recommendation %+v: the kafka-streams defaults are not a faster setting than the model's", first)
	}
}

// TestReadsServedAgainRowWithARestoreNeverAnswered: a cold restore with a
// query load and stale reads off whose lookups were never answered (every
// one refused to the load's end) has no gap to measure but the longest of
// all; the row must not be made of the other restores' short gaps as if it
// had not run.
func TestReadsServedAgainRowWithARestoreNeverAnswered(t *testing.T) {
	rs := syntheticRuns()
	n := 0
	for _, r := range rs {
		for i := range r.Results.Restores {
			rec := &r.Results.Restores[i]
			if rec.ProfileCase() != "kstreams-default" || n >= 3 {
				continue
			}
			rec.Queries = &runs.QueryFigures{Rate: 100, Lookups: 1000, Refused: 1000, RestoredSeconds: rec.Phase.Seconds}
			if n > 0 {
				served := rec.Phase.Seconds + 1
				rec.Queries.Refused, rec.Queries.Answered, rec.Queries.ServedAgainSeconds = 100, 900, &served
			}
			n++
		}
	}
	row := Analyze(rs, Options{Threads: 2, RTOs: []time.Duration{time.Minute}}).RTO.Row(RowReadsServedAgain)
	if row == nil || row.Measured || !strings.Contains(row.Missing, "never answered") {
		t.Fatalf("row %+v: want not measured, saying a restore's lookups were never answered", row)
	}
}

// TestReadsServedAgainRowTakesTheRatesEngine: the gap between a restore's
// end and its lookups answered again is the engine's own (Kafka Streams'
// API layer waits for RUNNING and its metadata, the model answers from the
// restored store): a row on Kafka Streams' rate does not take the model's
// gap for it.
func TestReadsServedAgainRowTakesTheRatesEngine(t *testing.T) {
	var rs []*Run
	for i, size := range capacitytest.Sizes {
		res := capacitytest.Run(i, size, []capacitytest.Case{capacitytest.Cases[0], capacitytest.KafkaStreams(0.1, 400e6)})
		rs = append(rs, &Run{Label: fmt.Sprintf("R%d", i+1), Path: "x", Results: res})
	}
	for _, r := range rs {
		for i := range r.Results.Restores {
			rec := &r.Results.Restores[i]
			if runs.EngineOf(rec.Params) != config.EngineModel {
				continue
			}
			served := rec.Phase.Seconds + 0.5
			rec.Queries = &runs.QueryFigures{Rate: 100, Lookups: 100, Answered: 100, RestoredSeconds: rec.Phase.Seconds, ServedAgainSeconds: &served}
		}
	}
	a := Analyze(rs, Options{Threads: 2, RTOs: []time.Duration{time.Minute}})
	if a.Rate == nil || runs.EngineOf(a.Rate.Setup.Params) != config.EngineKafkaStreams {
		t.Fatalf("rate %v (%v): want Kafka Streams'", a.Rate, a.RateErr)
	}
	if row := a.RTO.Row(RowReadsServedAgain); row == nil || row.Measured {
		t.Fatalf("row %+v: the model's gaps beside Kafka Streams' rate", row)
	}
}

// TestRunComparisonFileKeyHasNoSpaces: a comparison of a run of both
// engines names its files without the spaces and brackets of its label.
func TestRunComparisonFileKeyHasNoSpaces(t *testing.T) {
	rc := &RunComparison{Run: &Run{Label: "R2"}, Size: "window", Engine: "kafka-streams", Mixed: true}
	if got := rc.FileKey(); got != "r2-window-kafka-streams" || rc.Label() != "R2@window (kafka-streams)" {
		t.Errorf("file key %q, label %q", got, rc.Label())
	}
}
