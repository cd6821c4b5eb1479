package runs

import "github.com/restorebench/restorebench/config"

// EngineOf is the engine a restore's settings ran on; files from before
// engines were recorded hold model restores.
func EngineOf(c config.Case) config.Engine {
	if c.Engine == "" {
		return config.EngineModel
	}
	return c.Engine
}

// RestoringThreads is how many stream threads restored the record's tasks
// at once: num.stream.threads (at least 1), and no more than the
// changelog's partitions when the record knows them: a partition is one
// task, restored by one thread, so threads beyond the partitions add
// nothing. Every per-thread restore rate divides by it.
func (r Restore) RestoringThreads() int {
	t := max(1, r.Params.Threads)
	if r.Partitions > 0 {
		t = min(t, r.Partitions)
	}
	return t
}

// PerThread is a rate the record measured (records or bytes a second)
// per restoring thread.
func (r Restore) PerThread(rate float64) float64 {
	return rate / float64(r.RestoringThreads())
}

// KafkaStreamsVersionOf is the Kafka Streams version record r ran: the
// instance's own word (its hello) when it said one, else the case's
// kafka_streams_version on the kafka-streams engine ("4.4.0" for records
// from before the setting was written); "" on the model engine.
func KafkaStreamsVersionOf(r Restore) string {
	if EngineOf(r.Params) != config.EngineKafkaStreams {
		return ""
	}
	if r.KafkaStreams != nil && r.KafkaStreams.Version != "" {
		return r.KafkaStreams.Version
	}
	if r.Params.KafkaStreamsVersion != "" {
		return r.Params.KafkaStreamsVersion
	}
	return config.DriverKafkaStreamsVersion
}

// KafkaStreamsVersions lists the Kafka Streams versions the records ran,
// in first-seen order (none for model-only runs).
func KafkaStreamsVersions(restores []Restore) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range restores {
		if v := KafkaStreamsVersionOf(r); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
