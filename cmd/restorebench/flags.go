package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/restorebench/restorebench/config"
)

// settingFlags binds flags directly to settings that start at their
// defaults, and remembers which flag sets which setting, so a
// *config.FieldError (named by the setting's profile path) is reported
// under the flag the user typed.
type settingFlags struct {
	fs     *pflag.FlagSet
	byPath map[string]string // setting path -> flag name
}

func newSettingFlags(fs *pflag.FlagSet) *settingFlags {
	return &settingFlags{fs: fs, byPath: map[string]string{}}
}

// note records that flag sets the setting at path. A path is named by one
// flag only: two flags noting one path would report one's errors under the
// other (as --store-type's once were under --store), so that panics at
// start-up, where any test of the command sees it. Settings of another
// scope (a case's, beside the profile's top level) take their own
// settingFlags over the same flag set (see caseFlags).
func (s *settingFlags) note(flag, path string) {
	if other, ok := s.byPath[path]; ok && other != flag {
		panic(fmt.Sprintf("flags --%s and --%s both set %q", other, flag, path))
	}
	s.byPath[path] = flag
}

func (s *settingFlags) intVar(p *int, flag, path, usage string) {
	s.fs.IntVar(p, flag, *p, usage)
	s.note(flag, path)
}

func (s *settingFlags) int64Var(p *int64, flag, path, usage string) {
	s.fs.Int64Var(p, flag, *p, usage)
	s.note(flag, path)
}

func (s *settingFlags) int32Var(p *int32, flag, path, usage string) {
	s.fs.Int32Var(p, flag, *p, usage)
	s.note(flag, path)
}

func (s *settingFlags) stringVar(p *string, flag, path, usage string) {
	s.fs.StringVar(p, flag, *p, usage)
	s.note(flag, path)
}

func (s *settingFlags) value(v pflag.Value, flag, path, usage string) {
	s.fs.Var(v, flag, usage)
	s.note(flag, path)
}

// changed reports whether the user gave flag.
func (s *settingFlags) changed(flag string) bool { return s.fs.Changed(flag) }

// rename reports err under the flag that set its setting: "--batch-records:
// 0 must be positive". Errors of settings no flag sets are returned as they are.
func (s *settingFlags) rename(err error) error {
	var fe *config.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if flag, ok := s.byPath[fe.Path]; ok {
		return fmt.Errorf("--%s: %s", flag, fe.Msg)
	}
	return err
}

// stringValue adapts a named string type (config.Strategy, ...) to pflag.
type stringValue[T ~string] struct{ p *T }

func (v stringValue[T]) String() string     { return string(*v.p) }
func (v stringValue[T]) Set(s string) error { *v.p = T(s); return nil }
func (v stringValue[T]) Type() string       { return "string" }

// caseFlags binds the flags of one case's settings to c, which holds the
// defaults (config.DefaultCase), and resolves them with Finalize. The case's
// settings are a scope of their own (a case's "store" is its store type, the
// top level's the store's name), so they are renamed through their own
// settingFlags over fs.
func caseFlags(fs *pflag.FlagSet, c *config.Case) func() error {
	s := newSettingFlags(fs)
	s.value(stringValue[config.Engine]{&c.Engine}, "engine", "engine", "what restores: model (Go, RocksDB through "+
		"grocksdb) or kafka-streams (the real client, one JVM; any other topic than "+
		"<application-id>-<store>-changelog is restored as a KTable's source-topic changelog)")
	s.value(stringValue[config.Strategy]{&c.Strategy}, "strategy", "strategy", "how records reach the store: put (a "+
		"WriteBatch per poll), bulk (KIP-167 bulk load), ingest (sorted SST files), memory")
	s.value(stringValue[config.StoreType]{&c.Store}, "store-type", "store", "store type: rocksdb or memory")
	s.value(stringValue[config.StoreKind]{&c.StoreKind}, "store-kind", "store_kind", "the store's kind by Kafka Streams' "+
		"Stores factory: key-value (default), timestamped-key-value (what every DSL count, aggregate and table "+
		"materializes: each value kept behind its timestamp), window, timestamped-window (what every DSL windowed "+
		"count and aggregate materializes), session, versioned-key-value")
	s.intVar(&c.BatchRecords, "batch-records", "batch_records", "records per poll and WriteBatch (the restore consumer's max.poll.records)")
	s.intVar(&c.Threads, "threads", "threads", "stream threads (num.stream.threads), each with its own restore consumer and a share of the tasks")
	s.value(&c.FetchMaxBytes, "fetch-max-bytes", "fetch_max_bytes", "the restore consumer's fetch.max.bytes")
	s.value(&c.MaxPartitionFetchBytes, "max-partition-fetch-bytes", "max_partition_fetch_bytes", "the restore consumer's max.partition.fetch.bytes")
	s.value(&c.SortBuffer, "sort-buffer", "sort_buffer", "memory for the ingest strategy's external sort, shared by the partitions")
	preset := c.RocksDBPreset
	s.stringVar(&preset, "rocksdb", "rocksdb", "RocksDB option preset (kstreams = Kafka Streams' RocksDBStore defaults)")
	guarantee := c.ProcessingGuarantee()
	s.stringVar(&guarantee, "processing-guarantee", "streams."+config.PropProcessingGuarantee,
		"Kafka Streams' processing.guarantee: at_least_once restores read_uncommitted, exactly_once_v2 read_committed (the "+
			"records of aborted transactions are not restored)")
	return func() error {
		if preset != c.RocksDBPreset {
			c.RocksDBPreset = preset
			if o, ok := config.RocksDBPreset(preset); ok {
				c.RocksDB = o
			}
		}
		if fs.Changed("processing-guarantee") {
			setStreams(c, config.PropProcessingGuarantee, guarantee)
		}
		return s.rename(c.Finalize())
	}
}

// setStreams sets one of the case's Kafka Streams properties, as the
// case's streams map in a profile does: a flag and a profile setting of the
// same property mean one thing.
func setStreams(c *config.Case, key, value string) {
	m := make(map[string]string, len(c.Streams)+1)
	for k, v := range c.Streams {
		m[k] = v
	}
	m[key] = value
	c.Streams = m
}
