package config

import "github.com/restorebench/restorebench/loadgen"

// StoreWindow is Stores.persistentWindowStore without duplicates (or
// Stores.inMemoryWindowStore): segmented by window start, windows past
// the retention dropped on restore.
const StoreWindow = loadgen.KindWindow

// A window store restarts warm, keeps standbys, fails over and restarts
// rolling (under a write load: checkRolling); Kafka Streams' in-memory
// window store (Stores.inMemoryWindowStore) has no segments, so a segment
// interval is for a rocksdb store only on the kafka-streams engine.
func init() {
	registerStoreKind(StoreKindDef{Kind: StoreWindow, Layout: LayoutWindow, Retention: true,
		Scenarios: []Scenario{ScenarioCold, ScenarioWarm, ScenarioStandby, ScenarioFailover, ScenarioRolling},
		check: func(c Case) error {
			if err := c.checkSegmented(); err != nil {
				return err
			}
			if c.SegmentInterval != 0 && c.Engine == EngineKafkaStreams && c.Memory() {
				return fieldErr("segment_interval", "Kafka Streams' in-memory window store (Stores.inMemoryWindowStore) has no segments; set it for a rocksdb store only")
			}
			return nil
		},
		NoLookups:   "window fetches are not built yet",
		fillSpec:    segmentedFillSpec,
		driverProps: retentionProperties,
		fillProps:   windowSizeProperties,
		Figures:     KindFigures{Recorded: true, Uncounted: true, SegmentInterval: Case.SegmentIntervalOf, SegmentDirs: true}})
}
