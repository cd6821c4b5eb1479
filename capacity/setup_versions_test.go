package capacity

import (
	"testing"

	"github.com/restorebench/restorebench/config"
)

// A kafka-streams case on the default version (written in, or absent as in
// records from before the setting) runs Kafka Streams' defaults; another
// version is a difference the planner names.
func TestKafkaStreamsVersionIsASettingOnlyWhenNotTheDefault(t *testing.T) {
	c := config.DefaultCase()
	c.Engine = config.EngineKafkaStreams
	if !IsKafkaStreamsDefault(c) {
		t.Errorf("no version: differences %v", Differences(c))
	}
	c.KafkaStreamsVersion = config.DriverKafkaStreamsVersion
	if !IsKafkaStreamsDefault(c) {
		t.Errorf("4.4.0: differences %v", Differences(c))
	}
	c.KafkaStreamsVersion = "3.9.1"
	if d := Differences(c); len(d) != 1 || d[0] != "kafka_streams_version=3.9.1" {
		t.Errorf("3.9.1: differences %v", d)
	}
}
