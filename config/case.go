package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// Engine names what runs a case.
type Engine string

const (
	// EngineModel is the Go model of Kafka Streams' restore: franz-go's
	// consumer and RocksDB through grocksdb, in process. The default.
	EngineModel Engine = "model"
	// EngineKafkaStreams runs the real Kafka Streams client as separate JVM
	// processes the tool starts and watches.
	EngineKafkaStreams Engine = "kafka-streams"
)

// Engines lists the engine names.
var Engines = []Engine{EngineModel, EngineKafkaStreams}

// Scenario names what a case measures. Each scenario is one ScenarioDef
// in the registry (scenarios.go), defined and registered in its own file
// (scenario_<name>.go) with its Scenario constant and settings.
type Scenario string

// Strategy is how changelog records reach a store during a restore.
type Strategy string

const (
	// StrategyPut writes each poll's records as one WriteBatch, as Kafka
	// Streams restores today.
	StrategyPut Strategy = "put"
	// StrategyBulk is Kafka Streams' old bulk-load mode (KIP-167, removed by
	// KAFKA-10005): auto compactions off and L0 triggers out of reach while
	// loading, then one manual full compaction.
	StrategyBulk Strategy = "bulk"
	// StrategyIngest sorts and de-duplicates the changelog by key with an
	// external sort, writes SST files and ingests them. Kafka Streams has no
	// such path: it is an upper bound on what a restore could be.
	StrategyIngest Strategy = "ingest"
	// StrategyMemory restores into an in-memory store (Kafka Streams'
	// InMemoryKeyValueStore): the baseline without RocksDB.
	StrategyMemory Strategy = "memory"
)

// Strategies lists the strategies.
var Strategies = []Strategy{StrategyPut, StrategyBulk, StrategyIngest, StrategyMemory}

// StoreType is the kind of state store.
type StoreType string

const (
	// StoreRocksDB is a persistent RocksDB store per task, Kafka Streams' default.
	StoreRocksDB StoreType = "rocksdb"
	// StoreMemory is Kafka Streams' in-memory key-value store.
	StoreMemory StoreType = "memory"
)

// StoreTypes lists the store types.
var StoreTypes = []StoreType{StoreRocksDB, StoreMemory}

// StoreKind is the kind of state store a case restores, by the Stores
// factory Kafka Streams builds it with. Its changelog's records and what a
// restore makes of them differ by kind (a window store's keys carry the
// window start, a versioned store keeps every version within its history).
// The fill writes the changelog of one kind (fill.store_kind); its cases
// restore that kind.
type StoreKind = loadgen.StoreKind

// DriverKafkaStreamsVersion is the Kafka Streams version a kafka-streams
// case runs unless kafka_streams_version names another of
// KafkaStreamsVersions: kstreams/pom.xml's kafka.version.
const DriverKafkaStreamsVersion = ksdriver.DefaultKafkaStreamsVersion // "4.4.0"

// Case is every setting of one benchmark case, resolved: profiles and flags
// start from DefaultCase and overwrite what they set, Finalize applies the
// rules that tie settings together and validates, the engines run it, and
// results.json records it as the restore's "params".
//
// YAML names are the profile's; JSON names are results.json's.
type Case struct {
	// Name identifies the case in results and plots.
	Name string `json:"-" yaml:"name"`
	// Engine is "model" (default) or "kafka-streams".
	Engine Engine `json:"engine,omitempty" yaml:"engine"`
	// Scenario is what the case measures. Default "cold".
	Scenario Scenario `json:"scenario" yaml:"scenario"`
	// Strategy is how records reach the store: put (default), bulk, ingest
	// or memory. memory implies store memory.
	Strategy Strategy `json:"strategy" yaml:"strategy"`
	// Store is "rocksdb" (default) or "memory". A memory store restores with
	// the memory strategy.
	Store StoreType `json:"store" yaml:"store"`
	// StoreKind is the kind of store the case restores: key-value
	// (default, Stores.persistentKeyValueStore), timestamped-key-value,
	// window, session or versioned-key-value; it is the fill's
	// (fill.store_kind). The kinds beyond key-value restore cold, on both
	// engines.
	StoreKind StoreKind `json:"store_kind,omitempty" yaml:"store_kind"`
	// Retention is a window store's retention (Stores.persistentWindowStore's
	// retentionPeriod): windows starting at or before stream time minus it
	// are dropped on restore; or a session store's
	// (Stores.persistentSessionStore's): sessions ending at or before it.
	// It is the fill's (fill.retention); 0 for the other kinds.
	Retention Duration `json:"retention,omitempty" yaml:"-"`
	// Queries is a load of key lookups beside the scenario, each checked
	// against the fill (QueryLoad); nil (default) runs none.
	Queries *QueryLoad `json:"queries,omitempty" yaml:"queries"`
	// ReadExpired makes a model-engine cold restore of a window or session
	// store read its changelog from the log start, as Kafka Streams 3.9 to
	// 4.1 and 4.3 do, dropping the expired records on arrival, instead of
	// seeking past them to the first record within the retention of the
	// last, as 4.2.2 and 4.4 do (StoreChangelogReader's
	// seekByRetentionFromPolledRecords). Default false (as 4.4). On the
	// kafka-streams engine the case's kafka_streams_version decides, so it
	// is refused there.
	ReadExpired bool `json:"read_expired,omitempty" yaml:"read_expired"`
	// SegmentInterval is a window store's segment interval: one RocksDB
	// instance per interval of window starts (a session store's: of
	// session ends, on the model engine only). Default 0: Kafka Streams'
	// max(retention / 2, 60 s).
	SegmentInterval Duration `json:"segment_interval,omitempty" yaml:"segment_interval"`
	// KafkaStreamsVersion is the Kafka Streams version a kafka-streams
	// engine instance runs, one of KafkaStreamsVersions (3.9.1 to 4.4.0):
	// the driver built against it (.cache/kstreams/<version>/lib) is
	// launched, and its hello must name it. Default
	// DriverKafkaStreamsVersion (4.4.0), written into the case by Finalize
	// so that its record names it. Refused on the model engine, which runs
	// no Kafka Streams.
	KafkaStreamsVersion string `json:"kafka_streams_version,omitempty" yaml:"kafka_streams_version"`
	// BatchRecords is the restore consumer's max.poll.records: each poll's
	// records become one WriteBatch per store. Kafka Streams'
	// restore.consumer.max.poll.records; default 1000.
	BatchRecords int `json:"batch_records" yaml:"batch_records"`
	// Threads is the number of stream threads (num.stream.threads), each
	// restoring a share of the tasks with its own restore consumer. Default 1.
	Threads int `json:"threads" yaml:"threads"`
	// FetchMaxBytes is the restore consumer's fetch.max.bytes. Default
	// 52428800 (Kafka's).
	FetchMaxBytes Size `json:"fetch_max_bytes,omitempty" yaml:"fetch_max_bytes"`
	// MaxPartitionFetchBytes is max.partition.fetch.bytes. Default 1048576
	// (Kafka's).
	MaxPartitionFetchBytes Size `json:"max_partition_fetch_bytes,omitempty" yaml:"max_partition_fetch_bytes"`
	// SortBuffer bounds the ingest strategy's in-memory external sort for
	// the whole restore, shared by the partitions (at least 1 MiB each).
	// Default 64 MiB.
	SortBuffer Size `json:"sort_buffer_bytes,omitempty" yaml:"sort_buffer"`
	// RocksDBPreset names the option preset the RocksDB options start from.
	// Default "kstreams" (Kafka Streams' RocksDBStore defaults).
	RocksDBPreset string `json:"rocksdb" yaml:"rocksdb"`
	// RocksDB are the resolved RocksDB options: the preset plus the case's
	// overrides, written at the case level by RocksDB's names.
	RocksDB RocksDB `json:"rocksdb_options" yaml:",inline"`

	// Streams are Kafka Streams properties (StreamsConfig names:
	// num.standby.replicas, group.protocol, acceptable.recovery.lag, ...)
	// passed to the kafka-streams engine's instances unchanged, over the
	// properties the common settings map to (see KafkaStreamsProperties): an
	// explicit key here wins, and Finalize writes the mapped ones back into
	// their common setting (num.stream.threads into threads, ...) so the
	// record never contradicts itself. Default none. The model engine takes
	// only the mapped keys; application.id, bootstrap.servers, state.dir and
	// restorebench.* are restorebench's to set.
	Streams map[string]string `json:"streams,omitempty" yaml:"streams"`
	// JVMHeap is each kafka-streams instance JVM's maximum heap (-Xmx).
	// Default 1 GiB. Ignored by the model engine.
	JVMHeap Size `json:"jvm_heap,omitempty" yaml:"jvm_heap"`
	// JVMFlags are extra JVM flags for each kafka-streams instance, after
	// -Xmx (so an -Xmx here wins), e.g. [-XX:+UseParallelGC]. Default none
	// (the JVM's defaults: G1 on a server-class machine). Ignored by the
	// model engine.
	JVMFlags []string `json:"jvm_flags,omitempty" yaml:"jvm_flags"`
	// KafkaStreamsMetrics has each kafka-streams instance sample Kafka
	// Streams' own restore metrics (restore-records-rate, restore-total,
	// restore-remaining-records-total, ...) into the record beside
	// restorebench's measurement. It runs the client at
	// metrics.recording.level=DEBUG unless Streams names a level (DEBUG
	// also turns on RocksDB's statistics, so it is not free). Default
	// false. Ignored by the model engine.
	KafkaStreamsMetrics bool `json:"kafka_streams_metrics,omitempty" yaml:"kafka_streams_metrics"`

	// Warm, Standby, Failover, ScaleOut and Rolling are the settings of
	// their scenarios (see scenario_<name>.go, whose ScenarioDef points at
	// its field here); each is used only by its own.
	Warm     *WarmSettings     `json:"warm,omitempty" yaml:"warm"`
	Standby  *StandbySettings  `json:"standby,omitempty" yaml:"standby"`
	Failover *FailoverSettings `json:"failover,omitempty" yaml:"failover"`
	ScaleOut *ScaleOutSettings `json:"scaleout,omitempty" yaml:"scaleout"`
	Rolling  *RollingSettings  `json:"rolling,omitempty" yaml:"rolling"`
	// Compaction are the compaction scenario's settings.
	Compaction *CompactionSettings `json:"compaction,omitempty" yaml:"compaction"`
}

// DefaultCase returns Kafka Streams' defaults: the model engine, a cold
// restore with put, 1000 records per poll, one thread, Kafka's fetch sizes
// and the kstreams RocksDB preset.
func DefaultCase() Case {
	return Case{
		Name:                   "default",
		Engine:                 EngineModel,
		Scenario:               ScenarioCold,
		Strategy:               StrategyPut,
		Store:                  StoreRocksDB,
		StoreKind:              StoreKeyValue,
		BatchRecords:           1000,
		Threads:                1,
		FetchMaxBytes:          52428800,
		MaxPartitionFetchBytes: 1048576,
		SortBuffer:             64 << 20,
		RocksDBPreset:          "kstreams",
		RocksDB:                KStreamsRocksDB(),
		JVMHeap:                DefaultJVMHeap,
	}
}

// maxBatchRecords bounds max.poll.records: beyond it a poll is a memory hazard.
const maxBatchRecords = 1_000_000

// maxThreads bounds num.stream.threads: each is a goroutine (or a JVM
// thread) with its own restore consumer on this host.
const maxThreads = 1024

var caseName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// MaxNameLen bounds a case's or a profile's name: each names a directory
// (results/<run-id>, <state-dir>/<run-id>/<case>-<repeat>), and a file name
// is at most 255 bytes.
const MaxNameLen = 200

// CheckName validates a name that becomes one path element (a case's, a
// profile's): letters, digits, '.', '_' and '-', starting with a letter or
// digit, at most MaxNameLen characters, so it can neither climb out of its
// directory ("../x") nor make nested ones ("a/b"). The error is a
// *FieldError for path.
func CheckName(path, name string) error {
	switch {
	case !caseName.MatchString(name):
		return fieldErr(path, "%q may hold only letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	case len(name) > MaxNameLen:
		return fieldErr(path, "%d characters is over %d", len(name), MaxNameLen)
	}
	return nil
}

// Finalize applies the rules that tie settings together (the memory
// strategy restores a memory store, and a memory store restores with the
// memory strategy) and validates the result.
//
// Kafka Streams properties in Streams that a common setting maps to win
// over it and are written back into it (see KafkaStreamsProperties).
//
// Secrets are refused first, before any message could quote their value.
func (c *Case) Finalize() error {
	if err := c.checkSecrets(); err != nil {
		return err
	}
	if err := c.adoptMappedStreams(); err != nil {
		return err
	}
	c.ScenarioDefaults()
	c.defaultKafkaStreamsVersion()
	if c.Strategy == StrategyMemory {
		c.Store = StoreMemory
	} else if c.Store == StoreMemory && c.Strategy == StrategyPut {
		c.Strategy = StrategyMemory
	}
	return c.streamsPath(c.Validate())
}

// checkSecrets refuses a secret in any property map of the case: its
// streams, its jvm_flags (see checkJVMFlagSecrets) and its scenario
// settings' (compaction topic configs; see checkNoSecrets).
func (c Case) checkSecrets() error {
	if err := checkNoSecrets("streams", c.Streams); err != nil {
		return err
	}
	if err := checkJVMFlagSecrets("jvm_flags", c.JVMFlags); err != nil {
		return err
	}
	return c.checkScenarioSecrets()
}

// Validate returns a *FieldError naming the first setting out of range.
func (c Case) Validate() error {
	switch {
	case CheckName("name", c.Name) != nil:
		return CheckName("name", c.Name)
	case !oneOf(c.Engine, Engines):
		return fieldErr("engine", "%q is not one of %s", c.Engine, list(Engines))
	case !oneOf(c.Scenario, Scenarios):
		return fieldErr("scenario", "%q is not one of %s", c.Scenario, list(Scenarios))
	case !oneOf(c.Strategy, Strategies):
		return fieldErr("strategy", "%q is not one of %s", c.Strategy, list(Strategies))
	case !oneOf(c.Store, StoreTypes):
		return fieldErr("store", "%q is not one of %s", c.Store, list(StoreTypes))
	case c.Store == StoreMemory && c.Strategy != StrategyMemory:
		return fieldErr("strategy", "%s needs a rocksdb store", c.Strategy)
	case !oneOf(c.StoreKind, StoreKinds):
		return fieldErr("store_kind", "%q is not one of %s", c.StoreKind, list(StoreKinds))
	case c.checkStoreKind() != nil:
		return c.checkStoreKind()
	case c.checkQueries() != nil:
		return c.checkQueries()
	case c.BatchRecords <= 0:
		return fieldErr("batch_records", "%d must be positive", c.BatchRecords)
	case c.BatchRecords > maxBatchRecords:
		return fieldErr("batch_records", "%d is over 1,000,000", c.BatchRecords)
	case c.Threads <= 0:
		return fieldErr("threads", "%d must be positive", c.Threads)
	case c.Threads > maxThreads:
		return fieldErr("threads", "%d is over %d", c.Threads, maxThreads)
	case c.FetchMaxBytes <= 0 || c.FetchMaxBytes > 1<<31-1:
		return fieldErr("fetch_max_bytes", "%d must be positive and at most 2 GiB", c.FetchMaxBytes)
	case c.MaxPartitionFetchBytes <= 0 || c.MaxPartitionFetchBytes > 1<<31-1:
		return fieldErr("max_partition_fetch_bytes", "%d must be positive and at most 2 GiB", c.MaxPartitionFetchBytes)
	case c.SortBuffer < 1<<20:
		return fieldErr("sort_buffer", "%s is under 1 MiB", c.SortBuffer)
	}
	if err := checkMemory("sort_buffer", c.SortBuffer); err != nil {
		return err
	}
	if _, ok := RocksDBPresets[c.RocksDBPreset]; !ok {
		return fieldErr("rocksdb", "preset %q is unknown (known: %s)", c.RocksDBPreset, presetNames())
	}
	if err := c.RocksDB.Validate(); err != nil {
		return err
	}
	if err := c.checkSecrets(); err != nil {
		return err
	}
	if err := c.validateScenario(); err != nil {
		return err
	}
	if err := c.checkKafkaStreamsVersion(); err != nil {
		return err
	}
	if err := c.checkTransactionalStores(); err != nil {
		return err
	}
	if c.Engine == EngineKafkaStreams {
		return c.validateKafkaStreams()
	}
	return c.validateModelStreams()
}

// Memory reports whether the case restores an in-memory store.
func (c Case) Memory() bool { return c.Store == StoreMemory }

// Describe is a one-line account of the case's settings for progress lines.
func (c Case) Describe() string {
	return fmt.Sprintf("engine=%s strategy=%s batch_records=%d threads=%d rocksdb=%s store=%s",
		c.Engine, c.Strategy, c.BatchRecords, c.Threads, c.RocksDBPreset, c.Store)
}

func list[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// SegmentIntervalOf is the window store's segment interval: the case's, or
// Kafka Streams' default max(retention / 2, 60 s).
func (c Case) SegmentIntervalOf() time.Duration {
	if c.SegmentInterval > 0 {
		return c.SegmentInterval.D()
	}
	return max(c.Retention.D()/2, time.Minute)
}
