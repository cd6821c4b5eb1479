package engine

import (
	"encoding/binary"

	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

// servedAfter is the validTo an older version must be past to be served:
// RocksDBVersionedStore.get(key, asOf) answers only for asOf at or after
// stream time minus the history retention.
func (v *VersionedStore) servedAfter() int64 { return v.stream - v.retention }

// Get returns key's latest value (VersionedKeyValueStore.get(key)), and
// false when it has none (never written, or deleted last).
func (v *VersionedStore) Get(key []byte) ([]byte, bool, error) {
	row, ok, err := v.db.Get(segmentKey(nil, latestSegment, key))
	if err != nil || !ok {
		return nil, false, err
	}
	return row[8:], true, nil
}

// ForEach visits every version the store serves, one entry each under its
// digest key and value (loadgen.AppendVersionedDigestKey and
// AppendVersionedDigestValue): every key's latest version, and each older
// non-null version whose validTo is after stream time minus the history
// retention. Rows of segments already expired are skipped; versions of a
// live segment past the retention are not served (get(key, asOf) returns
// null for them) and so not visited.
func (v *VersionedStore) ForEach(fn func(key, value []byte) error) error {
	v.mu.Lock()
	after := v.servedAfter()
	firstLive := v.segmentOf(v.stream - v.retention)
	v.mu.Unlock()
	var dk, dv []byte
	return v.db.ForEach(func(k, row []byte) error {
		seg, key := int64(binary.BigEndian.Uint64(k)), k[8:]
		if seg == latestSegment {
			dk = loadgen.AppendVersionedDigestKey(dk[:0], key, int64(binary.BigEndian.Uint64(row)))
			dv = loadgen.AppendVersionedDigestValue(dv[:0], loadgen.NoValidTo, row[8:])
			return fn(dk, dv)
		}
		if seg < firstLive {
			return nil
		}
		return eachVersion(row, func(from, to int64, value []byte) error {
			if to <= after {
				return nil
			}
			dk = loadgen.AppendVersionedDigestKey(dk[:0], key, from)
			dv = loadgen.AppendVersionedDigestValue(dv[:0], to, value)
			return fn(dk, dv)
		})
	})
}

// Counts returns what the restore has done.
func (v *VersionedStore) Counts() VersionedCounts {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.counts
}

// Segments is the number of live logical segments holding rows.
func (v *VersionedStore) Segments() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.segments)
}

// Stats are the RocksDB instance's figures.
func (v *VersionedStore) Stats() measure.StoreStats { return v.db.Stats() }

// Flush flushes the RocksDB instance.
func (v *VersionedStore) Flush() error { return v.db.Flush() }

// Settled reports whether the RocksDB instance is.
func (v *VersionedStore) Settled() bool { return v.db.Settled() }

// Close closes the RocksDB instance.
func (v *VersionedStore) Close() error { return v.db.Close() }
