package measure

// RocksDBOptions are the RocksDB settings a store opens with. Field names
// and JSON names follow RocksDB's own option names; a zero number leaves
// RocksDB's default in place.
type RocksDBOptions struct {
	// Preset names where the values started from, e.g. "kstreams".
	Preset string `json:"preset" yaml:"preset"`
	// BlockCacheBytes is the LRU block cache per store. Kafka Streams: 50 MiB.
	BlockCacheBytes uint64 `json:"block_cache_size" yaml:"block_cache_size"`
	// BlockSize is the table block size. Kafka Streams: 4 KiB.
	BlockSize int `json:"block_size" yaml:"block_size"`
	// BloomBitsPerKey enables a bloom filter when positive. Kafka Streams: 10.
	BloomBitsPerKey float64 `json:"bloom_bits_per_key" yaml:"bloom_bits_per_key"`
	// WriteBufferSize is write_buffer_size, one memtable. Kafka Streams: 16 MiB.
	WriteBufferSize uint64 `json:"write_buffer_size" yaml:"write_buffer_size"`
	// MaxWriteBufferNumber is max_write_buffer_number. Kafka Streams: 3.
	MaxWriteBufferNumber int `json:"max_write_buffer_number" yaml:"max_write_buffer_number"`
	// CompactionStyle is "universal" (Kafka Streams) or "level".
	CompactionStyle string `json:"compaction_style" yaml:"compaction_style"`
	// Compression is "none" (Kafka Streams), "snappy", "lz4" or "zstd".
	Compression string `json:"compression" yaml:"compression"`
	// DisableWAL skips RocksDB's write-ahead log. Kafka Streams: true (the
	// changelog is the durable log).
	DisableWAL bool `json:"disable_wal" yaml:"disable_wal"`
	// Parallelism is IncreaseParallelism's thread count. Kafka Streams:
	// max(available processors, 2).
	Parallelism int `json:"increase_parallelism" yaml:"increase_parallelism"`
	// Level0FileNumCompactionTrigger is level0_file_num_compaction_trigger
	// (RocksDB default 4).
	Level0FileNumCompactionTrigger int `json:"level0_file_num_compaction_trigger,omitempty" yaml:"level0_file_num_compaction_trigger"`
	// Level0SlowdownWritesTrigger is level0_slowdown_writes_trigger (default 20).
	Level0SlowdownWritesTrigger int `json:"level0_slowdown_writes_trigger,omitempty" yaml:"level0_slowdown_writes_trigger"`
	// Level0StopWritesTrigger is level0_stop_writes_trigger (default 36).
	Level0StopWritesTrigger int `json:"level0_stop_writes_trigger,omitempty" yaml:"level0_stop_writes_trigger"`
	// MaxBackgroundJobs is max_background_jobs (RocksDB default 2; Kafka
	// Streams leaves it to IncreaseParallelism).
	MaxBackgroundJobs int `json:"max_background_jobs,omitempty" yaml:"max_background_jobs"`
}
