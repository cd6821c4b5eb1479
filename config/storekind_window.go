package config

import (
	"strconv"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

const (
	// StoreWindow is Stores.persistentWindowStore without duplicates (or
	// Stores.inMemoryWindowStore): segmented by window start, windows past
	// the retention dropped on restore.
	StoreWindow = loadgen.KindWindow
	// StoreTimestampedWindow is Stores.persistentTimestampedWindowStore
	// without duplicates, what every DSL windowed count, aggregate and
	// reduce materializes: a window store that keeps each value behind its
	// record's 8-byte timestamp (Kafka Streams' TimestampedBytesStore
	// conversion on restore).
	StoreTimestampedWindow = loadgen.KindTimestampedWindow
)

// LayoutWindow is a window store's segments, by window start.
const LayoutWindow StoreLayout = "window"

// A window store restarts warm, keeps standbys, fails over and restarts
// rolling (under a write load: checkRolling); Kafka Streams' in-memory
// window store (Stores.inMemoryWindowStore) has no segments, so a segment
// interval is for a rocksdb store only on the kafka-streams engine.
func init() {
	registerStoreKind(windowKindDef(StoreWindow, []KindCap{CapRestore, CapReopen, CapReopenLater, CapWriteLoad},
		func(c Case) error {
			if err := c.checkSegmented(); err != nil {
				return err
			}
			if c.SegmentInterval != 0 && c.Engine == EngineKafkaStreams && c.Memory() {
				return fieldErr("segment_interval", "Kafka Streams' in-memory window store (Stores.inMemoryWindowStore) has no segments; set it for a rocksdb store only")
			}
			return nil
		}))
	// A timestamped window store restores cold, on RocksDB: restorebench
	// restores an application's windowed aggregation's changelog as one,
	// as the DSL materializes it by default. Kafka Streams also builds an
	// in-memory one (Stores.inMemoryWindowStore under
	// timestampedWindowStoreBuilder, marked timestamped); restorebench does
	// not build it yet.
	registerStoreKind(windowKindDef(StoreTimestampedWindow, []KindCap{CapRestore},
		func(c Case) error {
			if err := c.checkSegmented(); err != nil {
				return err
			}
			if c.Memory() {
				return fieldErr("store", "a %s store restores into RocksDB (Stores.persistentTimestampedWindowStore) only so far; "+
					"restorebench does not build the in-memory one yet", c.StoreKind)
			}
			return nil
		}))
}

// windowKindDef is the descriptor of a window store kind (window,
// timestamped window): segments by window start, a retention, the fill's
// window size, restorable from a topic restorebench did not fill; it can
// what can says, and check validates a case of it.
func windowKindDef(kind StoreKind, can []KindCap, check func(c Case) error) StoreKindDef {
	return StoreKindDef{Kind: kind, Layout: LayoutWindow, Retention: true, Can: can, check: check,
		NoLookups:   "window fetches are not built yet",
		fillSpec:    segmentedFillSpec,
		driverProps: retentionProperties,
		fillProps:   windowSizeProperties,
		Figures:     KindFigures{Recorded: true, Uncounted: true, SegmentInterval: Case.SegmentIntervalOf, SegmentDirs: true},
		Foreign:     true, foreignProps: foreignWindowSize,
		ForeignRead: ForeignRead{Keys: KeysWindow, Folds: "each key's last value per window, the windows past the retention left out"}}
}

// foreignWindowSize gives a window store restored from a topic
// restorebench did not fill its window size: a minute, or its retention
// when shorter (Kafka Streams refuses a window longer than the
// retention). Its changelog does not record it, and a restore never reads
// it: it only sets the end of the windows a fetch returns, and the digest
// reads each entry's key and window start.
func foreignWindowSize(c Case) map[string]string {
	ms := min(c.Retention.D().Milliseconds(), time.Minute.Milliseconds())
	return map[string]string{ksdriver.PropStoreWindowSizeMs: strconv.FormatInt(ms, 10)}
}
