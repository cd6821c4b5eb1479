package integration

import (
	"context"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// metricsRateFactor is how far Kafka Streams' restore-records-rate, at its
// highest sample, may lie from restorebench's records/s over the restore
// when its window (2 × 1 s here) is shorter than the restore: a windowed
// rate's peak runs above the average, and a slow second below it.
const metricsRateFactor = 2.0

// ksMetricsCase is a kafka-streams case sampling Kafka Streams' own
// metrics, with a 1 s metrics window so a restore of a few seconds spans
// several windows.
func ksMetricsCase(name string) config.Case {
	c := ksCase(name, 1)
	c.KafkaStreamsMetrics = true
	c.Streams = map[string]string{"metrics.sample.window.ms": "1000"}
	return c
}

// metricsRestore runs c against fill and returns its verified record with
// Kafka Streams' metrics, which must pass the checks a saved file must.
func metricsRestore(t *testing.T, env *bench.Env, fill bench.FillOutcome, app string, c config.Case) runs.Restore {
	t.Helper()
	stateDir := t.TempDir()
	k, err := env.RunCase(context.Background(), fill, app, ksStore, c, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	noJVMUnder(t, stateDir)
	checkRecords(t, k)
	m := k.KafkaStreams.Metrics
	if !k.Verified || m == nil {
		t.Fatalf("verified %v, metrics %+v", k.Verified, m)
	}
	if m.RecordingLevel != "DEBUG" || !m.RecordingLevelSet || m.SampleWindowMs != 1000 || m.NumSamples != 2 {
		t.Fatalf("metrics taken with %s", m.Describe())
	}
	return k
}

func checkNamed(t *testing.T, k runs.Restore, metric string) runs.MetricCheck {
	t.Helper()
	for _, c := range k.MetricChecks() {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no check of %s: %+v", metric, k.MetricChecks())
	return runs.MetricCheck{}
}

// TestRealKafkaStreamsMetricsBesideOurs: a cold restore on the real client
// records Kafka Streams' own restore metrics, and they read what
// restorebench measured: restore-records-rate within metricsRateFactor of
// the restore's records/s, restore-total the records restored,
// restore-remaining-records-total 0, and no figure taken for a known issue.
func TestRealKafkaStreamsMetricsBesideOurs(t *testing.T) {
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.ValueMin, spec.ValueMax, spec.TombstoneRatio = 600_000, 200_000, 2, 50, 150, 0
	k := metricsRestore(t, env, ksFill(t, env, app, spec, "lz4"), app, ksMetricsCase("ks-metrics"))
	rate := checkNamed(t, k, runs.MetricRestoreRecordsRate)
	t.Logf("%s: restore-records-rate %.0f records/s (its window gives %s), restorebench %.0f records/s over %.2f s; %s",
		k.KafkaStreams.Metrics.Describe(), rate.Kafka, rate.WindowText(), k.Phase.RecordsPerSec, k.Phase.Seconds, rate.Note)
	if rate.Verdict == runs.VerdictUnjudged || rate.Kafka < k.Phase.RecordsPerSec/metricsRateFactor || rate.Kafka > k.Phase.RecordsPerSec*metricsRateFactor {
		t.Errorf("restore-records-rate %.0f records/s against restorebench's %.0f: beyond a factor %.0f (%s)", rate.Kafka, k.Phase.RecordsPerSec, metricsRateFactor, rate.Verdict)
	}
	for _, c := range k.MetricChecks() {
		t.Logf("%s (%s): Kafka Streams %s, restorebench %s, its window gives %s: %s", c.Metric, c.What, c.KafkaText(), c.OursText(), c.WindowText(), c.VerdictText())
		bad := c.Verdict == runs.VerdictUnjudged || c.Verdict == runs.VerdictKnown
		// A count must agree; a rate's sample against a window of 1 s
		// may land outside the range a busy machine's timing allows, so
		// its bound is metricsRateFactor above.
		if c.Metric == runs.MetricRestoreTotal || c.Metric == runs.MetricRestoreRemaining {
			bad = bad || c.Verdict != runs.VerdictAgrees
		}
		if bad {
			t.Errorf("%s: %s: Kafka Streams %.0f, restorebench %.0f (%s)", c.Metric, c.Verdict, c.Kafka, c.Ours, c.Note)
		}
	}
	if c := checkNamed(t, k, runs.MetricRestoreTotal); c.Kafka != float64(spec.Records) {
		t.Errorf("restore-total %.0f, want the %d records filled", c.Kafka, spec.Records)
	}
}

// TestRealKafkaStreamsRemainingRecordsOverCompactionGaps: on a log the
// broker's cleaner compacted, Kafka Streams 4.4's
// restore-remaining-records-total still reaches 0 once the restore ended,
// although most offsets held no record (it is counted down by offsets, not
// records: KAFKA-20711 is not seen), and the restore verifies.
func TestRealKafkaStreamsRemainingRecordsOverCompactionGaps(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.ValueMin, spec.ValueMax, spec.TombstoneRatio = 200_000, 20_000, 2, 100, 100, 0
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: config.ChangelogTopic(app, ksStore), Spec: spec, Compression: "none",
		TopicConfigs: map[string]string{"segment.bytes": "1048576", "min.cleanable.dirty.ratio": "0.01", "segment.ms": "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	awaitCompacted(t, env, fill, app, spec.Records/2)
	k := metricsRestore(t, env, fill, app, ksMetricsCase("ks-gaps"))
	m := k.KafkaStreams.Metrics
	gaps := m.OffsetsSpanned - k.Records
	c := checkNamed(t, k, runs.MetricRestoreRemaining)
	t.Logf("restored %d records over %d offsets (%d held none); restore-remaining-records-total after the restore: %.0f (%s)", k.Records, m.OffsetsSpanned, gaps, c.Kafka, c.Verdict)
	if gaps < spec.Records/4 {
		t.Fatalf("only %d of %d offsets held no record: the log was not compacted enough to tell", gaps, m.OffsetsSpanned)
	}
	if c.Verdict != runs.VerdictAgrees || c.Kafka != 0 {
		t.Errorf("restore-remaining-records-total %.0f after the restore over %d gaps: %s (%s)", c.Kafka, gaps, c.Verdict, c.Note)
	}
	if tc := checkNamed(t, k, runs.MetricRestoreTotal); tc.Verdict != runs.VerdictAgrees {
		t.Errorf("restore-total over a compacted log: %s, Kafka Streams %.0f, restorebench %.0f", tc.Verdict, tc.Kafka, tc.Ours)
	}
}

// awaitCompacted waits (60 s at most) until a model restore of the fill
// reads fewer than below records: the cleaner has left gaps.
func awaitCompacted(t *testing.T, env *bench.Env, fill bench.FillOutcome, app string, below int64) {
	t.Helper()
	c := config.DefaultCase()
	c.Name = "probe"
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		rec, err := env.RunCase(context.Background(), fill, app, ksStore, c, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if rec.Records < below {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log cleaner left %d records after 60 s", rec.Records)
		}
	}
}
