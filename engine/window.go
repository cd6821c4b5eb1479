package engine

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// WindowStore is a window store as Kafka Streams' RocksDBSegmentedBytesStore
// over its WindowKeySchema lays it out: one store per segment, the segment
// of a changelog record being its window start over the segment interval.
// Over the SessionKeySchema (sessionSchema) it is a session store: the
// same, with the session end where this says window start.
// Restoring a batch first moves stream time to the batch's largest window
// start; each record then goes to its segment if the segment is live
// (its id at least that of stream time − retention) and is dropped
// otherwise, and segments that fell out of the retention are closed and
// deleted (KeyValueSegments.getOrCreateSegmentIfLive). Reads serve only
// windows starting after stream time − retention, as
// AbstractRocksDBSegmentedBytesStore.all() and get() do.
type WindowStore struct {
	schema    keySchema
	open      func(segment int64) (Store, error)
	remove    func(segment int64) error
	retention int64 // ms
	interval  int64 // ms
	mu        sync.Mutex
	stream    int64 // the largest window start (session end) restored; -1 before any
	segments  map[int64]Store
	written   map[int64]int64 // records written, by segment
	counts    WindowCounts
}

// WindowCounts are what a window store's restore did with its records.
type WindowCounts struct {
	// Kept are the records written to a segment still open; Skipped those
	// dropped on arrival, their segment expired already (records out of
	// order by more than the retention); Dropped those written to a
	// segment that expired later, deleted with it. Kept + Skipped +
	// Dropped are the records read.
	Kept, Skipped, Dropped int64
	// SegmentsOpened counts the segments the restore created;
	// SegmentsDropped those it deleted as stream time passed them.
	SegmentsOpened, SegmentsDropped int64
}

// newWindowStore opens an empty segmented store of a case's retention and
// segment interval over schema, whose segments open is called to create
// (and remove to delete).
func newWindowStore(c config.Case, schema keySchema, open func(int64) (Store, error), remove func(int64) error) (*WindowStore, error) {
	ret, iv := c.Retention.D().Milliseconds(), c.SegmentIntervalOf().Milliseconds()
	if ret <= 0 || iv <= 0 {
		return nil, fmt.Errorf("window store: retention %s and segment interval %s must be positive", c.Retention, c.SegmentIntervalOf())
	}
	return &WindowStore{schema: schema, open: open, remove: remove, retention: ret, interval: iv, stream: -1,
		segments: map[int64]Store{}, written: map[int64]int64{}}, nil
}

// The window layout: segments by window start, restored by put (or in
// memory), reopened segment by segment.
func init() {
	registerLayout(config.LayoutWindow, layoutOps{loader: newWindowLoader, reopen: reopenSegmented(windowSchema)})
}

// newWindowLoader opens a task's empty window store: in memory for the
// memory strategy, otherwise RocksDB segments at <task dir>/<store>/
// <store>.<segment start> (Kafka Streams' layout).
func newWindowLoader(s loaderSpec, id TaskID) (Loader, error) {
	var w *WindowStore
	var err error
	if s.Case.Strategy == config.StrategyMemory {
		w, err = memoryWindowStore(s.Case)
	} else {
		w, err = rocksWindowStore(s.Case, filepath.Join(taskDir(s.AppDir, id), s.Store), s.Store)
	}
	if err != nil {
		return nil, err
	}
	return storeLoader{w}, nil
}

// rocksWindowStore is a window store of RocksDB segments under dir, each
// at <dir>/<store>.<segment start ms> as Kafka Streams names them.
func rocksWindowStore(c config.Case, dir, store string) (*WindowStore, error) {
	return rocksSegmentedStore(c, windowSchema, dir, store)
}

// rocksSegmentedStore is a segmented store over schema of RocksDB
// segments under dir, each at <dir>/<store>.<segment start ms>
// (KeyValueSegments' names, for window and session stores alike).
func rocksSegmentedStore(c config.Case, schema keySchema, dir, store string) (*WindowStore, error) {
	path := func(seg int64, iv int64) string {
		return filepath.Join(dir, store+"."+strconv.FormatInt(seg*iv, 10))
	}
	iv := c.SegmentIntervalOf().Milliseconds()
	return newWindowStore(c, schema,
		func(seg int64) (Store, error) { return OpenRocks(path(seg, iv), c.RocksDB) },
		func(seg int64) error { return os.RemoveAll(path(seg, iv)) })
}

// memoryWindowStore is a window store in memory (Stores.inMemoryWindowStore
// keeps a map per window start: the model keeps one per segment, so a
// window of an expired segment's last interval may be kept a little
// longer; what reads serve is the same).
func memoryWindowStore(c config.Case) (*WindowStore, error) {
	return memorySegmentedStore(c, windowSchema)
}

// memorySegmentedStore is a segmented store over schema whose segments
// are in memory.
func memorySegmentedStore(c config.Case, schema keySchema) (*WindowStore, error) {
	return newWindowStore(c, schema, func(int64) (Store, error) { return NewMemoryStore(), nil }, func(int64) error { return nil })
}

// segmentOf is the segment id of window start ws (Java's long division,
// which truncates toward zero as Go's does).
func (w *WindowStore) segmentOf(ws int64) int64 { return ws / w.interval }

// Write restores one poll's records: stream time moves to the largest
// window start among them, then each goes to its live segment or is
// dropped, and expired segments are deleted.
func (w *WindowStore) Write(entries []Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	starts := make([]int64, len(entries))
	for i, e := range entries {
		ws, err := w.schema.time(e.Key)
		if err != nil {
			return err
		}
		starts[i] = ws
		w.stream = max(w.stream, ws)
	}
	minLive := w.segmentOf(w.stream - w.retention)
	batches := map[int64][]Entry{}
	for i, e := range entries {
		seg := w.segmentOf(starts[i])
		if seg < minLive {
			w.counts.Skipped++
			continue
		}
		batches[seg] = append(batches[seg], e)
		w.counts.Kept++
		w.written[seg]++
	}
	if err := w.dropBefore(minLive); err != nil {
		return err
	}
	for _, seg := range slices.Sorted(maps.Keys(batches)) {
		s, err := w.segment(seg)
		if err != nil {
			return err
		}
		if err := s.Write(batches[seg]); err != nil {
			return fmt.Errorf("window segment %d: %w", seg, err)
		}
	}
	return nil
}

// segment returns segment seg, creating it when new.
func (w *WindowStore) segment(seg int64) (Store, error) {
	if s, ok := w.segments[seg]; ok {
		return s, nil
	}
	s, err := w.open(seg)
	if err != nil {
		return nil, fmt.Errorf("window segment %d: %w", seg, err)
	}
	w.segments[seg] = s
	w.counts.SegmentsOpened++
	return s, nil
}

// dropBefore closes and deletes the segments before minLive.
func (w *WindowStore) dropBefore(minLive int64) error {
	for seg, s := range w.segments {
		if seg >= minLive {
			continue
		}
		s.Close()
		delete(w.segments, seg)
		w.counts.SegmentsDropped++
		w.counts.Kept -= w.written[seg]
		w.counts.Dropped += w.written[seg]
		delete(w.written, seg)
		if err := w.remove(seg); err != nil {
			return fmt.Errorf("window segment %d: delete: %w", seg, err)
		}
	}
	return nil
}

// servedFrom is the earliest window start reads serve.
func (w *WindowStore) servedFrom() int64 { return w.stream - w.retention + 1 }

// Get returns the value under a changelog key (record key, window start,
// sequence number), and false when its window is not served.
func (w *WindowStore) Get(key []byte) ([]byte, bool, error) {
	ws, err := w.schema.time(key)
	if err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	s, ok := w.segments[w.segmentOf(ws)]
	served := ws >= w.servedFrom()
	w.mu.Unlock()
	if !ok || !served {
		return nil, false, nil
	}
	return s.Get(key)
}

// ForEach visits every served window's entry, segment by segment, under
// its digest key (record key and window start: loadgen.WindowDigestKey).
func (w *WindowStore) ForEach(fn func(key, value []byte) error) error {
	w.mu.Lock()
	from := w.servedFrom()
	segs := slices.Sorted(maps.Keys(w.segments))
	stores := make([]Store, len(segs))
	for i, seg := range segs {
		stores[i] = w.segments[seg]
	}
	w.mu.Unlock()
	for _, s := range stores {
		err := s.ForEach(func(k, v []byte) error {
			if ws, err := w.schema.time(k); err != nil || ws < from {
				return err
			}
			return fn(w.schema.digestKey(k), v)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Counts returns what the restore has done with its records.
func (w *WindowStore) Counts() WindowCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// Segments is the number of segments open.
func (w *WindowStore) Segments() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.segments)
}

// Stats sums the segments' figures.
func (w *WindowStore) Stats() measure.StoreStats {
	var st measure.StoreStats
	w.each(func(s Store) error { st.Add(s.Stats()); return nil })
	return st
}

// Flush flushes every segment.
func (w *WindowStore) Flush() error { return w.each(Store.Flush) }

// Settled reports whether every segment is.
func (w *WindowStore) Settled() bool {
	settled := true
	w.each(func(s Store) error { settled = settled && s.Settled(); return nil })
	return settled
}

// Close closes every segment.
func (w *WindowStore) Close() error { return w.each(Store.Close) }

// each calls fn on every open segment, stopping at the first error.
func (w *WindowStore) each(fn func(Store) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.segments {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}
