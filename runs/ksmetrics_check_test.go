package runs

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/measure"
)

// steadyRestore is a restore of 1,000,000 records in 10 s at an even
// 100,000 records/s, in 1,000 batches, with Kafka Streams' metrics sampled
// every second from t = 1 to 11 by sample(t) (one value per metric and tag
// set, two tasks for the task-level ones).
func steadyRestore(level string, windowMs int64, sample func(name string, t float64) float64) Restore {
	r := Restore{Case: "ks", Repeat: 1, Phase: &RestorePhase{Seconds: 10, TotalSeconds: 10, RecordsPerSec: 100_000}, Records: 1_000_000,
		KafkaStreams: &KafkaStreamsRun{RestoreBatches: 1000}}
	for i := 1; i <= 10; i++ {
		r.Series = append(r.Series, measure.Point{T: float64(i), Records: 100_000})
	}
	m := &KafkaStreamsMetrics{RecordingLevel: level, SampleWindowMs: windowMs, NumSamples: 2, IntervalSeconds: 1, OffsetsSpanned: 1_000_000}
	add := func(group, name string, tags map[string]string, share float64) {
		s := MetricSeries{Group: group, Name: name, Tags: tags}
		for t := 1.0; t <= 11; t++ {
			v := sample(name, t) * share
			s.Points = append(s.Points, MetricPoint{T: t, Value: &v})
		}
		m.Series = append(m.Series, s)
	}
	add(MetricGroupStateUpdater, MetricRestoreRecordsRate, map[string]string{"thread-id": "a-StateUpdater-1"}, 1)
	for _, task := range []string{"0_0", "0_1"} {
		tags := map[string]string{"thread-id": "a-StreamThread-1", "task-id": task}
		for _, name := range []string{MetricRestoreRate, MetricRestoreTotal, MetricRestoreRemaining} {
			add(MetricGroupTask, name, tags, 0.5)
		}
	}
	r.KafkaStreams.Metrics = m
	return r
}

// kafka44 is what Kafka Streams 4.4 reports over steadyRestore with 2
// windows of w seconds: rates as its Rate computes them from the records
// (its first sample starting with the restore), restore-total the records
// so far, restore-remaining-records-total the offsets left.
func kafka44(w float64) func(string, float64) float64 {
	cum := func(t float64) float64 { return 100_000 * min(max(t, 0), 10) }
	return func(name string, t float64) float64 {
		switch name {
		case MetricRestoreRecordsRate, MetricRestoreRate:
			o := max(math.Floor(t/w)-1, 0) * w // the oldest of 2 retained samples
			return (cum(t) - cum(o)) / paddedSpan(t-o, w, 2)
		case MetricRestoreTotal:
			return cum(t)
		}
		return 1_000_000 - cum(t)
	}
}

func checkOf(t *testing.T, checks []MetricCheck, metric string) MetricCheck {
	t.Helper()
	for _, c := range checks {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no check of %s in %+v", metric, checks)
	return MetricCheck{}
}

// TestMetricChecksAgreeWithAShortWindow: with a window shorter than the
// restore, Kafka Streams 4.4's figures read what restorebench measured.
func TestMetricChecksAgreeWithAShortWindow(t *testing.T) {
	checks := steadyRestore("DEBUG", 1000, kafka44(1)).MetricChecks()
	if len(checks) != 4 {
		t.Fatalf("%d checks, want 4: %+v", len(checks), checks)
	}
	for _, c := range checks {
		if c.Verdict != VerdictAgrees || c.Flagged() {
			t.Errorf("%s: %s (%s), want agrees: Kafka %v, ours %v", c.Metric, c.Verdict, c.Note, c.Kafka, c.Ours)
		}
	}
	if c := checkOf(t, checks, MetricRestoreRecordsRate); c.Kafka != 100_000 || !c.HasWindow || c.WindowLo > 100_000 || c.WindowHi < 100_000 {
		t.Errorf("restore-records-rate: %+v", c)
	}
	if c := checkOf(t, checks, MetricRestoreTotal); c.Kafka != 1_000_000 || c.Ours != 1_000_000 {
		t.Errorf("restore-total summed over the tasks: %+v", c)
	}
}

// TestMetricChecksReadTheFinerCount: with a short window, the window's
// expectation comes from restorebench's finer count (Restored) when the
// record holds one: a burst the 1 s series spreads over the restore is
// where the finer count puts it, so Kafka's reading of it is not taken
// for a disagreement.
func TestMetricChecksReadTheFinerCount(t *testing.T) {
	// Every record in the restore's last 0.1 s, as Kafka's rate over 2
	// windows of 1 s reads it.
	cum := func(t float64) float64 { return 1e6 * min(max(t-9.9, 0)/0.1, 1) }
	burst := func(name string, t float64) float64 {
		if name == MetricRestoreRecordsRate || name == MetricRestoreRate {
			o := max(math.Floor(t)-1, 0)
			return (cum(t) - cum(o)) / paddedSpan(t-o, 1, 2)
		}
		return kafka44(1)(name, t)
	}
	r := steadyRestore("DEBUG", 1000, burst)
	if c := checkOf(t, r.MetricChecks(), MetricRestoreRecordsRate); c.Verdict != VerdictDisagrees {
		t.Errorf("against the 1 s series, a burst of %.0f records/s: %s (%v–%v)", c.Kafka, c.Verdict, c.WindowLo, c.WindowHi)
	}
	m := r.KafkaStreams.Metrics
	m.RestoredEverySeconds = 0.1
	for i := 1; i <= 100; i++ {
		m.Restored = append(m.Restored, measure.Point{T: float64(i) / 10})
	}
	m.Restored[99].Records = 1_000_000
	c := checkOf(t, r.MetricChecks(), MetricRestoreRecordsRate)
	if c.Verdict != VerdictWindow || math.Abs(c.Kafka-1e6) > 1 || c.WindowHi < 1e6-1 {
		t.Errorf("against the finer count: %s, Kafka %v, window %v–%v", c.Verdict, c.Kafka, c.WindowLo, c.WindowHi)
	}
	if err := m.check(); err != nil {
		t.Errorf("a finer count refused: %v", err)
	}
}

// TestMetricChecksNameTheWindow: Kafka's default window (2 × 30 s) makes a
// 10 s restore's rate read at a quarter of it; the check says so, as the
// window's doing, not as a disagreement of unknown cause.
func TestMetricChecksNameTheWindow(t *testing.T) {
	c := checkOf(t, steadyRestore("DEBUG", 30_000, kafka44(30)).MetricChecks(), MetricRestoreRecordsRate)
	// At t = 10 s, the first sample at the restore's end: 1,000,000
	// records over 10 s and one 30 s window of padding.
	if want := 1e6 / 40; math.Abs(c.Kafka-want) > 1 || c.Verdict != VerdictWindow || !c.Flagged() {
		t.Fatalf("restore-records-rate: %s, Kafka %v (want %v): %+v", c.Verdict, c.Kafka, want, c)
	}
	if !strings.Contains(c.Note, "2 × 30 s window") || !strings.Contains(c.Note, "at least 30 s, longer than the 10.0 s restore") {
		t.Errorf("the note does not say why: %q", c.Note)
	}
}

// TestMetricChecksNameKnownIssues: figures as the clients before the fixes
// gave them are matched to their issues: restore-rate and restore-total
// counting batches (KAFKA-20877), restore-remaining-records-total stuck at
// the offsets that held no record (KAFKA-20711).
func TestMetricChecksNameKnownIssues(t *testing.T) {
	good := kafka44(1)
	old := func(name string, t float64) float64 {
		switch name {
		case MetricRestoreRate, MetricRestoreTotal:
			return good(name, t) / 1000 // one per batch of 1000 records
		case MetricRestoreRemaining:
			// Started at the offsets, counted down by records: the
			// 50,000 offsets without a record stay.
			return good(name, t) + 50_000
		}
		return good(name, t)
	}
	r := steadyRestore("DEBUG", 1000, old)
	r.KafkaStreams.Metrics.OffsetsSpanned = 1_050_000
	checks := r.MetricChecks()
	for _, want := range []struct{ metric, issue string }{
		{MetricRestoreRate, IssueRateBatches}, {MetricRestoreTotal, IssueRateBatches}, {MetricRestoreRemaining, IssueRemainingGaps},
	} {
		c := checkOf(t, checks, want.metric)
		if c.Verdict != VerdictKnown || c.Known != want.issue || !strings.Contains(c.Note, want.issue) {
			t.Errorf("%s: %s %q (%s), want the known issue %s", want.metric, c.Verdict, c.Known, c.Note, want.issue)
		}
	}
	if c := checkOf(t, checks, MetricRestoreRecordsRate); c.Verdict != VerdictAgrees {
		t.Errorf("the state updater's rate counted records all along: %+v", c)
	}
}

// TestMetricChecksFlagDisagreements: a figure off for no known reason is
// DISAGREES, and a DEBUG metric on a client at INFO is not judged.
func TestMetricChecksFlagDisagreements(t *testing.T) {
	good := kafka44(1)
	off := func(name string, t float64) float64 {
		switch name {
		case MetricRestoreRecordsRate:
			return good(name, t) * 1.5
		case MetricRestoreTotal:
			return good(name, t) - 7
		case MetricRestoreRemaining:
			return 3
		}
		return good(name, t)
	}
	checks := steadyRestore("DEBUG", 1000, off).MetricChecks()
	for _, m := range []string{MetricRestoreRecordsRate, MetricRestoreTotal, MetricRestoreRemaining} {
		if c := checkOf(t, checks, m); c.Verdict != VerdictDisagrees || !c.Flagged() || c.Note == "" {
			t.Errorf("%s: %s (%s), want DISAGREES", m, c.Verdict, c.Note)
		}
	}
	info := steadyRestore("INFO", 1000, func(name string, t float64) float64 {
		if name == MetricRestoreRate || name == MetricRestoreTotal {
			return 0 // registered, never recorded below DEBUG
		}
		return good(name, t)
	}).MetricChecks()
	for _, m := range []string{MetricRestoreRate, MetricRestoreTotal} {
		if c := checkOf(t, info, m); c.Verdict != VerdictUnjudged || c.Flagged() || !strings.Contains(c.Note, "DEBUG") {
			t.Errorf("%s at INFO: %s (%s), want not judged", m, c.Verdict, c.Note)
		}
	}
	if c := checkOf(t, info, MetricRestoreRemaining); c.Verdict != VerdictAgrees {
		t.Errorf("restore-remaining-records-total is recorded at INFO: %+v", c)
	}
}

// TestMetricChecksNeedSamples: no checks without metrics (every older
// record), and no verdict on a total without a sample after the end.
func TestMetricChecksNeedSamples(t *testing.T) {
	if c := (Restore{KafkaStreams: &KafkaStreamsRun{}}).MetricChecks(); c != nil {
		t.Errorf("checks of a record without metrics: %+v", c)
	}
	r := steadyRestore("DEBUG", 1000, kafka44(1))
	for i := range r.KafkaStreams.Metrics.Series {
		s := &r.KafkaStreams.Metrics.Series[i]
		s.Points = s.Points[:5] // t = 1..5 s of a 10 s restore
	}
	for _, m := range []string{MetricRestoreTotal, MetricRestoreRemaining} {
		if c := checkOf(t, r.MetricChecks(), m); c.Verdict != VerdictUnjudged {
			t.Errorf("%s without a sample after the end: %s", m, c.Verdict)
		}
	}
}

// TestKafkaStreamsMetricsLoad: a record with metrics survives a save and a
// load, a null value included; one whose points run backwards is refused.
func TestKafkaStreamsMetricsLoad(t *testing.T) {
	r := steadyRestore("DEBUG", 1000, kafka44(1))
	r.KafkaStreams.Metrics.Series[0].Points[0].Value = nil
	b, err := json.Marshal(r.KafkaStreams)
	if err != nil {
		t.Fatal(err)
	}
	var back KafkaStreamsRun
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m := back.Metrics
	if m == nil || len(m.Series) != 7 || m.Series[0].Points[0].Value != nil || m.check() != nil {
		t.Fatalf("metrics after a round trip: %+v", m)
	}
	if !strings.Contains(string(b), `"recording_level_set_by_restorebench":false`) {
		t.Errorf("the recording level's origin is not recorded: %s", b)
	}
	m.Series[0].Points[1].T = -1
	if err := m.check(); err == nil {
		t.Error("points out of time order were accepted")
	}
}
