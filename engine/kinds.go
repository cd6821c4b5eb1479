package engine

import (
	"path/filepath"
	"slices"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// newKindLoader opens the loader of a task's store by the layout of the
// case's store kind (newLayoutLoader), behind a converter that puts each
// record's timestamp before its value for a kind that keeps values so (a
// timestamped key-value or window store).
func newKindLoader(s loaderSpec, id TaskID) (Loader, error) {
	l, err := newLayoutLoader(s, id)
	if err != nil || !s.Case.StoreKind.TimestampedValue() {
		return l, err
	}
	return &timestampedLoader{Loader: l}, nil
}

// newLayoutLoader opens the loader of a task's store by the layout of the
// case's store kind (config.StoreKindDef.Layout): a key-value store's by
// strategy (newStrategyLoader); a window store's segments, restored by put
// (or in memory); a session store's likewise (newSessionStore); a
// versioned store's (newVersionedLoader).
func newLayoutLoader(s loaderSpec, id TaskID) (Loader, error) {
	d, _ := config.StoreKindDefOf(s.Case.StoreKind)
	switch d.Layout {
	case config.LayoutWindow:
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
	case config.LayoutSession:
		w, err := newSessionStore(s, id)
		if err != nil {
			return nil, err
		}
		return storeLoader{w}, nil
	case config.LayoutVersioned:
		return newVersionedLoader(s, id)
	}
	return newStrategyLoader(s, id)
}

// timestampedLoader restores a timestamped (key-value or window) store: the changelog
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

// countedStore is a store that counts what its restore did with its
// records (C) and the segments it has open.
type countedStore[C any] interface {
	Store
	Counts() C
	Segments() int
}

// foldCounts sums, over the restored stores of type S, what their
// restores did (add) and the segments open at the end; false when no
// store is an S.
func foldCounts[S countedStore[C], C any](r *Restored, add func(sum *C, c C)) (C, int, bool) {
	var sum C
	segments, any := 0, false
	for _, st := range r.Stores {
		s, ok := st.(S)
		if !ok {
			continue
		}
		any = true
		add(&sum, s.Counts())
		segments += s.Segments()
	}
	return sum, segments, any
}

// Windows sums what the window (or session) stores' restores did with
// their records, and the segments open at the end; false when the stores
// are not segmented.
func (r *Restored) Windows() (WindowCounts, int, bool) {
	return foldCounts[*WindowStore](r, func(c *WindowCounts, w WindowCounts) {
		c.Kept += w.Kept
		c.Skipped += w.Skipped
		c.Dropped += w.Dropped
		c.SegmentsOpened += w.SegmentsOpened
		c.SegmentsDropped += w.SegmentsDropped
	})
}

// Versioned sums what the versioned stores' restores did and the segments
// live at the end; false when the stores are not versioned stores.
func (r *Restored) Versioned() (VersionedCounts, int, bool) {
	return foldCounts[*VersionedStore](r, func(c *VersionedCounts, v VersionedCounts) {
		c.Put += v.Put
		c.Skipped += v.Skipped
		c.HistoryDropped += v.HistoryDropped
		c.SegmentsOpened += v.SegmentsOpened
		c.SegmentsDropped += v.SegmentsDropped
	})
}
