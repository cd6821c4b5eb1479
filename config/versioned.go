package config

import (
	"strconv"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// StoreVersionedKeyValue is Stores.persistentVersionedKeyValueStore
// (KIP-889), built with Stores.versionedKeyValueStoreBuilder: each key's
// latest version in a latest-value store, older versions in segments by
// their validTo, served for the history retention (the fill's retention).
// Kafka Streams has no in-memory versioned store.
const StoreVersionedKeyValue = loadgen.KindVersionedKeyValue

// checkVersioned checks a versioned store's case: restored row by row
// into RocksDB (strategy put, store rocksdb: there is no in-memory
// versioned store, and its restore reads each key's versions back, so no
// bulk load or SST ingest), a positive history retention and, when set, a
// segment interval of at least a millisecond.
func (c Case) checkVersioned() error {
	switch {
	case c.Memory() || c.Strategy == StrategyMemory:
		return fieldErr("store", "Kafka Streams has no in-memory versioned store (only Stores.persistentVersionedKeyValueStore): use store rocksdb and strategy put")
	case c.Strategy != StrategyPut:
		return fieldErr("strategy", "%s: a versioned store restores with put only (each record reads its key's versions back)", c.Strategy)
	case c.Retention <= 0:
		return fieldErr("retention", "the versioned store's history retention (fill.retention), %s, must be positive", c.Retention)
	case c.SegmentInterval < 0:
		return fieldErr("segment_interval", "%s is negative", c.SegmentInterval)
	case c.SegmentInterval != 0 && c.SegmentInterval.D() < time.Millisecond:
		return fieldErr("segment_interval", "%s is under a millisecond", c.SegmentInterval)
	}
	return nil
}

// VersionedSegmentInterval is a versioned store's segment interval: the
// case's, or what RocksDbVersionedKeyValueBytesStoreSupplier picks for the
// history retention when none is given (Kafka Streams 3.5-4.4): a third
// of it (at least 2 s) up to 1 min, a fifth (at least 20 s) up to 5 min,
// a twelfth (at least 1 min) up to 1 h, else a 24th (at least 5 min).
func (c Case) VersionedSegmentInterval() time.Duration {
	if c.SegmentInterval > 0 {
		return c.SegmentInterval.D()
	}
	ms := c.Retention.D().Milliseconds()
	var iv int64
	switch {
	case ms <= 60_000:
		iv = max(ms/3, 2_000)
	case ms <= 300_000:
		iv = max(ms/5, 20_000)
	case ms <= 3_600_000:
		iv = max(ms/12, 60_000)
	default:
		iv = max(ms/24, 300_000)
	}
	return time.Duration(iv) * time.Millisecond
}

// versionedSpec sets a versioned fill's history retention (Retention, by
// default DefaultRetention); it has no windows.
func (f Fill) versionedSpec(spec *loadgen.Spec) error {
	if f.WindowSize != 0 {
		return fieldErr("window_size", "windows are set only with store_kind window, not %s", StoreVersionedKeyValue)
	}
	spec.RetentionMs = orDefault(f.Retention, DefaultRetention).D().Milliseconds()
	return nil
}

// versionedProperties are the driver's keys of a versioned store: its
// history retention and (when the case sets one) segment interval, in
// milliseconds.
func (c Case) versionedProperties() map[string]string {
	p := map[string]string{ksdriver.PropStoreRetentionMs: strconv.FormatInt(c.Retention.D().Milliseconds(), 10)}
	if c.SegmentInterval > 0 {
		p[ksdriver.PropStoreSegmentIntervalMs] = strconv.FormatInt(c.SegmentInterval.D().Milliseconds(), 10)
	}
	return p
}
