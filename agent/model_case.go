package agent

import "github.com/restorebench/restorebench/config"

// ModelCase is what a model restore on an agent is told of its case: the
// settings the model engine reads, and nothing of the scenario, query
// load, JVM or Kafka Streams version around it (config.Case holds those,
// and its JSON is the results' params, not this protocol).
// TestModelCaseCoversTheEngine keeps it whole: a field config.Case gains
// fails it until it is named here or listed as not the engine's.
type ModelCase struct {
	Name                   string            `json:"name"`
	Strategy               config.Strategy   `json:"strategy"`
	Store                  config.StoreType  `json:"store"`
	StoreKind              config.StoreKind  `json:"store_kind,omitempty"`
	Retention              config.Duration   `json:"retention,omitempty"`
	ReadExpired            bool              `json:"read_expired,omitempty"`
	SegmentInterval        config.Duration   `json:"segment_interval,omitempty"`
	BatchRecords           int               `json:"batch_records"`
	Threads                int               `json:"threads"`
	FetchMaxBytes          config.Size       `json:"fetch_max_bytes,omitempty"`
	MaxPartitionFetchBytes config.Size       `json:"max_partition_fetch_bytes,omitempty"`
	SortBuffer             config.Size       `json:"sort_buffer_bytes,omitempty"`
	RocksDBPreset          string            `json:"rocksdb"`
	RocksDB                config.RocksDB    `json:"rocksdb_options"`
	Streams                map[string]string `json:"streams,omitempty"`
}

// ModelCaseOf is what c tells a model restore on an agent.
func ModelCaseOf(c config.Case) ModelCase {
	return ModelCase{Name: c.Name, Strategy: c.Strategy, Store: c.Store, StoreKind: c.StoreKind, Retention: c.Retention,
		ReadExpired: c.ReadExpired, SegmentInterval: c.SegmentInterval, BatchRecords: c.BatchRecords, Threads: c.Threads,
		FetchMaxBytes: c.FetchMaxBytes, MaxPartitionFetchBytes: c.MaxPartitionFetchBytes, SortBuffer: c.SortBuffer,
		RocksDBPreset: c.RocksDBPreset, RocksDB: c.RocksDB, Streams: c.Streams}
}

// Case is the model engine's cold-restore case of these settings, as the
// agent runs it (a warm restart is the command's Warm, not the case's).
func (m ModelCase) Case() config.Case {
	return config.Case{Name: m.Name, Engine: config.EngineModel, Scenario: config.ScenarioCold,
		Strategy: m.Strategy, Store: m.Store, StoreKind: m.StoreKind, Retention: m.Retention,
		ReadExpired: m.ReadExpired, SegmentInterval: m.SegmentInterval, BatchRecords: m.BatchRecords, Threads: m.Threads,
		FetchMaxBytes: m.FetchMaxBytes, MaxPartitionFetchBytes: m.MaxPartitionFetchBytes, SortBuffer: m.SortBuffer,
		RocksDBPreset: m.RocksDBPreset, RocksDB: m.RocksDB, Streams: m.Streams}
}
