package engine

import (
	"sort"
	"sync"
)

// MemoryStore is an in-memory key-value store, as Kafka Streams'
// InMemoryKeyValueStore: the baseline without RocksDB.
type MemoryStore struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: map[string][]byte{}} }

// Write applies entries in order; a nil value deletes.
func (s *MemoryStore) Write(entries []Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if e.Value == nil {
			delete(s.m, string(e.Key))
		} else {
			s.m[string(e.Key)] = append([]byte(nil), e.Value...)
		}
	}
	return nil
}

// Get returns key's value, or nil when absent.
func (s *MemoryStore) Get(key []byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[string(key)], nil
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

// Close drops the contents.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	s.m = nil
	s.mu.Unlock()
	return nil
}
