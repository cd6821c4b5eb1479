package engine

import "fmt"

// DeleteRange deletes every key in [from, to) in one write, as Kafka
// Streams' RocksDBStore.deleteRange does when a versioned store drops a
// logical segment (a range tombstone, not a delete per key).
func (s *RocksStore) DeleteRange(from, to []byte) error {
	s.wb.Clear()
	s.wb.DeleteRange(from, to)
	if err := s.db.Write(s.wo, s.wb); err != nil {
		return fmt.Errorf("store %s: delete range: %w", s.path, err)
	}
	return nil
}
