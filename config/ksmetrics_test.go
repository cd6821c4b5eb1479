package config

import (
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
