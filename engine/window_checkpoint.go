package engine

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// CommitOffset records the changelog offset the store has applied in every
// open segment's offsets column family, as Kafka Streams 4.3+ commits a
// segmented store (AbstractSegments.commit, KIP-1035): whichever segments
// survive the next restart's expiry, each knows the offset. In-memory
// segments keep none (an in-memory store restores from the log start).
func (w *WindowStore) CommitOffset(key string, offset int64) error {
	return w.each(func(s Store) error {
		if cp, ok := s.(Checkpointer); ok {
			return cp.CommitOffset(key, offset)
		}
		return nil
	})
}

// CommittedOffset is the offset the newest segment holding one recorded
// (AbstractSegments.committedOffset walks the segments newest first);
// false when no segment has one.
func (w *WindowStore) CommittedOffset(key string) (int64, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := slices.Sorted(maps.Keys(w.segments))
	slices.Reverse(ids)
	for _, seg := range ids {
		cp, ok := w.segments[seg].(Checkpointer)
		if !ok {
			continue
		}
		off, found, err := cp.CommittedOffset(key)
		if err != nil || found {
			return off, found, err
		}
	}
	return 0, false, nil
}

// reopenSegments opens the segments a store left under dir, named
// <store>.<segment start ms>, as AbstractSegments.openExisting does on a
// restart. Stream time stays unknown (-1) until the first record restored:
// Kafka Streams does not persist observedStreamTime, so a reopened store
// that restores nothing serves every window its segments hold.
func (w *WindowStore) reopenSegments(dir, store string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		start, ok := strings.CutPrefix(e.Name(), store+".")
		if !ok || !e.IsDir() {
			continue
		}
		ms, err := strconv.ParseInt(start, 10, 64)
		if err != nil || ms%w.interval != 0 {
			continue // not a segment of this interval (Kafka Streams skips such names too)
		}
		s, err := w.open(ms / w.interval)
		if err != nil {
			w.Close()
			return fmt.Errorf("reopen window segment %s: %w", e.Name(), err)
		}
		w.segments[ms/w.interval] = s
	}
	return nil
}
