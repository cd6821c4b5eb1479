package profiles

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
)

// sweepVersions runs each kafka-streams case of cases once per version of
// the profile's kafka_streams_versions list n (none when n is unset): case
// c becomes c-<version> for each, in the list's order, in c's place; other
// engines' cases stay as they are. A case that names its own
// kafka_streams_version, a version listed twice or one that cannot run a
// case is an error at the list, naming the case and the version.
func sweepVersions(cases []config.Case, n *yaml.Node) ([]config.Case, error) {
	if n.Kind == 0 {
		return cases, nil
	}
	versions, err := versionList(n)
	if err != nil {
		return nil, err
	}
	var out []config.Case
	for _, c := range cases {
		if c.Engine != config.EngineKafkaStreams {
			out = append(out, c)
			continue
		}
		if c.KafkaStreamsVersion != config.DriverKafkaStreamsVersion {
			// Finalize made an unset version the default, so another was
			// written in the case (or the restore section).
			return nil, &config.FieldError{Path: "kafka_streams_versions", Line: n.Line,
				Msg: fmt.Sprintf("case %s names kafka_streams_version %s itself; a profile with kafka_streams_versions runs "+
					"every kafka-streams case on each of them", c.Name, c.KafkaStreamsVersion)}
		}
		for i, v := range versions {
			vc := c.Clone()
			vc.Name, vc.KafkaStreamsVersion = c.Name+"-"+v, v
			if err := vc.Finalize(); err != nil {
				return nil, &config.FieldError{Path: fmt.Sprintf("kafka_streams_versions[%d]", i), Line: n.Content[i].Line,
					Msg: fmt.Sprintf("case %s on %s: %v", c.Name, v, err)}
			}
			out = append(out, vc)
		}
	}
	if len(out) > MaxCases {
		return nil, &config.FieldError{Path: "kafka_streams_versions", Line: n.Line, Msg: fmt.Sprintf("%d cases (every "+
			"kafka-streams case on each version) is over the %d one run may make", len(out), MaxCases)}
	}
	return out, nil
}

// versionList reads kafka_streams_versions: a non-empty list of versions,
// each once (their validity is each case's check).
func versionList(n *yaml.Node) ([]string, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, &config.FieldError{Path: "kafka_streams_versions", Line: n.Line, Msg: "want a non-empty list of Kafka Streams versions, e.g. [3.9.1, 4.4.0]"}
	}
	seen := map[string]bool{}
	var out []string
	for i, v := range n.Content {
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			return nil, &config.FieldError{Path: fmt.Sprintf("kafka_streams_versions[%d]", i), Line: v.Line, Msg: "want a version such as 4.4.0"}
		}
		if seen[v.Value] {
			return nil, &config.FieldError{Path: fmt.Sprintf("kafka_streams_versions[%d]", i), Line: v.Line, Msg: fmt.Sprintf("%s is listed twice", v.Value)}
		}
		seen[v.Value] = true
		out = append(out, v.Value)
	}
	return out, nil
}
