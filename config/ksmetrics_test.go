package config

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/ksdriver"
)

// TestKafkaStreamsMetricsAsksTheDriver: kafka_streams_metrics asks each
// instance to sample Kafka Streams' own metrics, and nothing else; without
// it the driver is not asked (so the client keeps its recording level).
func TestKafkaStreamsMetricsAsksTheDriver(t *testing.T) {
	c := DefaultCase()
	c.Engine = EngineKafkaStreams
	if _, ok := c.KafkaStreamsProperties()[ksdriver.PropMetrics]; ok {
		t.Fatal("metrics sampled without being asked")
	}
	c.KafkaStreamsMetrics = true
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	p := c.KafkaStreamsProperties()
	if p[ksdriver.PropMetrics] != "true" {
		t.Fatalf("properties %v lack %s=true", p, ksdriver.PropMetrics)
	}
	if _, ok := p["metrics.recording.level"]; ok {
		t.Errorf("the recording level is the driver's to set (and to record): %v", p)
	}
}

// TestKafkaStreamsMetricsOnColdRestoresOnly: a scenario that would not
// record the metrics is refused, naming the setting, rather than run the
// client at DEBUG for nothing.
func TestKafkaStreamsMetricsOnColdRestoresOnly(t *testing.T) {
	c := DefaultCase()
	c.Engine, c.Scenario, c.KafkaStreamsMetrics = EngineKafkaStreams, ScenarioWarm, true
	err := c.Finalize()
	if err == nil || !strings.Contains(err.Error(), "kafka_streams_metrics") || !strings.Contains(err.Error(), "warm") {
		t.Fatalf("a warm case sampling metrics: %v", err)
	}
	m := DefaultCase()
	m.KafkaStreamsMetrics = true // the model engine ignores it, as it does jvm_heap
	if err := m.Finalize(); err != nil {
		t.Fatalf("a model case with kafka_streams_metrics: %v", err)
	}
}
