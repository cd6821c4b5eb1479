package engine

import (
	"path/filepath"
	"slices"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// newKindLoader opens the loader of a task's store by the case's store
// kind: a key-value store's by strategy (newStrategyLoader); a
// timestamped one's the same behind a converter that puts each record's
// timestamp before its value; a window store's segments, restored by put
// (or in memory); a session store's likewise (newSessionStore).
func newKindLoader(s loaderSpec, id TaskID) (Loader, error) {
	switch s.Case.StoreKind {
	case config.StoreTimestampedKeyValue:
		l, err := newStrategyLoader(s, id)
		if err != nil {
			return nil, err
		}
		return &timestampedLoader{Loader: l}, nil
	case config.StoreWindow:
		var w *WindowStore
		var err error
		if s.Case.Strategy == config.StrategyMemory {
			w, err = memoryWindowStore(s.Case)
		} else {
			// <task dir>/<store>/<store>.<segment start>, Kafka Streams' layout.
			w, err = rocksWindowStore(s.Case, filepath.Join(taskDir(s.AppDir, id), s.Store), s.Store)
		}
		if err != nil {
			return nil, err
		}
		return storeLoader{w}, nil
	case config.StoreSession:
		w, err := newSessionStore(s, id)
		if err != nil {
			return nil, err
		}
		return storeLoader{w}, nil
	case config.StoreVersionedKeyValue:
		return newVersionedLoader(s, id)
	}
	return newStrategyLoader(s, id)
}

// timestampedLoader restores a timestamped key-value store: the changelog
// holds plain values with the timestamp on the record, and the store keeps
// each value behind its 8-byte timestamp (Kafka Streams'
// TimestampedBytesStore conversion on restore). Tombstones stay tombstones.
type timestampedLoader struct {
	Loader
	buf     []byte
	entries []Entry
}

// Write converts one poll's records and hands them on.
func (l *timestampedLoader) Write(entries []Entry) error {
	n := 0
	for _, e := range entries {
		if e.Value != nil {
			n += 8 + len(e.Value)
		}
	}
	l.buf = slices.Grow(l.buf[:0], n)
	l.entries = l.entries[:0]
	for _, e := range entries {
		if e.Value != nil {
			start := len(l.buf)
			l.buf = loadgen.AppendTimestamped(l.buf, e.Timestamp, e.Value)
			e.Value = l.buf[start:len(l.buf):len(l.buf)]
		}
		l.entries = append(l.entries, e)
	}
	return l.Loader.Write(l.entries)
}

// Windows sums what the window (or session) stores' restores did with
// their records, and the segments open at the end; false when the stores
// are not segmented.
func (r *Restored) Windows() (WindowCounts, int, bool) {
	var c WindowCounts
	segments, any := 0, false
	for _, s := range r.Stores {
		w, ok := s.(*WindowStore)
		if !ok {
			continue
		}
		any = true
		wc := w.Counts()
		c.Kept += wc.Kept
		c.Skipped += wc.Skipped
		c.Dropped += wc.Dropped
		c.SegmentsOpened += wc.SegmentsOpened
		c.SegmentsDropped += wc.SegmentsDropped
		segments += w.Segments()
	}
	return c, segments, any
}
