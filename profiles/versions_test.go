package profiles

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// The versions profile runs each of its scenarios on 3.9.x and every 4.x
// minor, 4.4.0 among them, each version's case of a scenario beside the
// others, on one changelog, alternating its repeats.
func TestVersionsProfile(t *testing.T) {
	p, err := Load("versions")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Interleave || p.Repeats < 2 {
		t.Fatalf("versions: interleave %v repeats %d, want alternating repeats to compare with their spread", p.Interleave, p.Repeats)
	}
	byScenario := map[config.Scenario][]string{}
	kills := 0
	for _, c := range p.Cases {
		if c.Engine != config.EngineKafkaStreams || !strings.HasSuffix(c.Name, "-"+c.KafkaStreamsVersion) {
			t.Fatalf("case %s: engine %s version %s", c.Name, c.Engine, c.KafkaStreamsVersion)
		}
		byScenario[c.Scenario] = append(byScenario[c.Scenario], c.KafkaStreamsVersion)
		if c.Warm != nil && c.Warm.Kills() {
			kills++
		}
	}
	for _, s := range []config.Scenario{config.ScenarioCold, config.ScenarioWarm, config.ScenarioFailover, config.ScenarioStandby} {
		vs := strings.Join(byScenario[s], " ")
		for _, want := range []string{"3.9.", "4.0.", "4.1.", "4.2.", "4.3.", "4.4.0"} {
			if !strings.Contains(vs, want) {
				t.Errorf("scenario %s runs on %s: no %s", s, vs, want)
			}
		}
	}
	if kills != len(byScenario[config.ScenarioCold]) {
		t.Errorf("%d warm cases after a SIGKILL, want one per version", kills)
	}
}

// kafka_streams_versions runs every kafka-streams case on each version,
// named by it, and leaves the model's cases alone; what a version cannot
// run is refused naming the case and the version.
func TestKafkaStreamsVersionsSweep(t *testing.T) {
	p, err := Parse([]byte(`
fill: {size: 1MB}
kafka_streams_versions: [4.0.2, 4.4.0]
cases:
  - name: ks
    engine: kafka-streams
  - name: model
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Cases {
		got = append(got, c.Name+"="+c.KafkaStreamsVersion)
	}
	if strings.Join(got, " ") != "ks-4.0.2=4.0.2 ks-4.4.0=4.4.0 model=" {
		t.Fatalf("cases %v", got)
	}
	for _, tc := range []struct{ yaml, want string }{
		{`
fill: {size: 1MB}
kafka_streams_versions: [4.4.0, 4.0.2]
restore: {engine: kafka-streams, streams: {group.protocol: streams}}
`, "line 3: kafka_streams_versions[1]: case default on 4.0.2: streams.group.protocol: streams on Kafka Streams 4.0.2"},
		{`
fill: {size: 1MB}
kafka_streams_versions: [4.0.2]
cases: [{name: x, engine: kafka-streams, kafka_streams_version: 4.1.2}]
`, "case x names kafka_streams_version 4.1.2 itself"},
		{`
fill: {size: 1MB}
kafka_streams_versions: [4.0.2, 4.0.2]
restore: {engine: kafka-streams}
`, "kafka_streams_versions[1]: 4.0.2 is listed twice"},
		{`
fill: {size: 1MB}
kafka_streams_versions: [4.5.0]
restore: {engine: kafka-streams}
`, `case default on 4.5.0: kafka_streams_version: "4.5.0" is not one of`},
		{`
fill: {size: 1MB}
kafka_streams_versions: []
`, "kafka_streams_versions: want a non-empty list"},
	} {
		_, err := Parse([]byte(tc.yaml), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
