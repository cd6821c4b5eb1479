package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// metricsRestore is a kafka-streams cold restore of 1,000,000 records in
// 10 s whose Kafka Streams metrics, sampled once at its end at the default
// window (2 × 30 s), read the rate at 1,000,000 / 40 s, the records
// exactly, and restore-remaining-records-total at 3 for no known reason.
func metricsRestore() runs.Restore {
	p := config.DefaultCase()
	p.Name, p.Engine, p.KafkaStreamsMetrics = "ks-metrics", config.EngineKafkaStreams, true
	v := func(x float64) *float64 { return &x }
	at := func(x float64) []runs.MetricPoint { return []runs.MetricPoint{{T: 10, Value: v(x)}} }
	r := runs.Restore{Case: p.Name, Step: &runs.Step{Case: p.Name, Kind: runs.StepRestore}, Repeat: 1, Params: p, Verified: true,
		Phase: &runs.RestorePhase{Seconds: 10, TotalSeconds: 10, RecordsPerSec: 100_000}, Records: 1_000_000,
		KafkaStreams: &runs.KafkaStreamsRun{Version: "4.4.0", RestoreBatches: 1000, Metrics: &runs.KafkaStreamsMetrics{
			RecordingLevel: "DEBUG", RecordingLevelSet: true, SampleWindowMs: 30_000, NumSamples: 2, IntervalSeconds: 1, OffsetsSpanned: 1_000_000,
			Series: []runs.MetricSeries{
				{Group: runs.MetricGroupStateUpdater, Name: runs.MetricRestoreRecordsRate, Points: at(25_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreRate, Points: at(25_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreTotal, Points: at(1_000_000)},
				{Group: runs.MetricGroupTask, Name: runs.MetricRestoreRemaining, Points: at(3)},
			}}}}
	for i := 1; i <= 10; i++ {
		r.Series = append(r.Series, measure.Point{T: float64(i), Records: 100_000})
	}
	return r
}

// TestReportSetsKafkaStreamsMetricsBesideOurs: a run whose restore sampled
// Kafka Streams' metrics gets a section with each figure beside
// restorebench's, cited by restore, with its verdict and why it differs;
// the synthetic runs without them have no such section (the goldens).
func TestReportSetsKafkaStreamsMetricsBesideOurs(t *testing.T) {
	rs := syntheticRuns()
	res := rs[0].Results
	res.Restores = append(res.Restores, metricsRestore())
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"## Kafka Streams' own metrics",
		"| R1 ks-metrics #1 | restore-records-rate | records/s, highest sample (t = 10.0 s) | 25000 | 100000 | 25000 | differs: window |",
		"| R1 ks-metrics #1 | restore-total | records restored, after the restore | 1000000 | 1000000 | – | agrees |",
		"| R1 ks-metrics #1 | restore-remaining-records-total | offsets left, after the restore (of 1000000 spanned) | 3 | 0 | – | DISAGREES |",
		"R1 ks-metrics #1: metrics.recording.level=DEBUG (set by restorebench), rates over 2 × 30 s windows",
		"R1 ks-metrics #1 restore-records-rate: 0.25× the restore's rate",
		"restore-remaining-records-total: not 0 after every restore ended",
		"KAFKA-20711", "KAFKA-20877",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	plain := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(build(t, capacity.Options{}))(w) })
	if strings.Contains(plain, "Kafka Streams' own metrics") {
		t.Error("a report of runs without metrics has the metrics section")
	}
}
