package engine

import (
	"sort"
	"sync"

	"github.com/restorebench/restorebench/measure"
)

// MemoryStore is an in-memory key-value store, as Kafka Streams'
// InMemoryKeyValueStore: the baseline without RocksDB.
type MemoryStore struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: map[string][]byte{}} }

// Write applies entries in order; a nil value deletes, an empty one is kept.
func (s *MemoryStore) Write(entries []Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if e.Value == nil {
			delete(s.m, string(e.Key))
			continue
		}
		v := make([]byte, len(e.Value))
		copy(v, e.Value)
		s.m[string(e.Key)] = v
	}
	return nil
}

// Get returns key's value and whether it is live.
func (s *MemoryStore) Get(key []byte) ([]byte, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[string(key)]
	return v, ok, nil
}

// ForEach visits entries in key order.
func (s *MemoryStore) ForEach(fn func(key, value []byte) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn([]byte(k), s.m[k]); err != nil {
			return err
		}
	}
	return nil
}

// Stats is zero: an in-memory store has no RocksDB figures.
func (s *MemoryStore) Stats() measure.StoreStats { return measure.StoreStats{} }

// Flush does nothing: nothing is buffered.
func (s *MemoryStore) Flush() error { return nil }

// Settled is always true: there is no background work.
func (s *MemoryStore) Settled() bool { return true }

// Close drops the contents.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	s.m = nil
	s.mu.Unlock()
	return nil
}
