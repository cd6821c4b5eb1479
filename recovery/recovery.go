// Package recovery says what a Kafka Streams instance restores again when
// it restarts on its own state directory after an unclean stop (a
// SIGKILL, an out-of-memory kill, a node lost with its volume kept), by
// Kafka Streams version, processing guarantee and transactional state
// stores. These are the rules the model engine applies when it emulates a
// crash (warm.stop: kill) and that answers about a crash take; each names
// what it rests on: the crash matrix measured on the real client
// (integration/crash_test.go, SIGKILL while processing) and Kafka Streams'
// source.
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
	// retention, as a cold restore).
	Whole Restores = "whole"
	// SinceCheckpoint: the store is kept and restored from the changelog
	// offsets last made durable (a commit's), so the restart restores at
	// most the records written since; the input since the last commit is
	// processed again (at-least-once).
	SinceCheckpoint Restores = "since-checkpoint"
)

// Guarantees, as Kafka Streams' processing.guarantee spells them.
const (
	AtLeastOnce   = "at_least_once"
	ExactlyOnceV2 = "exactly_once_v2"
)

// Rule is what a restart after a crash restores under one version,
// guarantee and transactional setting.
type Rule struct {
	// Version is the Kafka Streams version whose rule it is.
	Version string `json:"version"`
	// Guarantee is processing.guarantee.
	Guarantee string `json:"processing_guarantee"`
	// Transactional is enable.transactional.statestores (KIP-892, 4.4).
	Transactional bool `json:"transactional_state_stores,omitempty"`
	// Restores is how much it restores again.
	Restores Restores `json:"restores"`
	// Why is the mechanism, in Kafka Streams' terms.
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
	what := "the store is wiped and restored whole"
	if r.Restores == SinceCheckpoint {
		what = "the store is kept and restores from its last checkpoint"
	}
	return fmt.Sprintf("Kafka Streams %s after a crash under %s: %s (%s; %s)", r.Version, setting, what, r.Why, r.Evidence)
}

// row is one version's rules.
type row struct {
	version string
	// storeOffsets says the version keeps changelog offsets in the RocksDB
	// store (KIP-1035, from 4.3) rather than in a .checkpoint file.
	storeOffsets bool
	// transactional says it has enable.transactional.statestores.
	transactional bool
	// note is what else holds for that version's at-least-once restart.
	note string
}

// rows are the versions restorebench's driver builds against
// (config.KafkaStreamsVersions), oldest first.
var rows = []row{
	{version: "3.9.1"},
	{version: "4.0.2"},
	{version: "4.1.2"},
	{version: "4.2.2"},
	{version: "4.3.0", storeOffsets: true, note: "; a store that saw no write since a commit can come back with an older offset (KAFKA-20663)"},
	{version: "4.3.1", storeOffsets: true},
	{version: "4.4.0", storeOffsets: true, transactional: true},
}

// Measured names the versions the crash matrix ran on, SIGKILL while
// processing, a key-value and a window store under each guarantee; the
// other rows are Kafka Streams' source read for the same mechanism.
var Measured = []string{"3.9.1", "4.2.2", "4.3.0", "4.3.1", "4.4.0"}

// evidence says what a version's rule rests on.
func evidence(version string) string {
	if slices.Contains(Measured, version) {
		return "measured: SIGKILL while processing, key-value and window stores (integration/crash_test.go, RESTOREBENCH_CRASH_MATRIX)"
	}
	return "from Kafka Streams' source; not measured on this version"
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
// crash under version, guarantee ("" is at_least_once, Kafka Streams'
// default) and transactional state stores. An unknown version or
// guarantee, or transactional stores on a version without them, is an
// error naming it.
func AfterCrash(version, guarantee string, transactional bool) (Rule, error) {
	i := slices.IndexFunc(rows, func(r row) bool { return r.version == version })
	if i < 0 {
		return Rule{}, fmt.Errorf("Kafka Streams %q: no crash rule (known: %s)", version, strings.Join(Versions(), ", "))
	}
	v := rows[i]
	if guarantee == "" {
		guarantee = AtLeastOnce
	}
	r := Rule{Version: version, Guarantee: guarantee, Transactional: transactional, Evidence: evidence(version)}
	switch {
	case guarantee != AtLeastOnce && guarantee != ExactlyOnceV2:
		return Rule{}, fmt.Errorf("processing.guarantee %q is not %s or %s", guarantee, AtLeastOnce, ExactlyOnceV2)
	case transactional && !v.transactional:
		return Rule{}, fmt.Errorf("Kafka Streams %s has no transactional state stores (enable.transactional.statestores, KIP-892, from 4.4)", version)
	case transactional && guarantee != ExactlyOnceV2:
		return Rule{}, fmt.Errorf("transactional state stores take effect under %s only", ExactlyOnceV2)
	case transactional:
		r.Restores = Whole
		r.Why = "at start-up " + version + " opens the stores it finds with a state manager made without the setting " +
			"(ProcessorStateManager.createStartupTaskStateManager), which finds no committed offset and wipes them: " +
			"the transactional store is not kept across a crash"
	case guarantee == ExactlyOnceV2:
		r.Restores = Whole
		r.Why = "under exactly-once the restart finds no offset it trusts for a non-empty store (\"did not find checkpoint " +
			"offsets while stores are not empty\"), judges the task corrupted (TaskCorruptedException) and wipes it"
	default:
		r.Restores = SinceCheckpoint
		r.Why = "a commit makes the stores' offsets durable in a .checkpoint file once 10,000 records changed since the last"
		if v.storeOffsets {
			r.Why = "a commit makes the stores' offsets durable in the stores themselves (KIP-1035)"
		}
		r.Why += "; the restart restores the changelog past them and processes the input since the last commit again" + v.note
	}
	return r, nil
}
