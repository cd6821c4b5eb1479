package config

import "github.com/restorebench/restorebench/loadgen"

const (
	// StoreKeyValue is Stores.persistentKeyValueStore (or the in-memory
	// one, with Store "memory").
	StoreKeyValue = loadgen.KindKeyValue
	// StoreTimestampedKeyValue is Stores.persistentTimestampedKeyValueStore,
	// what the DSL's aggregate, count and table materialize: each value is
	// kept behind its record's 8-byte timestamp.
	StoreTimestampedKeyValue = loadgen.KindTimestampedKeyValue
)

// LayoutKeyValue is one RocksDB (or in-memory) store per task, by
// strategy, values behind their timestamps for a kind whose
// loadgen.FillKindDef.TimestampedValue says so.
const LayoutKeyValue StoreLayout = "key-value"

// keyValueCan is what a key-value store can do: everything a scenario
// needs of a kind.
var keyValueCan = []KindCap{CapRestore, CapReopen, CapReopenLater, CapWriteLoad, CapWarmups, CapCompacted}

func init() {
	registerStoreKind(StoreKindDef{Kind: StoreKeyValue, Can: keyValueCan, Layout: LayoutKeyValue, Foreign: true,
		check: func(c Case) error {
			if c.Retention != 0 || c.SegmentInterval != 0 {
				return fieldErr("segment_interval", "set only for window and session stores (fill.store_kind: window, timestamped-window or session)")
			}
			return nil
		}})
	// A timestamped store restarts warm (its kept store reopened and
	// restored from its committed offset), keeps standbys (whose pause
	// step restarts a kept store likewise), fails over (on the
	// kafka-streams engine, the kv topology over the fill in place of the
	// ledger) and restarts rolling; it keeps every record it restores.
	// Its scale-out and compaction are not built yet.
	registerStoreKind(StoreKindDef{Kind: StoreTimestampedKeyValue, Layout: LayoutKeyValue, Foreign: true,
		Can: []KindCap{CapRestore, CapReopen, CapReopenLater, CapWriteLoad},
		check: func(c Case) error {
			if c.Retention != 0 || c.SegmentInterval != 0 {
				return fieldErr("segment_interval", "set only for window and session stores, not %s ones", c.StoreKind)
			}
			return nil
		},
		fillSpec: func(f Fill, _ *loadgen.Spec) error {
			if f.WindowSize != 0 || f.Retention != 0 {
				return fieldErr("window_size", "windows and retention are set only with store_kind window, timestamped-window or session")
			}
			return nil
		},
		Figures: KindFigures{Recorded: true}})
}
