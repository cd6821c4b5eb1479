package engine

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/restorebench/restorebench/config"
)

// VersionedStore is a versioned key-value store restored as Kafka
// Streams' RocksDBVersionedStore restores one (restoreBatch, through its
// RocksDBVersionedStoreRestoreWriteBuffer): one RocksDB instance holding a
// latest value store and logical segments (layout: versioned_row.go).
// Each batch first moves stream time to the batch's largest timestamp and
// deletes the segments expired at it (a range delete each); each record,
// unless older than stream time minus the history retention (the grace
// period), then replaces its key's latest version, moving the one it ends
// to the segment of its validTo if that segment is live and dropping it
// otherwise; a tombstone deletes the latest value (or, with none, leaves
// a null version in its segment). The batch's writes are buffered and read
// through, then written as two WriteBatches: the segments', then the
// latest values'. Records behind their key's latest version (out of
// order) are refused: the fill never writes them.
type VersionedStore struct {
	db        *RocksStore
	retention int64 // ms; also the grace period
	interval  int64 // ms
	mu        sync.Mutex
	stream    int64 // observedStreamTime: -1 (NO_TIMESTAMP) before any record
	end       int64 // the batch's stream time
	segments  map[int64]bool
	counts    VersionedCounts
	latest    map[string][]byte           // the batch's latest rows; nil deletes
	rows      map[int64]map[string][]byte // the batch's segment rows
}

// VersionedCounts are what a versioned store's restore did.
type VersionedCounts struct {
	// Put are the records applied; Skipped those older than stream time
	// minus the grace period, never applied (Kafka Streams skips them too).
	Put, Skipped int64
	// HistoryDropped counts the versions ended by a record whose segment
	// had already expired at the batch's stream time, never written.
	HistoryDropped int64
	// SegmentsOpened and SegmentsDropped count the logical segments
	// created and deleted as stream time passed them.
	SegmentsOpened, SegmentsDropped int64
}

// openVersionedStore opens an empty versioned store at path with the
// case's history retention and segment interval.
func openVersionedStore(c config.Case, path string) (*VersionedStore, error) {
	ret, iv := c.Retention.D().Milliseconds(), c.VersionedSegmentInterval().Milliseconds()
	if ret <= 0 || iv <= 0 {
		return nil, fmt.Errorf("versioned store: history retention %s and segment interval %s must be positive", c.Retention, c.VersionedSegmentInterval())
	}
	db, err := OpenRocks(path, c.RocksDB)
	if err != nil {
		return nil, err
	}
	return &VersionedStore{db: db, retention: ret, interval: iv, stream: -1, segments: map[int64]bool{}}, nil
}

// segmentOf is the segment id of timestamp ts (Java's long division).
func (v *VersionedStore) segmentOf(ts int64) int64 { return ts / v.interval }

// live says whether segment seg is live at the batch's stream time
// (AbstractSegments.getOrCreateSegmentIfLive).
func (v *VersionedStore) live(seg int64) bool { return seg >= v.segmentOf(v.end-v.retention) }

// Write restores one poll's records (RocksDBVersionedStore.restoreBatch).
func (v *VersionedStore) Write(entries []Entry) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.end = v.stream
	for _, e := range entries {
		v.end = max(v.end, e.Timestamp)
	}
	if err := v.dropExpired(); err != nil {
		return err
	}
	v.latest, v.rows = map[string][]byte{}, map[int64]map[string][]byte{}
	for _, e := range entries {
		if e.Timestamp < v.stream-v.retention {
			v.counts.Skipped++
			continue
		}
		v.stream = max(v.stream, e.Timestamp)
		if err := v.put(e); err != nil {
			return err
		}
		v.counts.Put++
	}
	return v.flush()
}

// dropExpired deletes the segments before the first live one.
func (v *VersionedStore) dropExpired() error {
	for seg := range v.segments {
		if v.live(seg) {
			continue
		}
		if err := v.db.DeleteRange(segmentPrefix(seg), segmentPrefix(seg+1)); err != nil {
			return fmt.Errorf("versioned segment %d: %w", seg, err)
		}
		delete(v.segments, seg)
		v.counts.SegmentsDropped++
	}
	return nil
}

// put applies one record to its key's versions.
func (v *VersionedStore) put(e Entry) error {
	key, ts := string(e.Key), e.Timestamp
	lat, err := v.latestOf(key)
	if err != nil {
		return err
	}
	if lat != nil {
		lts := int64(binary.BigEndian.Uint64(lat))
		if ts < lts {
			return fmt.Errorf("versioned store: key %q written at %d behind its latest version at %d: out-of-order versions are not modelled", e.Key, ts, lts)
		}
		if ts > lts {
			if err := v.moveToHistory(key, lts, ts, lat[8:]); err != nil {
				return err
			}
		}
		v.latest[key] = nil
		if e.Value != nil {
			v.latest[key] = latestRow(ts, e.Value)
		}
		return nil
	}
	seg := v.segmentOf(ts)
	row, err := v.rowOf(seg, key)
	if err != nil {
		return err
	}
	if row != nil && rowNext(row) > ts {
		return fmt.Errorf("versioned store: key %q written at %d behind its history ending at %d: out-of-order versions are not modelled", e.Key, ts, rowNext(row))
	}
	switch {
	case e.Value != nil:
		v.latest[key] = latestRow(ts, e.Value)
	case !v.live(seg): // a tombstone that changes no history kept
	case row == nil: // a "degenerate" row: the null version alone
		v.setRow(seg, key, appendVersion(nil, ts, ts, nil))
	case rowNext(row) != ts:
		v.setRow(seg, key, appendVersion(row, rowNext(row), ts, nil))
	}
	return nil
}

// moveToHistory moves the version [from, to) of key out of the latest
// value store into the segment of its validTo, or drops it if that
// segment has expired.
func (v *VersionedStore) moveToHistory(key string, from, to int64, value []byte) error {
	seg := v.segmentOf(to)
	if !v.live(seg) {
		v.counts.HistoryDropped++
		return nil
	}
	row, err := v.rowOf(seg, key)
	if err != nil {
		return err
	}
	v.setRow(seg, key, appendVersion(row, from, to, value))
	return nil
}

// latestOf is key's latest row, from the batch or the store; nil if none.
func (v *VersionedStore) latestOf(key string) ([]byte, error) {
	if row, ok := v.latest[key]; ok {
		return row, nil
	}
	row, _, err := v.db.Get(segmentKey(nil, latestSegment, []byte(key)))
	return row, err
}

// rowOf is key's row in segment seg, from the batch or the store; nil if
// none or the segment is not live.
func (v *VersionedStore) rowOf(seg int64, key string) ([]byte, error) {
	if row, ok := v.rows[seg][key]; ok {
		return row, nil
	}
	if !v.segments[seg] {
		return nil, nil
	}
	row, _, err := v.db.Get(segmentKey(nil, seg, []byte(key)))
	return row, err
}

// setRow buffers key's row in segment seg, creating the segment.
func (v *VersionedStore) setRow(seg int64, key string, row []byte) {
	if !v.segments[seg] {
		v.segments[seg] = true
		v.counts.SegmentsOpened++
	}
	if v.rows[seg] == nil {
		v.rows[seg] = map[string][]byte{}
	}
	v.rows[seg][key] = row
}

// flush writes the batch: the segments' rows in one WriteBatch, then the
// latest values' in another (RocksDBVersionedStoreRestoreWriteBuffer.flush).
func (v *VersionedStore) flush() error {
	var rows []Entry
	for _, seg := range slices.Sorted(maps.Keys(v.rows)) {
		for k, row := range v.rows[seg] {
			rows = append(rows, Entry{Key: segmentKey(nil, seg, []byte(k)), Value: row})
		}
	}
	if len(rows) > 0 {
		if err := v.db.Write(rows); err != nil {
			return err
		}
	}
	latest := make([]Entry, 0, len(v.latest))
	for k, row := range v.latest {
		latest = append(latest, Entry{Key: segmentKey(nil, latestSegment, []byte(k)), Value: row})
	}
	if len(latest) == 0 {
		return nil
	}
	return v.db.Write(latest)
}
