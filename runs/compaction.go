package runs

import "github.com/restorebench/restorebench/config"

// StepCompaction is the compaction scenario's one step: a compaction
// measurement.
const StepCompaction StepKind = "compaction"

func init() {
	registerRecord(recordDef{
		scenario: config.ScenarioCompaction,
		kinds:    []StepKind{StepCompaction},
		holds:    func(r *Restore) bool { return r.Compaction != nil },
		example:  compactionExample,
		redact:   redactCompaction,
	})
}

// CompactionRecord is what a compaction measurement adds to its record: how
// much of what was written the log cleaner left for a restore to read.
type CompactionRecord struct {
	// TopicConfigs are the changelog's cleaner settings.
	TopicConfigs map[string]string `json:"topic_configs,omitempty"`
	// Written is the records written; Read the records the restore read
	// (what the cleaner left); LiveKeys the keys live afterwards.
	Written  int64 `json:"written"`
	Read     int64 `json:"read"`
	LiveKeys int64 `json:"live_keys"`
	// Amplification is Read over LiveKeys: records a restore reads per live
	// key. 1 is a fully compacted log.
	Amplification float64 `json:"amplification"`
	// Bound is the most a restore could read per live key with these
	// settings (see the scenario): the planner's default when nothing was
	// measured, labelled as such.
	Bound float64 `json:"bound"`
	// LogBytesAfterWrite and LogBytesBeforeRestore are the topic's size on
	// the broker after the writes and after the cleaner had SettleSeconds.
	LogBytesAfterWrite    int64   `json:"log_bytes_after_write"`
	LogBytesBeforeRestore int64   `json:"log_bytes_before_restore"`
	SettleSeconds         float64 `json:"settle_seconds"`
	// CleanedBy says who cleaned: CleanedByKafka (the broker's log
	// cleaner) or CleanedByKfake (the embedded broker, compacted once on
	// request). Its JSON name is "cleaner".
	CleanedBy string `json:"cleaner"`
}

// Who cleaned a compaction measurement's log (CompactionRecord.CleanedBy).
const (
	// CleanedByKafka is a Kafka broker's log cleaner, which applies the
	// topic's cleaner settings.
	CleanedByKafka = "kafka"
	// CleanedByKfake is the embedded broker (kfake), which compacts all it
	// can once on request, whatever the settings.
	CleanedByKfake = "kfake"
)

// redactCompaction passes a compaction case's topic configs, as its
// settings and its record hold them, through config.Redact.
func redactCompaction(x Restore) Restore {
	if c := x.Params.Compaction; c != nil {
		if m := config.Redact(c.TopicConfigs); !sameMap(m, c.TopicConfigs) {
			cc := *c
			cc.TopicConfigs = m
			x.Params.Compaction = &cc
		}
	}
	if c := x.Compaction; c != nil {
		if m := config.Redact(c.TopicConfigs); !sameMap(m, c.TopicConfigs) {
			cc := *c
			cc.TopicConfigs = m
			x.Compaction = &cc
		}
	}
	return x
}

// exampleAmplifications are the example compaction cases' measured restore
// amplification: Kafka's default cleaner settings, and aggressive ones
// (exampleAggressiveCleaner).
var exampleAmplifications = map[string]float64{"compaction-kafka-defaults": 6.0, "compaction-aggressive": 1.35}

// exampleAggressiveCleaner are the aggressive example case's cleaner
// settings.
var exampleAggressiveCleaner = map[string]string{"segment.bytes": "8388608", "min.cleanable.dirty.ratio": "0.1"}

// compactionExample is two compaction cases, two repeats each.
func compactionExample(kit ExampleKit) []Restore {
	var out []Restore
	for _, c := range []string{"compaction-kafka-defaults", "compaction-aggressive"} {
		for rep := 1; rep <= 2; rep++ {
			out = append(out, compactionExampleRecord(kit, c, rep))
		}
	}
	return out
}

// compactionExampleRecord is one compaction case's repeat: the fill written
// again with the case's cleaner settings and restored, reading
// exampleAmplifications[c] records per live key.
func compactionExampleRecord(kit ExampleKit, c string, rep int) Restore {
	fill := kit.Fill()
	p := kit.Case(c, config.ScenarioCompaction, config.EngineModel)
	bound := 6.05
	if c == "compaction-aggressive" {
		p.Compaction.TopicConfigs, bound = exampleAggressiveCleaner, 1.9
	}
	keys := int64(float64(fill.Records) / 6.05) // the most the default settings leave: 6.05 records per live key
	amp := exampleAmplifications[c] * (1 + 0.01*float64(rep-1))
	read := int64(float64(keys) * amp)
	rb := kit.RecordBytes()
	rec := kit.Record(exampleStep(p, StepCompaction), rep, p, 0.5+float64(read*rb)/100e6, read, read*rb)
	rec.Compaction = &CompactionRecord{TopicConfigs: p.Compaction.TopicConfigs, Written: fill.Records, Read: read, LiveKeys: keys,
		Amplification: float64(read) / float64(keys), Bound: bound, LogBytesAfterWrite: fill.Bytes, LogBytesBeforeRestore: read * rb,
		SettleSeconds: 15, CleanedBy: CleanedByKafka}
	return rec
}
