// Package verify decides whether restored state is right: it compares what
// each restored partition holds (key count, live bytes, digest), however an
// engine read it, with the state the fill's generator derives. Both engines
// are verified by this one comparison.
package verify
