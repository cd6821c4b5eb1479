// Package engine restores state stores from changelog topics the way Kafka
// Streams does, and checks what it restored against the expected state.
package engine

import "runtime"

// Entry is one key-value change; a nil Value deletes the key (a tombstone).
type Entry struct {
	Key   []byte
	Value []byte
}

// Store is a key-value state store a restore writes into.
type Store interface {
	// Write applies entries atomically, in order (one WriteBatch).
	Write(entries []Entry) error
	// Get returns key's value, or nil when absent.
	Get(key []byte) ([]byte, error)
	// ForEach visits every live entry.
	ForEach(fn func(key, value []byte) error) error
	Close() error
}

func numCPU() int { return runtime.NumCPU() }
