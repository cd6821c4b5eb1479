package ksdriver

import "testing"

// metricsLine is a metrics event as the driver writes it (Java's
// Double.toString: 1.0E7 is a JSON number too).
const metricsLine = `{"ev":"metrics","instance":"i0","mono_ns":850,"wall_ms":1,"recording_level":"DEBUG","recording_level_set":true,"sample_window_ms":30000,"num_samples":2,` +
	`"metrics":[{"group":"stream-state-updater-metrics","name":"idle-ratio","tags":{"thread-id":"app-1-StateUpdater-1"},"value":null},` +
	`{"group":"stream-state-updater-metrics","name":"restore-records-rate","tags":{"thread-id":"app-1-StateUpdater-1"},"value":1234.5},` +
	`{"group":"stream-state-updater-metrics","name":"restore-records-rate","tags":{"thread-id":"app-1-StateUpdater-2"},"value":1.0E7},` +
	`{"group":"stream-task-metrics","name":"restore-remaining-records-total","tags":{"task-id":"0_0","thread-id":"app-1-StreamThread-1"},"value":0.0}]}`

// TestParseMetrics: a metrics event keeps Kafka's names, the recording
// level and window it ran with, and a non-finite value as no value.
func TestParseMetrics(t *testing.T) {
	m := mustParse(t, metricsLine).(*Metrics)
	if m.Ev != EvMetrics || m.MonoNs != 850 || m.RecordingLevel != "DEBUG" || !m.RecordingLevelSet || m.SampleWindowMs != 30000 || m.NumSamples != 2 {
		t.Fatalf("metrics header: %+v", m)
	}
	if len(m.Metrics) != 4 {
		t.Fatalf("%d metrics, want 4: %+v", len(m.Metrics), m.Metrics)
	}
	idle := m.Metrics[0]
	if idle.Group != MetricGroupStateUpdater || idle.Name != MetricIdleRatio || idle.Tags["thread-id"] != "app-1-StateUpdater-1" || idle.Value != nil {
		t.Errorf("idle-ratio: %+v", idle)
	}
	if sum, n := m.Sum(MetricGroupStateUpdater, MetricRestoreRecordsRate); n != 2 || sum != 1234.5+1e7 {
		t.Errorf("restore-records-rate summed over both state updaters: %v over %d, want %v over 2", sum, n, 1234.5+1e7)
	}
	if _, n := m.Sum(MetricGroupStateUpdater, MetricIdleRatio); n != 0 {
		t.Errorf("a null value was added: n=%d", n)
	}
	if sum, n := m.Sum(MetricGroupTask, MetricRestoreRemaining); n != 1 || sum != 0 {
		t.Errorf("restore-remaining-records-total: %v over %d", sum, n)
	}
	if _, n := m.Sum(MetricGroupTask, MetricRestoreRate); n != 0 {
		t.Errorf("a metric the sample lacks: n=%d", n)
	}
	// An empty sample is an event too (the client had no such metrics yet).
	e := mustParse(t, `{"ev":"metrics","instance":"i0","mono_ns":1,"wall_ms":1,"recording_level":"INFO","recording_level_set":false,"sample_window_ms":1000,"num_samples":2,"metrics":[]}`).(*Metrics)
	if len(e.Metrics) != 0 || e.RecordingLevel != "INFO" {
		t.Errorf("empty sample: %+v", e)
	}
	// Wrong types are an error, not a silent zero.
	if _, err := Parse([]byte(`{"ev":"metrics","instance":"i0","mono_ns":1,"wall_ms":1,"metrics":[{"group":"g","name":"n","value":"fast"}]}`)); err == nil {
		t.Error("a metric value that is a string parsed")
	}
}
