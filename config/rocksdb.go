package config

import (
	"runtime"
	"sort"
	"strings"
)

// RocksDB are the RocksDB options one store opens with, by RocksDB's own
// option names (YAML and JSON alike), so users recognise them. A case starts
// from a preset (RocksDBPresets), which sets every option, and overrides
// single ones. (results.json files written before the presets set the level-0
// triggers and max_background_jobs carry 0 there: RocksDB's default.)
type RocksDB struct {
	// Preset names where the values started from, e.g. "kstreams".
	Preset string `json:"preset" yaml:"-"`
	// BlockCacheSize is the LRU block cache per store (block_cache_size).
	// Kafka Streams: 50 MiB.
	BlockCacheSize Size `json:"block_cache_size" yaml:"block_cache_size"`
	// BlockSize is the table block size (block_size). Kafka Streams: 4 KiB.
	BlockSize Size `json:"block_size" yaml:"block_size"`
	// BloomBitsPerKey enables a bloom filter when positive. Kafka Streams: 10.
	BloomBitsPerKey float64 `json:"bloom_bits_per_key" yaml:"bloom_bits_per_key"`
	// WriteBufferSize is one memtable (write_buffer_size). Kafka Streams: 16 MiB.
	WriteBufferSize Size `json:"write_buffer_size" yaml:"write_buffer_size"`
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
	Parallelism int `json:"increase_parallelism" yaml:"-"`
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

// RocksDBPresets are the named option sets a case can start from.
var RocksDBPresets = map[string]func() RocksDB{
	"kstreams": KStreamsRocksDB,
}

// KStreamsRocksDB mirrors Kafka Streams' RocksDBStore defaults: 50 MiB LRU
// block cache, 4 KiB blocks, bloom filter, 16 MiB write buffer x 3,
// universal compaction, no compression, WAL off.
func KStreamsRocksDB() RocksDB {
	return RocksDB{
		Preset:               "kstreams",
		BlockCacheSize:       50 << 20,
		BlockSize:            4 << 10,
		BloomBitsPerKey:      10,
		WriteBufferSize:      16 << 20,
		MaxWriteBufferNumber: 3,
		CompactionStyle:      "universal",
		Compression:          "none",
		DisableWAL:           true,
		Parallelism:          max(runtime.NumCPU(), 2),
		// RocksDB's defaults, which Kafka Streams keeps; IncreaseParallelism
		// sets max_background_jobs to its thread count.
		Level0FileNumCompactionTrigger: 4,
		Level0SlowdownWritesTrigger:    20,
		Level0StopWritesTrigger:        36,
		MaxBackgroundJobs:              max(runtime.NumCPU(), 2),
	}
}

// RocksDBPreset returns the named preset's options.
func RocksDBPreset(name string) (RocksDB, bool) {
	f, ok := RocksDBPresets[name]
	if !ok {
		return RocksDB{}, false
	}
	return f(), true
}

func presetNames() string {
	names := make([]string, 0, len(RocksDBPresets))
	for n := range RocksDBPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// CompactionStyles and RocksDBCompressions are the values the engine supports.
var (
	CompactionStyles    = []string{"universal", "level"}
	RocksDBCompressions = []string{"none", "snappy", "lz4", "zstd"}
)

// Validate names the first option out of range.
func (o RocksDB) Validate() error {
	switch {
	case o.BlockCacheSize < 0:
		return fieldErr("block_cache_size", "%d is negative", o.BlockCacheSize)
	case o.BlockSize <= 0:
		return fieldErr("block_size", "%d must be positive", o.BlockSize)
	case o.BloomBitsPerKey < 0:
		return fieldErr("bloom_bits_per_key", "%v is negative", o.BloomBitsPerKey)
	case o.WriteBufferSize <= 0:
		return fieldErr("write_buffer_size", "%d must be positive", o.WriteBufferSize)
	case o.MaxWriteBufferNumber <= 0:
		return fieldErr("max_write_buffer_number", "%d must be positive", o.MaxWriteBufferNumber)
	case !oneOf(o.CompactionStyle, CompactionStyles):
		return fieldErr("compaction_style", "%q is not one of %s", o.CompactionStyle, strings.Join(CompactionStyles, ", "))
	case !oneOf(o.Compression, RocksDBCompressions):
		return fieldErr("compression", "%q is not one of %s", o.Compression, strings.Join(RocksDBCompressions, ", "))
	case o.Level0FileNumCompactionTrigger <= 0:
		return fieldErr("level0_file_num_compaction_trigger", "%d must be positive", o.Level0FileNumCompactionTrigger)
	case o.Level0SlowdownWritesTrigger <= 0:
		return fieldErr("level0_slowdown_writes_trigger", "%d must be positive", o.Level0SlowdownWritesTrigger)
	case o.Level0StopWritesTrigger <= 0:
		return fieldErr("level0_stop_writes_trigger", "%d must be positive", o.Level0StopWritesTrigger)
	case o.MaxBackgroundJobs <= 0:
		return fieldErr("max_background_jobs", "%d must be positive", o.MaxBackgroundJobs)
	case o.BlockSize > MaxBlockSize:
		return fieldErr("block_size", "%s is over %s (RocksDB refuses 4 GiB and more)", o.BlockSize, MaxBlockSize)
	case o.BloomBitsPerKey > MaxBloomBitsPerKey:
		return fieldErr("bloom_bits_per_key", "%v is over %d (RocksDB uses at most %d)", o.BloomBitsPerKey, MaxBloomBitsPerKey, MaxBloomBitsPerKey)
	case o.WriteBufferSize > MaxWriteBufferSize:
		return fieldErr("write_buffer_size", "%s is over %s (RocksDB's own limit)", o.WriteBufferSize, MaxWriteBufferSize)
	case o.MaxWriteBufferNumber > MaxWriteBufferNumber:
		return fieldErr("max_write_buffer_number", "%d is over %d", o.MaxWriteBufferNumber, MaxWriteBufferNumber)
	case o.MaxBackgroundJobs > max(MaxBackgroundJobs, runtime.NumCPU()):
		return fieldErr("max_background_jobs", "%d is over %d", o.MaxBackgroundJobs, max(MaxBackgroundJobs, runtime.NumCPU()))
	case o.Level0FileNumCompactionTrigger > MaxLevel0Trigger:
		return fieldErr("level0_file_num_compaction_trigger", "%d is over %d", o.Level0FileNumCompactionTrigger, MaxLevel0Trigger)
	case o.Level0SlowdownWritesTrigger > MaxLevel0Trigger:
		return fieldErr("level0_slowdown_writes_trigger", "%d is over %d", o.Level0SlowdownWritesTrigger, MaxLevel0Trigger)
	case o.Level0StopWritesTrigger > MaxLevel0Trigger:
		return fieldErr("level0_stop_writes_trigger", "%d is over %d", o.Level0StopWritesTrigger, MaxLevel0Trigger)
	}
	return firstErr(
		checkMemory("block_cache_size", o.BlockCacheSize),
		checkMemory("write_buffer_size", o.WriteBufferSize),
	)
}

func oneOf[T ~string](v T, list []T) bool {
	for _, x := range list {
		if v == x {
			return true
		}
	}
	return false
}
