// Package recovery says what a Kafka Streams instance restores again when
// it restarts on its own state directory after an unclean stop (a
// SIGKILL, an out-of-memory kill, a node lost with its volume kept), by
// Kafka Streams version, processing guarantee and transactional state
// stores. These are the rules the model engine applies when it emulates a
// crash (warm.stop: kill) and that answers about a crash take; each names
// what it rests on: the crash matrix on the real client
// (integration/crash_test.go, SIGKILL while processing), the crash profile
// (profiles/crash.yaml, SIGKILL right after a restore), and where a
// version was not measured, the nearest measured one's.
//
// One table, one function: a version's rule is a row of Rules, looked up
// by AfterCrash; a version the driver gains needs its row (a test holds
// the table to config.KafkaStreamsVersions).
package recovery

import (
	"fmt"
	"slices"
	"strings"
)

// Restores is how much of a task's store a restart after a crash restores.
type Restores string

const (
	// Whole: the store is wiped and restored from the changelog's start (a
	// window or session store's from the first record within its
	// retention on a version that seeks by it: Rule.SeeksByRetention).
	Whole Restores = "whole"
	// SinceCheckpoint: the store is kept and restored from the changelog
	// offsets last made durable (a commit's), so the restart restores at
	// most the records written since; the input since the last commit is
	// processed again (at-least-once).
	SinceCheckpoint Restores = "since-checkpoint"
	// SinceFlush: the store is kept with the changelog offsets it holds
	// itself (KIP-1035, from 4.3), written with its data; with RocksDB's
	// write-ahead log off a crash loses the memtables, so the restart
	// restores what was written since the store last flushed (a memtable
	// filled), and the whole store when it never flushed.
	SinceFlush Restores = "since-flush"
)

// Guarantees, as Kafka Streams' processing.guarantee spells them.
const (
	AtLeastOnce   = "at_least_once"
	ExactlyOnceV2 = "exactly_once_v2"
)

// Situation is what the task was doing when it crashed.
type Situation string

const (
	// Processing: it ran, processing input and committing, as a live
	// application does (the crash matrix's word count and windowed clicks).
	Processing Situation = "processing"
	// AfterRestore: it had restored its store and processed nothing since
	// (restorebench's own instances, and the model's emulated crash).
	AfterRestore Situation = "after-restore"
)

// Rule is what a restart after a crash restores under one version,
// guarantee, transactional setting and situation.
type Rule struct {
	// Version is the Kafka Streams version whose rule it is.
	Version string `json:"version"`
	// Guarantee is processing.guarantee.
	Guarantee string `json:"processing_guarantee"`
	// Transactional is enable.transactional.statestores (KIP-892, 4.4).
	Transactional bool `json:"transactional_state_stores,omitempty"`
	// Situation is what the task was doing when it crashed.
	Situation Situation `json:"situation"`
	// Restores is how much it restores again.
	Restores Restores `json:"restores"`
	// SeeksByRetention says a window or session store restored whole is
	// read from the first record within its retention of the partition's
	// last (4.2.2 and 4.4.0: StoreChangelogReader's
	// seekByRetentionFromPolledRecords), not from the log start.
	SeeksByRetention bool `json:"window_seek_by_retention"`
	// Why is the mechanism, in Kafka Streams' terms, where known.
	Why string `json:"why"`
	// Evidence is what the rule rests on.
	Evidence string `json:"evidence"`
}

// String is the rule in one line, for records and answers.
func (r Rule) String() string {
	setting := r.Guarantee
	if r.Transactional {
		setting += " with transactional state stores"
	}
	what := "the store is restored whole"
	switch r.Restores {
	case SinceCheckpoint:
		what = "the store is kept and restores from its last checkpoint"
	case SinceFlush:
		what = "the store is kept and restores what was written since it last flushed, the whole store if it never did"
	}
	when := "while processing"
	if r.Situation == AfterRestore {
		when = "right after a restore"
	}
	return fmt.Sprintf("Kafka Streams %s, a crash %s under %s: %s (%s; %s)", r.Version, when, setting, what, r.Why, r.Evidence)
}

// row is one version's facts.
type row struct {
	version string
	// storeOffsets says the version keeps changelog offsets in the RocksDB
	// store (KIP-1035, from 4.3) rather than in a .checkpoint file.
	storeOffsets bool
	// transactional says it has enable.transactional.statestores.
	transactional bool
	// seeks says a window store's restore seeks past what its retention
	// expired (Rule.SeeksByRetention).
	seeks bool
	// idleEOS is what a crash right after a restore restores under
	// exactly-once without transactional stores.
	idleEOS Restores
	// measured says the crash profile and the crash matrix ran on it;
	// like names the measured version whose rule an unmeasured one takes.
	measured bool
	like     string
}

// rows are the versions restorebench's driver builds against
// (config.KafkaStreamsVersions), oldest first. Measured on 2026-12-02:
// the crash profile (profiles/crash.yaml: SIGKILL right after a restore,
// 20 k records written while down, timestamped key-value and window
// stores) and the crash matrix (integration/crash_test.go: SIGKILL while
// processing).
var rows = []row{
	{version: "3.9.1", idleEOS: SinceCheckpoint, measured: true},
	{version: "4.0.2", idleEOS: Whole, like: "4.2.2"},
	{version: "4.1.2", idleEOS: Whole, like: "4.2.2"},
	{version: "4.2.2", seeks: true, idleEOS: Whole, measured: true},
	{version: "4.3.0", storeOffsets: true, idleEOS: Whole, measured: true},
	{version: "4.3.1", storeOffsets: true, idleEOS: Whole, measured: true},
	{version: "4.4.0", storeOffsets: true, transactional: true, seeks: true, idleEOS: Whole, measured: true},
}

// evidence says what a version's rule rests on.
func evidence(v row, s Situation) string {
	what := "the crash matrix (SIGKILL while processing, integration/crash_test.go)"
	if s == AfterRestore {
		what = "the crash profile (SIGKILL after a restore, profiles/crash.yaml)"
	}
	if v.measured {
		return "measured on " + v.version + ": " + what
	}
	return "not measured on " + v.version + ": the rule measured on " + v.like + ", the nearest version measured"
}

// Versions lists the versions AfterCrash knows, oldest first.
func Versions() []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.version
	}
	return out
}

// HasTransactionalStores says version has enable.transactional.statestores.
func HasTransactionalStores(version string) bool {
	for _, r := range rows {
		if r.version == version {
			return r.transactional
		}
	}
	return false
}

// AfterCrash is the rule for a restart on the state directory after a
// crash in situation s under version, guarantee ("" is at_least_once,
// Kafka Streams' default) and transactional state stores. An unknown
// version or guarantee, or transactional stores on a version without
// them, is an error naming it.
func AfterCrash(version, guarantee string, transactional bool, s Situation) (Rule, error) {
	i := slices.IndexFunc(rows, func(r row) bool { return r.version == version })
	if i < 0 {
		return Rule{}, fmt.Errorf("Kafka Streams %q: no crash rule (known: %s)", version, strings.Join(Versions(), ", "))
	}
	v := rows[i]
	if guarantee == "" {
		guarantee = AtLeastOnce
	}
	r := Rule{Version: version, Guarantee: guarantee, Transactional: transactional, Situation: s, SeeksByRetention: v.seeks, Evidence: evidence(v, s)}
	switch {
	case s != Processing && s != AfterRestore:
		return Rule{}, fmt.Errorf("situation %q is not %s or %s", s, Processing, AfterRestore)
	case guarantee != AtLeastOnce && guarantee != ExactlyOnceV2:
		return Rule{}, fmt.Errorf("processing.guarantee %q is not %s or %s", guarantee, AtLeastOnce, ExactlyOnceV2)
	case transactional && !v.transactional:
		return Rule{}, fmt.Errorf("Kafka Streams %s has no transactional state stores (enable.transactional.statestores, KIP-892, from 4.4)", version)
	case transactional && guarantee != ExactlyOnceV2:
		return Rule{}, fmt.Errorf("transactional state stores take effect under %s only", ExactlyOnceV2)
	case transactional:
		r.Restores = SinceFlush
		r.Why = "under exactly-once a transactional store is not wiped (KIP-892) and keeps its offsets in the store, written " +
			"with its data; a SIGKILL loses its memtables (the write-ahead log is off): measured, a word count killed at " +
			"2.0 M changelog records restored 362,017 of them, and killed at 40 k (its store never flushed) all"
	case guarantee == ExactlyOnceV2 && s == Processing:
		r.Restores = Whole
		r.Why = "under exactly-once the restart finds no offset it trusts for a non-empty store (\"did not find checkpoint " +
			"offsets while stores are not empty\"), judges the task corrupted (TaskCorruptedException) and wipes it"
	case guarantee == ExactlyOnceV2 && v.idleEOS == SinceCheckpoint:
		r.Restores = SinceCheckpoint
		r.Why = "the checkpoint written when the restore completed is still valid: nothing was processed since"
	case guarantee == ExactlyOnceV2:
		r.Restores = Whole
		r.Why = "under exactly-once the checkpoint the restore wrote is dropped once the task runs: the store restored " +
			"from the log start"
	case v.storeOffsets:
		r.Restores = SinceFlush
		r.Why = "the stores keep their offsets themselves (KIP-1035), written with their data; a SIGKILL loses the memtables " +
			"(the write-ahead log is off), so each store resumes where it last flushed: measured, stores of 8 MB a partition " +
			"(never flushed) restored whole, and of two stores killed while processing some partitions resumed and others " +
			"restored from offset 0"
	case s == Processing:
		r.Restores = SinceCheckpoint
		r.Why = "a commit writes the .checkpoint once 10,000 records changed since the last: killed after its third 3 s commit " +
			"each store resumed from it (24-32% of the changelog restored again); killed a second after its first, before " +
			"any such checkpoint, each restored whole"
	default:
		r.Restores = SinceCheckpoint
		r.Why = "the checkpoint written when the restore completed is still valid: nothing was processed since"
	}
	return r, nil
}
