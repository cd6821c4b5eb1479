package runs

import "github.com/restorebench/restorebench/config"

// WarmRecord is what a warm-restart measurement adds to its restore
// record: the step of the sequence (a cold baseline, then restarts with the
// state directory kept) and what changed while the instance was down.
type WarmRecord struct {
	// Step is StepCold (the baseline: a cold restore of the same state),
	// StepWarm (a restart after Changed records were written), or
	// StepFallback (a restart whose committed offsets lay below the log
	// start): the record's Step.Kind.
	Step StepKind `json:"step"`
	// Changed is the records written to the changelog while the instance
	// was down.
	Changed int64 `json:"changed"`
	// WarmTasks restored from their committed offsets; FallbackTasks from
	// the log start, with Fallbacks saying why (one line per task).
	WarmTasks     int      `json:"warm_tasks"`
	FallbackTasks int      `json:"fallback_tasks"`
	Fallbacks     []string `json:"fallbacks,omitempty"`
	// ColdSeconds is the same repeat's cold baseline restore time, so a
	// warm restore reads against the state it resumed.
	ColdSeconds float64 `json:"cold_seconds"`
	// LiveBytes is the key+value bytes of the state the restore ended with.
	LiveBytes int64 `json:"live_bytes"`
	// Stop is how the instance ended before this restart (warm.stop:
	// "clean" or "kill"); empty in the cold step and in records from before
	// the setting.
	Stop string `json:"stop,omitempty"`
	// Behind is, in a warm step, the records restored again from below the
	// offsets the stores had reached when the instance stopped: 0 after a
	// clean stop; after a SIGKILL, how far the durable offsets (a
	// .checkpoint before Kafka Streams 4.3, the store's own from 4.3) lagged.
	Behind int64 `json:"behind,omitempty"`
}

// LagPoint is a standby's lag at T seconds into its step: the records the
// broker held that the standby had not applied.
type LagPoint struct {
	T   float64 `json:"t"`
	Lag int64   `json:"lag"`
}

// StandbyRecord is what a standby measurement adds to its record.
type StandbyRecord struct {
	// Step is StepInitial (the standby's first restore of the changelog,
	// before any writes), StepRate (the changelog written at TargetRate
	// for Seconds), StepMax (a step of the search for the highest
	// sustained rate) or StepPause (the standby stopped for PauseSeconds
	// while writes went on, then restarted): the record's Step.Kind, here
	// too so the standby's figures judge themselves (Judged).
	Step StepKind `json:"step"`
	// TargetRate is the write rate asked for; WrittenRate what the producer
	// reached; AppliedRate what the standby applied, records a second.
	TargetRate  float64 `json:"target_rate"`
	WrittenRate float64 `json:"written_rate"`
	AppliedRate float64 `json:"applied_rate"`
	// Seconds is how long the step wrote.
	Seconds float64 `json:"seconds"`
	// Lag is the standby's lag over the step, and its distribution.
	Lag    []LagPoint `json:"lag"`
	LagP50 int64      `json:"lag_p50"`
	LagP99 int64      `json:"lag_p99"`
	LagMax int64      `json:"lag_max"`
	// LagSamples is how many lag samples the step took while it wrote
	// (the points of Lag within its Seconds); a rate step with fewer than
	// MinLagSamples has no verdict (see Judged).
	LagSamples int `json:"lag_samples"`
	// Sustained says the standby kept up: its lag stayed bounded (within
	// AcceptableRecoveryLag, or not growing over the step's second half)
	// and it caught up within a second of the writes stopping. A rate
	// step without a verdict (Judged false) is not sustained.
	Sustained bool `json:"sustained"`
	// ProducerLimited says the producer wrote below TargetRate: the step
	// measured the standby at WrittenRate, not at the target.
	ProducerLimited bool `json:"producer_limited"`
	// PauseSeconds is how long a "pause" step kept the standby stopped;
	// CatchUpSeconds the time from its restart until its lag was within
	// AcceptableRecoveryLag (Kafka Streams' acceptable.recovery.lag).
	PauseSeconds          float64 `json:"pause_seconds,omitempty"`
	CatchUpSeconds        float64 `json:"catch_up_seconds,omitempty"`
	AcceptableRecoveryLag int64   `json:"acceptable_recovery_lag"`
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

// MinLagSamples is the fewest lag samples a standby's rate step must take
// while it writes for its verdict, kept up or fell behind, to be a
// measurement: fewer say nothing of how the lag moved (one sample at the
// step's start reads 0 whatever follows).
const MinLagSamples = config.MinStandbyLagSamples

// WriteSamples counts the step's lag samples taken while it wrote: the
// points of Lag within its Seconds (what LagSamples records).
func (s *StandbyRecord) WriteSamples() int {
	n := 0
	for _, p := range s.Lag {
		if p.T >= 0 && p.T <= s.Seconds {
			n++
		}
	}
	return n
}

// RateStep says whether the record is a step at a set write rate (StepRate,
// or StepMax of the search for the highest), which its lag samples judge.
func (s *StandbyRecord) RateStep() bool { return s.Step.IsRate() }

// Judged says whether the step's verdict rests on a measurement: a rate
// step needs MinLagSamples lag samples while it wrote, counted from its
// lag series (a record's own LagSamples is not taken on trust); the
// initial restore and the pause steps' catch-up are judged otherwise.
func (s *StandbyRecord) Judged() bool {
	return !s.RateStep() || s.WriteSamples() >= MinLagSamples
}

// KeptUp says the standby sustained the step, as measured: Sustained,
// with a verdict.
func (s *StandbyRecord) KeptUp() bool { return s.Sustained && s.Judged() }
