// Package loadgen generates deterministic changelog records, produces them to
// a topic, and derives the state a correct restore must end with.
//
// Every record is a pure function of (seed, index): the same Spec always
// yields the same records in the same order, so the expected final state of a
// store can be computed from the Spec alone, without the broker.
package loadgen
