package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// sampledRestore is a kafka-streams cold restore of 1,000,000 records in
// 10 s that sampled Kafka Streams' metrics at Kafka's default window
// (2 × 30 s) once, at the restore's end: restore-records-rate then reads
// 1,000,000 / (10 s + 30 s), restore-total counts the records, and
// restore-remaining-records-total is left as remaining.
func sampledRestore(remaining float64) runs.Restore {
	p := config.DefaultCase()
	p.Engine, p.KafkaStreamsMetrics = config.EngineKafkaStreams, true
	v := func(x float64) *float64 { return &x }
	point := func(x float64) []runs.MetricPoint { return []runs.MetricPoint{{T: 10, Value: v(x)}} }
	r := runs.Restore{Case: "ks", Step: &runs.Step{Case: "ks", Kind: runs.StepRestore}, Repeat: 1, Params: p, Verified: true,
		Phase: &runs.RestorePhase{Seconds: 10, TotalSeconds: 10, RecordsPerSec: 100_000}, Records: 1_000_000,
		KafkaStreams: &runs.KafkaStreamsRun{Version: "4.4.0", RestoreBatches: 1000, Metrics: &runs.KafkaStreamsMetrics{
			RecordingLevel: "DEBUG", RecordingLevelSet: true, SampleWindowMs: 30_000, NumSamples: 2, IntervalSeconds: 1, OffsetsSpanned: 1_020_000,
			Series: []runs.MetricSeries{
				{Group: runs.MetricGroupStateUpdater, Name: runs.MetricRestoreRecordsRate, Points: point(25_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreRate, Points: point(25_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreTotal, Points: point(1_000_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreRemaining, Points: point(remaining)},
			}}}}
	for i := 1; i <= 10; i++ {
		r.Series = append(r.Series, measure.Point{T: float64(i), Records: 100_000})
	}
	return r
}

// TestSummarySetsKafkaStreamsMetricsBesideOurs: the summary shows Kafka
// Streams' figures beside restorebench's with a verdict each, says how they
// were taken, and explains each difference: the window, or the known issue
// (here restore-remaining-records-total stuck at the 20,000 offsets that
// held no record, KAFKA-20711).
func TestSummarySetsKafkaStreamsMetricsBesideOurs(t *testing.T) {
	var out bytes.Buffer
	PrintSummary(&out, &runs.Results{Restores: []runs.Restore{sampledRestore(20_000)}}, "results.json")
	s := out.String()
	for _, want := range []string{
		"Kafka Streams' own metrics beside restorebench's measurement:",
		"restore-records-rate  records/s, highest sample (t = 10.0 s)  25000  100000  25000  differs: window",
		"restore-total  records restored, after the restore  1000000  1000000  –  agrees",
		"restore-remaining-records-total  offsets left, after the restore (of 1020000 spanned)  20000  0  –  differs: KAFKA-20711",
		"ks #1: metrics.recording.level=DEBUG (set by restorebench), rates over 2 × 30 s windows, sampled every 1.0 s",
		"ks #1 restore-records-rate: 0.25× the restore's rate, as its 2 × 30 s window gives from restorebench's records: Kafka's rates divide by at least 30 s, longer than the 10.0 s restore",
		"ks #1 restore-remaining-records-total: stays at the 20000 offsets that held no record",
		"verdict: agrees within 10%",
	} {
		if !strings.Contains(squeeze(s), squeeze(want)) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}

	// A record without metrics (every older file's) prints nothing of them.
	plain := sampledRestore(0)
	plain.KafkaStreams.Metrics = nil
	out.Reset()
	PrintSummary(&out, &runs.Results{Restores: []runs.Restore{plain}}, "results.json")
	if strings.Contains(out.String(), "Kafka Streams' own metrics") {
		t.Errorf("metrics printed for a record without them:\n%s", out.String())
	}
}

// squeeze collapses runs of spaces, so table rows compare by their cells.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
