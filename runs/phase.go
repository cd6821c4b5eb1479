package runs

import (
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// RestorePhase is a restore's own time and what it cost, on either engine
// (Restore.Phase, "restore" in results.json). A record carries one only
// when it measured a restore: a cold restore, a warm restart, a
// compaction's restore, a standby's initial restore. A scenario measured
// by its gap (a failover kill, a scale-out, a rolling restart) and a
// standby's following steps carry none, and neither does a restore that
// failed before it was measured: absent, never zero.
type RestorePhase struct {
	// Seconds is the restore phase. On the model it runs from opening the
	// stores to the strategy's end (Model.LoadSeconds plus
	// Model.FinishSeconds); on kafka-streams from the instance's first
	// restore_start to its last restore_end (CLOCK_MONOTONIC, both on the
	// instance).
	Seconds float64 `json:"seconds"`
	// TotalSeconds is the time until the store was restored and serving:
	// Seconds plus the model's ready phase where it was measured
	// (Model.Ready), else Seconds (kafka-streams measures no ready phase:
	// its stores live in the JVM).
	TotalSeconds float64 `json:"total_seconds"`
	// RecordsPerSec and MBPerSec are the record's Records and Bytes over
	// Seconds.
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	// CPUSeconds is the restoring process's CPU time (all threads,
	// user+system) over the restore: this process's on the model (with
	// the embedded broker, the broker's work counts too), the JVM's
	// (/proc/<pid>) on kafka-streams; over Seconds it says how many cores
	// the restore kept busy. PeakRSSBytes is that process's peak resident
	// memory during the restore.
	CPUSeconds   float64 `json:"cpu_seconds"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	// DiskBytes is the size of the stores' directories once restored (on
	// the model after its ready phase; on kafka-streams the application's
	// state directory).
	DiskBytes int64 `json:"disk_bytes"`
	// Limits compares the restore with what fetching alone and writing
	// alone achieve on this machine; nil when not measured.
	Limits *Limits `json:"limits,omitempty"`
}

// ModelRun is what only the model engine measures of a record
// (Restore.Model, "model" in results.json): the split of its restore phase
// (or of a standby step's applying), its poll and WriteBatch latencies,
// its RocksDB figures and the ready phase. Nil on the kafka-streams engine,
// where the stores live in the JVM (KafkaStreamsRun holds what only that
// engine measures), and on a record that measured nothing.
type ModelRun struct {
	// LoadSeconds runs from opening the stores to the last record
	// written; FinishSeconds is the strategy's work after the last record
	// (bulk's manual compaction, ingest's sort and SST ingestion; 0 for
	// put). A restore's phase (RestorePhase.Seconds) is their sum; a
	// standby's following step applied for LoadSeconds.
	LoadSeconds   float64 `json:"load_seconds"`
	FinishSeconds float64 `json:"finish_seconds"`
	// PollWait is the time each poll waited for records; BatchWrite the
	// time each WriteBatch took to apply.
	PollWait   measure.Latency    `json:"poll_wait"`
	BatchWrite measure.Latency    `json:"batch_write"`
	RocksDB    measure.StoreStats `json:"rocksdb"`
	// Ready is the phase after the restore until the store can serve; nil
	// when not measured.
	Ready *ReadyPhase `json:"ready,omitempty"`
}

// RestoreSeconds is the record's restore phase (Phase.Seconds); false when
// the record measured no restore: a scenario measured by its gap, a
// standby's following step, a restore that failed before it was measured.
func (r Restore) RestoreSeconds() (float64, bool) {
	if r.Phase == nil {
		return 0, false
	}
	return r.Phase.Seconds, true
}

// TimeToReady is the time until the record's store was restored and
// serving (Phase.TotalSeconds); false when the record measured no restore.
func (r Restore) TimeToReady() (float64, bool) {
	if r.Phase == nil {
		return 0, false
	}
	return r.Phase.TotalSeconds, true
}

// Gap is the figure a scenario measured by its gap gives the record (a
// failover kill's longest processing gap, a scale-out's warmup assignment
// time, a rolling restart's downtime: Restore.Headline), in seconds; false
// for a restore, a standby step, and a record holding no measurement of
// its scenario.
func (r Restore) Gap() (float64, bool) {
	_, s, ok := r.Headline()
	return s, ok
}

// Ready is the model's ready phase, when the record measured one; nil
// otherwise (kafka-streams never does).
func (r Restore) Ready() *ReadyPhase {
	if r.Model == nil {
		return nil
	}
	return r.Model.Ready
}

// Limits are the machine's limits the record's restore was compared
// with; nil when not measured or when the record measured no restore.
func (r Restore) Limits() *Limits {
	if r.Phase == nil {
		return nil
	}
	return r.Phase.Limits
}

// OnKafkaStreams reports whether the record ran on the kafka-streams
// engine: its KafkaStreams record, or its case's engine for a record
// that failed before it was given one.
func (r Restore) OnKafkaStreams() bool {
	return r.KafkaStreams != nil || r.Params.Engine == config.EngineKafkaStreams
}

// Measure names what a record's one time measured (Restore.Measured).
type Measure string

// The kinds of time a record measures.
const (
	// MeasureRestore is a restore's phase (Restore.RestoreSeconds).
	MeasureRestore Measure = "restore"
	// MeasureGap is a scenario's gap (Restore.Gap).
	MeasureGap Measure = "gap"
	// MeasureFollowing is a standby following step's applying
	// (StandbyRecord.Following).
	MeasureFollowing Measure = "following"
)

// Measured is the one time the record measured, and what it is: its
// scenario's gap, its restore phase or a standby step's applying; false
// when it measured none (a step that failed before it was measured). It
// is for readers that list every record in one column (the summary's
// csv, benchfmt lines, a measurement's identity); a reader after a
// restore's time asks RestoreSeconds, one after a gap Gap.
func (r Restore) Measured() (float64, Measure, bool) {
	if gap, ok := r.Gap(); ok {
		return gap, MeasureGap, true
	}
	if s, ok := r.RestoreSeconds(); ok {
		return s, MeasureRestore, true
	}
	if r.Standby != nil && r.Standby.Following != nil {
		return r.Standby.Following.Seconds, MeasureFollowing, true
	}
	return 0, "", false
}
