package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// windowEntry is a window store's changelog record of key at window
// start ws.
func windowEntry(key string, ws int64) Entry {
	return Entry{Key: loadgen.AppendWindowKey(nil, []byte(key), ws, 0), Value: []byte("v"), Timestamp: ws}
}

// servedWindows counts the windows the store serves.
func servedWindows(t *testing.T, w *WindowStore) int {
	t.Helper()
	n := 0
	if err := w.ForEach(func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReopenedWindowStoreResumesFromItsSegments: a window store's
// committed offset survives a restart in its segments (found newest first
// once the oldest segment is gone), and the reopened store, like Kafka
// Streams' whose stream time is not persisted, serves every window its
// segments hold until a record moves stream time on, then only those
// within the retention again.
func TestReopenedWindowStoreResumesFromItsSegments(t *testing.T) {
	c := config.DefaultCase()
	c.StoreKind, c.Retention, c.SegmentInterval = config.StoreWindow, config.Duration(time.Hour), config.Duration(30*time.Minute)
	app, id := t.TempDir(), TaskID{Partition: 0}
	if _, err := openKeptStore(c, app, id, "s"); !errors.Is(err, errNoKeptStore) {
		t.Fatalf("empty state dir: %v, want errNoKeptStore", err)
	}
	st, err := newKindLoader(loaderSpec{Case: c, AppDir: app, Store: "s"}, id)
	if err != nil {
		t.Fatal(err)
	}
	w := st.(storeLoader).s.(*WindowStore)
	const min = 60_000
	// Stream time 80 min: the window at 10 min is in the oldest live
	// segment [0, 30 min) but not served (served from 20 min + 1 ms).
	if err := w.Write([]Entry{windowEntry("a", 10*min), windowEntry("b", 40*min), windowEntry("c", 80*min)}); err != nil {
		t.Fatal(err)
	}
	if n := servedWindows(t, w); n != 2 {
		t.Fatalf("before the restart: %d windows served, want 2", n)
	}
	if err := w.CommitOffset("cl-0", 41); err != nil {
		t.Fatal(err)
	}
	w.Close()
	kept, err := openKeptStore(c, app, id, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if off, ok, err := kept.CommittedOffset("cl-0"); err != nil || !ok || off != 41 {
		t.Fatalf("committed offset %d %v %v, want 41", off, ok, err)
	}
	r := kept.(*WindowStore)
	if n := servedWindows(t, r); n != 3 {
		t.Errorf("reopened, nothing restored: %d windows served, want all 3 its segments hold", n)
	}
	if err := r.Write([]Entry{windowEntry("d", 95*min)}); err != nil {
		t.Fatal(err)
	}
	if n := servedWindows(t, r); n != 3 {
		t.Errorf("after a record at 95 min: %d windows served, want b, c and d", n)
	}
	if r.Segments() != 3 {
		t.Errorf("%d segments open, want 3: [0, 30 min) expired", r.Segments())
	}
}
