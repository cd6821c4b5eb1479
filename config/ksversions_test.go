package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// versionNumbers parses MAJOR.MINOR.PATCH.
func versionNumbers(t *testing.T, v string) [3]int {
	t.Helper()
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		t.Fatalf("version %q is not MAJOR.MINOR.PATCH", v)
	}
	var out [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("version %q: %v", v, err)
		}
		out[i] = n
	}
	return out
}

func atLeast(n [3]int, major, minor int) bool {
	return n[0] > major || (n[0] == major && n[1] >= minor)
}

// TestKafkaStreamsVersionTable: the table runs oldest to newest, each
// version once, holds the default and 3.9.x and every 4.x minor up to the
// default, and says of each version what the features' releases imply.
func TestKafkaStreamsVersionTable(t *testing.T) {
	names := KafkaStreamsVersionNames()
	if !slices.Contains(names, DriverKafkaStreamsVersion) || names[len(names)-1] != DriverKafkaStreamsVersion {
		t.Fatalf("versions %v: want the default %s, last", names, DriverKafkaStreamsVersion)
	}
	minors := map[string]bool{}
	var prev [3]int
	for i, v := range KafkaStreamsVersions {
		n := versionNumbers(t, v.Version)
		if i > 0 && !(n[0] > prev[0] || n[0] == prev[0] && (n[1] > prev[1] || n[1] == prev[1] && n[2] > prev[2])) {
			t.Errorf("%s follows %v: want oldest first, each once", v.Version, prev)
		}
		prev = n
		minors[strconv.Itoa(n[0])+"."+strconv.Itoa(n[1])] = true
		for f, since := range map[KSFeature][2]int{
			FeatureStandbyListener: {3, 7}, FeatureStreamsProtocol: {4, 1},
			FeatureCloseOptions: {4, 2}, FeatureStoreOffsets: {4, 3},
		} {
			if v.Has(f) != atLeast(n, since[0], since[1]) {
				t.Errorf("%s: has %q = %v, but it came in %d.%d", v.Version, f, v.Has(f), since[0], since[1])
			}
		}
	}
	for _, m := range []string{"3.9", "4.0", "4.1", "4.2", "4.3", "4.4"} {
		if !minors[m] {
			t.Errorf("no %s.x in %v", m, names)
		}
	}
}

// TestKafkaStreamsVersionAccepted: every version of the table runs a
// kafka-streams case, and an unset version becomes the default so that the
// record names it; a model case keeps none.
func TestKafkaStreamsVersionAccepted(t *testing.T) {
	for _, v := range KafkaStreamsVersionNames() {
		c := ksCase()
		c.KafkaStreamsVersion = v
		if err := c.Finalize(); err != nil || c.KafkaStreamsVersion != v {
			t.Errorf("kafka_streams_version %s: %v (kept %q)", v, err, c.KafkaStreamsVersion)
		}
	}
	c := ksCase()
	if err := c.Finalize(); err != nil || c.KafkaStreamsVersion != "4.4.0" {
		t.Errorf("unset on kafka-streams: %v, version %q, want 4.4.0", err, c.KafkaStreamsVersion)
	}
	m := DefaultCase()
	if err := m.Finalize(); err != nil || m.KafkaStreamsVersion != "" {
		t.Errorf("model: %v, version %q, want none", err, m.KafkaStreamsVersion)
	}
}

// TestKafkaStreamsVersionRefusals: what a version cannot run is refused
// when the case is read, naming the field, the version and why.
func TestKafkaStreamsVersionRefusals(t *testing.T) {
	// A version before StandbyUpdateListener, added for the test: the
	// table starts at 3.9.1, which has it.
	old := KafkaStreamsVersions
	t.Cleanup(func() { KafkaStreamsVersions = old })
	KafkaStreamsVersions = append([]KSVersion{{Version: "3.6.2"}}, old...)

	for _, tc := range []struct {
		name  string
		set   func(*Case)
		path  string
		wants []string
	}{
		{"unknown", func(c *Case) { c.KafkaStreamsVersion = "3.8.0" }, "kafka_streams_version",
			[]string{`"3.8.0" is not one of`, "3.9.1", "4.0.2", "4.4.0", "default 4.4.0"}},
		{"not a version", func(c *Case) { c.KafkaStreamsVersion = "latest" }, "kafka_streams_version", []string{`"latest" is not one of`}},
		{"model engine", func(c *Case) { c.Engine, c.KafkaStreamsVersion = EngineModel, "4.0.2" }, "kafka_streams_version",
			[]string{`"4.0.2"`, "model engine runs no Kafka Streams"}},
		{"streams protocol before 4.1", func(c *Case) {
			c.KafkaStreamsVersion = "4.0.2"
			c.Streams = map[string]string{"group.protocol": "Streams"}
		}, "streams.group.protocol", []string{"Kafka Streams 4.0.2", "KIP-1071", "from 4.1", "classic protocol only"}},
		{"standby listener before 3.7", func(c *Case) {
			c.KafkaStreamsVersion, c.Scenario = "3.6.2", ScenarioStandby
		}, "scenario", []string{"standby on Kafka Streams 3.6.2", "StandbyUpdateListener", "from 3.7"}},
		{"failover before 3.7", func(c *Case) {
			c.KafkaStreamsVersion, c.Scenario = "3.6.2", ScenarioFailover
		}, "scenario", []string{"failover on Kafka Streams 3.6.2", "StandbyUpdateListener"}},
	} {
		c := ksCase()
		tc.set(&c)
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%s: got %v, want an error at %s", tc.name, err, tc.path)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
	// What the versions can run is accepted.
	for _, ok := range []func(*Case){
		func(c *Case) {
			c.KafkaStreamsVersion, c.Streams = "4.1.2", map[string]string{"group.protocol": "streams"}
		},
		func(c *Case) {
			c.KafkaStreamsVersion, c.Streams = "4.0.2", map[string]string{"group.protocol": "classic"}
		},
		func(c *Case) { c.KafkaStreamsVersion, c.Scenario = "3.9.1", ScenarioStandby },
		func(c *Case) { c.KafkaStreamsVersion, c.Scenario = "3.6.2", ScenarioWarm },
	} {
		c := ksCase()
		ok(&c)
		if err := c.Finalize(); err != nil {
			t.Errorf("%s on %s (%v): %v", c.Scenario, c.KafkaStreamsVersion, c.Streams, err)
		}
	}
}
