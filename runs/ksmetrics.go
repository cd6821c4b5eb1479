package runs

import (
	"fmt"
	"sort"
	"time"

	"github.com/restorebench/restorebench/measure"
)

// KafkaStreamsMetrics are Kafka Streams' own restore metrics as the client
// reported them during one restore on the kafka-streams engine (a case with
// kafka_streams_metrics: true), sampled by the driver through
// KafkaStreams#metrics() at its process interval and kept under Kafka's
// names (group, name, tags): what a user's dashboard shows, recorded beside
// restorebench's own measurement of the same restore so that the two can be
// read against each other (MetricChecks).
type KafkaStreamsMetrics struct {
	// RecordingLevel is the metrics.recording.level the client ran with;
	// RecordingLevelSet says restorebench set it (to DEBUG, which the
	// task-level restore-rate and update-rate need) because the case's
	// streams named none.
	RecordingLevel    string `json:"recording_level"`
	RecordingLevelSet bool   `json:"recording_level_set_by_restorebench"`
	// SampleWindowMs and NumSamples are metrics.sample.window.ms and
	// metrics.num.samples: Kafka's rates average over NumSamples windows
	// of SampleWindowMs, and never over less than NumSamples-1 of them.
	SampleWindowMs int64 `json:"sample_window_ms"`
	NumSamples     int   `json:"num_samples"`
	// IntervalSeconds is how often the driver sampled.
	IntervalSeconds float64 `json:"interval_seconds"`
	// OffsetsSpanned is restorebench's count, from the restore listener's
	// start and end offsets summed over the partitions restored, of the
	// offsets the restore covered: what restore-remaining-records-total
	// starts from. Offsets that held no record to restore (compacted away,
	// transaction markers) are OffsetsSpanned minus Restore.Records.
	OffsetsSpanned int64 `json:"offsets_spanned"`
	// Restored is restorebench's own count of the records restored (from
	// the restore listener's batches) in intervals of RestoredEverySeconds,
	// when Kafka's window is short enough (under 10 s) that the record's
	// 1 s Series cannot say what the window held; nil otherwise (Series
	// serves).
	Restored             []measure.Point `json:"restored,omitempty"`
	RestoredEverySeconds float64         `json:"restored_every_seconds,omitempty"`
	// Series are the sampled metrics, one per group, name and tags, from
	// the last sample before the restore started to the first one after
	// it ended.
	Series []MetricSeries `json:"series"`
}

// MetricSeries is one Kafka Streams metric over a restore.
type MetricSeries struct {
	Group string            `json:"group"`
	Name  string            `json:"name"`
	Tags  map[string]string `json:"tags,omitempty"`
	// Points are in time order.
	Points []MetricPoint `json:"points"`
}

// MetricPoint is a metric's value at T seconds from the restore's start
// (the first restore_start, as Restore.Series counts; negative before
// it). Value is nil when the metric's value was not a finite number.
type MetricPoint struct {
	T     float64  `json:"t"`
	Value *float64 `json:"value"`
}

// Kafka Streams' metric groups and names (4.4) the comparisons read.
const (
	MetricGroupStateUpdater  = "stream-state-updater-metrics"
	MetricGroupTask          = "stream-task-metrics"
	MetricRestoreRecordsRate = "restore-records-rate"
	MetricRestoreRate        = "restore-rate"
	MetricRestoreTotal       = "restore-total"
	MetricRestoreRemaining   = "restore-remaining-records-total"
)

// RestoredResolution is how finely restorebench counts its own restored
// records beside Kafka's metrics for a window of windowMs (one tenth of
// it, at least 100 ms); a second or more means the record's Series does.
func RestoredResolution(windowMs int64) time.Duration {
	return max(time.Duration(windowMs)*time.Millisecond/10, 100*time.Millisecond)
}

// TotalPoint is a metric's value summed over its tag sets (the state
// updater threads, or the tasks) at one sample.
type TotalPoint struct {
	T, Value float64
	// N counts the tag sets that had a value.
	N int
}

// Total sums a metric over every tag set it was sampled with, sample by
// sample (the samples of one event share their T), in time order; samples
// where it had no value are left out.
func (m *KafkaStreamsMetrics) Total(group, name string) []TotalPoint {
	at := map[float64]*TotalPoint{}
	for _, s := range m.Series {
		if s.Group != group || s.Name != name {
			continue
		}
		for _, p := range s.Points {
			if p.Value == nil {
				continue
			}
			tp := at[p.T]
			if tp == nil {
				tp = &TotalPoint{T: p.T}
				at[p.T] = tp
			}
			tp.Value += *p.Value
			tp.N++
		}
	}
	out := make([]TotalPoint, 0, len(at))
	for _, tp := range at {
		out = append(out, *tp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// Window describes the window Kafka's rates average over: "2 × 30 s".
func (m *KafkaStreamsMetrics) Window() string {
	return fmt.Sprintf("%d × %s s", m.NumSamples, trimFloat(float64(m.SampleWindowMs)/1000))
}

// check refuses figures no sample gives: a window of no time, samples out
// of time order, a series without a name.
func (m *KafkaStreamsMetrics) check() error {
	if m.SampleWindowMs <= 0 || m.NumSamples < 1 || m.IntervalSeconds < 0 || m.OffsetsSpanned < 0 {
		return fmt.Errorf("kafka_streams.metrics: window %d ms × %d, interval %v s, offsets %d: not what a client samples with",
			m.SampleWindowMs, m.NumSamples, m.IntervalSeconds, m.OffsetsSpanned)
	}
	for _, p := range m.Restored {
		if err := plausible("kafka_streams.metrics.restored t", p.T, MaxPlausibleSeconds); err != nil {
			return err
		}
		if err := plausible("kafka_streams.metrics.restored records", float64(p.Records), MaxPlausibleRecords); err != nil {
			return err
		}
	}
	for _, s := range m.Series {
		if s.Group == "" || s.Name == "" {
			return fmt.Errorf("kafka_streams.metrics: a series without a group or name")
		}
		for i, p := range s.Points {
			if err := plausible("kafka_streams.metrics "+s.Name+" t", max(p.T, -p.T), MaxPlausibleSeconds); err != nil {
				return err
			}
			if i > 0 && p.T < s.Points[i-1].T {
				return fmt.Errorf("kafka_streams.metrics %s: points out of time order", s.Name)
			}
		}
	}
	return nil
}

// trimFloat formats x without trailing zeros: 30, 0.5.
func trimFloat(x float64) string { return fmt.Sprintf("%g", x) }

// Describe says how the metrics were taken: "metrics.recording.level=DEBUG
// (set by restorebench), rates over 2 × 30 s windows, sampled every 1.0 s".
func (m *KafkaStreamsMetrics) Describe() string {
	by := "the case's"
	if m.RecordingLevelSet {
		by = "set by restorebench"
	}
	return fmt.Sprintf("metrics.recording.level=%s (%s), rates over %s windows, sampled every %.1f s",
		m.RecordingLevel, by, m.Window(), m.IntervalSeconds)
}
