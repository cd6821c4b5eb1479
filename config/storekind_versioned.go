package config

import (
	"fmt"
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

// LayoutVersioned is a versioned store: a latest-value store and logical
// history segments in one RocksDB.
const LayoutVersioned StoreLayout = "versioned"

// A versioned store restores cold only. Read in Kafka Streams 4.4:
// LogicalKeyValueSegments.openExisting opens the physical RocksDB but
// registers none of its segments, and reads (RocksDBVersionedStore.get)
// search only registered ones, so after a restart the history in
// segments no restored record touches again is not served.
func init() {
	refused := map[Scenario]string{}
	for _, s := range []Scenario{ScenarioWarm, ScenarioStandby, ScenarioFailover} {
		refused[s] = "Kafka Streams reopens a versioned store " +
			"without its history segments (LogicalKeyValueSegments.openExisting registers none), so a " +
			"restarted store serves only the history its restore touches again, a state the fill's expected " +
			"state does not describe yet"
	}
	registerStoreKind(StoreKindDef{Kind: StoreVersionedKeyValue, Layout: LayoutVersioned, Retention: true,
		Can: []KindCap{CapRestore}, Refused: refused,
		NoLookups:   "versioned lookups are not built yet",
		check:       Case.checkVersioned,
		fillSpec:    Fill.versionedSpec,
		driverProps: retentionProperties,
		fillProps:   versionedFillProperties,
		// What it kept and dropped is uncounted on the kafka-streams
		// engine (no listener or metric sees the versions
		// RocksDBVersionedStore drops past its history), and its segments
		// are logical ones inside one RocksDB instance, not directories.
		Figures: KindFigures{Recorded: true, Uncounted: true, SegmentInterval: Case.VersionedSegmentInterval}})
}

// versionedFillProperties give a versioned store's instance its fill's key
// count: a versioned store has no range read, so the driver digests it by
// asking for every key of the fill's key space.
func versionedFillProperties(c Case, spec *loadgen.Spec) (map[string]string, error) {
	if spec == nil || spec.Keys <= 0 {
		return nil, fmt.Errorf("case %s: a versioned store is digested over its fill's keys, and this restore has no fill's spec", c.Name)
	}
	if w := spec.KeyWidth(); w != loadgen.DefaultKeyBytes {
		return nil, fmt.Errorf("case %s: %s", c.Name, VersionedKeyBytesRefusal(w))
	}
	return map[string]string{ksdriver.PropStoreKeys: strconv.FormatInt(spec.Keys, 10)}, nil
}

// VersionedKeyBytesRefusal says why a kafka-streams versioned store is
// not restored from a fill of keys width bytes wide: the driver digests
// it key by key, asking for the keys "k" and 15 digits
// (restorebench.store.keys), so it would miss every key of another width
// and report an empty store.
func VersionedKeyBytesRefusal(width int) string {
	return fmt.Sprintf("the kafka-streams driver digests a %s store key by key over the fill's keys as %d-byte ones (\"k\" and 15 digits), "+
		"not %d-byte ones: run it with key_bytes %d (or unset), or on the model engine",
		StoreVersionedKeyValue, loadgen.DefaultKeyBytes, width, loadgen.DefaultKeyBytes)
}

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
