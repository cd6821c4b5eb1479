package engine

import (
	"fmt"
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

// layoutOps is the model engine's store of one layout
// (config.StoreLayout): how a restore opens it and how a warm restart
// reopens it. Each layout's is registered from the file implementing its
// store (registerLayout): the key-value one in loader.go, the window one
// in window.go, the session one in session.go, the versioned one in
// versioned_loader.go.
type layoutOps struct {
	// loader opens a task's empty store for a restore; required.
	loader func(s loaderSpec, id TaskID) (Loader, error)
	// reopen reopens the store a task kept under appDir for a warm
	// restart, errNoKeptStore when nothing is there; nil: a warm restart
	// of the layout is not modelled (a kind of it cannot
	// config.CapReopen).
	reopen func(c config.Case, appDir string, id TaskID, store string) (keptStore, error)
}

// layouts is the registry of layouts the model engine restores into.
var layouts = map[config.StoreLayout]layoutOps{}

// registerLayout registers the model engine's store of layout l. It
// panics, when the program starts, on an unnamed layout, one without a
// loader, or one registered twice.
func registerLayout(l config.StoreLayout, ops layoutOps) {
	if _, ok := layouts[l]; ok || l == "" || ops.loader == nil {
		panic(fmt.Sprintf("engine: layout %q registered twice, unnamed or without a loader", l))
	}
	layouts[l] = ops
}

// layoutOf is the store of the layout of store kind k; an error naming
// both when the model engine has none (a kind whose layout no file here
// registers).
func layoutOf(k config.StoreKind) (layoutOps, error) {
	d, _ := config.StoreKindDefOf(k)
	ops, ok := layouts[d.Layout]
	if !ok {
		return layoutOps{}, fmt.Errorf("the model engine has no store of layout %q (store kind %s)", d.Layout, k.Of())
	}
	return ops, nil
}

// newLayoutLoader opens the loader of a task's store by the layout of the
// case's store kind (config.StoreKindDef.Layout, layoutOps.loader).
func newLayoutLoader(s loaderSpec, id TaskID) (Loader, error) {
	ops, err := layoutOf(s.Case.StoreKind)
	if err != nil {
		return nil, err
	}
	return ops.loader(s, id)
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
