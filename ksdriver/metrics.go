package ksdriver

// Metrics is a sample of Kafka Streams' own restore metrics
// (KafkaStreams#metrics(), kstreams/PROTOCOL.md "Kafka Streams' own
// metrics"), sent at the process interval when PropMetrics is true.
type Metrics struct {
	Meta
	// RecordingLevel is the metrics.recording.level the client ran with;
	// RecordingLevelSet says the driver set it (to DEBUG) because sampling
	// was asked and the properties named none.
	RecordingLevel    string `json:"recording_level"`
	RecordingLevelSet bool   `json:"recording_level_set"`
	// SampleWindowMs and NumSamples are metrics.sample.window.ms and
	// metrics.num.samples: the window Kafka's rates average over.
	SampleWindowMs int64 `json:"sample_window_ms"`
	NumSamples     int   `json:"num_samples"`
	// Metrics are the sampled metrics' values, ordered by group, name and
	// tags.
	Metrics []MetricValue `json:"metrics"`
}

// MetricValue is one metric's value, named as Kafka names it.
type MetricValue struct {
	Group string            `json:"group"`
	Name  string            `json:"name"`
	Tags  map[string]string `json:"tags"`
	// Value is nil when the metric's value was not finite.
	Value *float64 `json:"value"`
}

// Kafka Streams' metric groups and names the driver samples (4.4).
const (
	// MetricGroupStateUpdater is the state updater's group (tag thread-id).
	MetricGroupStateUpdater = "stream-state-updater-metrics"
	// MetricGroupTask is the task-level group (tags thread-id, task-id).
	MetricGroupTask = "stream-task-metrics"

	MetricRestoreRecordsRate = "restore-records-rate"
	MetricRestoreCallRate    = "restore-call-rate"
	MetricActiveRestoring    = "active-restoring-tasks"
	MetricStandbyUpdating    = "standby-updating-tasks"
	MetricIdleRatio          = "idle-ratio"
	MetricRestoreTotal       = "restore-total"
	MetricRestoreRate        = "restore-rate"
	MetricUpdateTotal        = "update-total"
	MetricUpdateRate         = "update-rate"
	MetricRestoreRemaining   = "restore-remaining-records-total"
)

// Sum adds up a metric over every tag set it was sampled with (one per
// state updater thread, or per task), leaving out values that were not
// finite; n counts the values added, 0 when the sample has none.
func (m *Metrics) Sum(group, name string) (sum float64, n int) {
	for _, v := range m.Metrics {
		if v.Group == group && v.Name == name && v.Value != nil {
			sum += *v.Value
			n++
		}
	}
	return sum, n
}
