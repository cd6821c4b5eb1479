package config

import (
	"sort"
	"time"
)

// ScenarioCompaction writes the fill to a changelog with the case's
// cleaner settings, lets the log cleaner run, and measures what a cold
// restore then reads against the live keys (restore amplification).
const ScenarioCompaction Scenario = "compaction"

func init() { registerScenario(compactionDef) }

// compactionDef registers the compaction scenario: only the model engine
// runs it; the compaction sweep is not built on the kafka-streams engine.
var compactionDef = ScenarioDef{
	Name:         ScenarioCompaction,
	KindNeeds:    []KindCap{CapCompacted},
	Order:        70,
	Engines:      []Engine{EngineModel},
	EnginesWhy:   "not yet built on the kafka-streams engine",
	PutOnly:      true,
	NeedsCleaner: "measures what the log cleaner leaves",
	Settings: settingsOf[CompactionSettings]{
		key:      "compaction",
		field:    func(c *Case) **CompactionSettings { return &c.Compaction },
		defaults: DefaultCompaction,
		check:    checkCompaction,
		secrets: func(s *CompactionSettings) error {
			return checkNoSecrets("compaction.topic_configs", s.TopicConfigs)
		},
		deepCopy: func(dst, src *CompactionSettings) { dst.TopicConfigs = cloneMap(src.TopicConfigs) },
	},
}

// CompactionSettings are the compaction scenario's: the fill is written to a
// changelog of its own with these cleaner settings, the cleaner runs, and a
// cold restore reads what it left.
type CompactionSettings struct {
	// TopicConfigs are the changelog topic's settings, by Kafka's names:
	// min.cleanable.dirty.ratio (default 0.5), segment.bytes (1 GiB),
	// segment.ms (7 days), min.compaction.lag.ms (0), ... Default none:
	// Kafka's defaults.
	TopicConfigs map[string]string `json:"topic_configs,omitempty" yaml:"topic_configs"`
	// Settle is how long the cleaner gets after the writes before the
	// restore. Default 30s.
	Settle Duration `json:"settle" yaml:"settle"`
}

// SetDefaults fills s with the defaults.
func (s *CompactionSettings) SetDefaults() { *s = *DefaultCompaction() }

// DefaultCompaction returns the compaction scenario's defaults.
func DefaultCompaction() *CompactionSettings {
	return &CompactionSettings{Settle: Duration(30 * time.Second)}
}

// checkCompaction validates a compaction case's settings.
func checkCompaction(_ Case, cs *CompactionSettings) error {
	if cs.Settle < 0 {
		return fieldErr("compaction.settle", "%s is negative", cs.Settle)
	}
	if err := checkDuration("compaction.settle", cs.Settle); err != nil {
		return err
	}
	keys := make([]string, 0, len(cs.TopicConfigs))
	for k := range cs.TopicConfigs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := CheckTopicConfig(k, cs.TopicConfigs[k]); err != nil {
			return fieldErr("compaction.topic_configs."+k, "%v", err)
		}
	}
	return nil
}
