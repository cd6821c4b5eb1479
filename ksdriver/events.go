package ksdriver

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/restorebench/restorebench/loadgen"
)

// Event is one line of an instance's event stream (kstreams/PROTOCOL.md),
// decoded into its type: *Hello, *StateChange, *RestoreStart, *RestoreBatch,
// *RestoreEnd, *RestoreSuspended, *StandbyStart, *StandbyBatch,
// *StandbySuspended, *Tasks, *Lags, *Processed, *Process, *Metrics, *Digest,
// *Balances, *Entries, *API, *Error, *Stopped, or *Unknown for a name this build does not
// know (a newer driver) or a line that is not an event.
type Event interface {
	// Head is what every event carries.
	Head() *Meta
}

// Meta is what every event carries, and when the Go side read it.
type Meta struct {
	// Ev is the event's name ("restore_batch").
	Ev string `json:"ev"`
	// Instance is the restorebench.instance.id of the instance that sent it.
	Instance string `json:"instance"`
	// MonoNs is the instance's System.nanoTime() at the event: on Linux
	// CLOCK_MONOTONIC, comparable between processes on one host and with
	// RecvMonoNs.
	MonoNs int64 `json:"mono_ns"`
	// WallMs is the instance's wall clock (epoch ms), for instances on
	// other hosts.
	WallMs int64 `json:"wall_ms"`
	// RecvMonoNs is CLOCK_MONOTONIC when the Go side read the line (not
	// part of the stream): RecvMonoNs - MonoNs is the delivery delay.
	RecvMonoNs int64 `json:"-"`
}

// Head returns the event's common fields.
func (m *Meta) Head() *Meta { return m }

// Last returns the last event of type T in events (a *Tasks, a
// *StateChange), and false when there is none: what an instance holds or
// is in now is what its latest such event says.
func Last[T Event](events []Event) (T, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e, ok := events[i].(T); ok {
			return e, true
		}
	}
	var none T
	return none, false
}

// Event names, as the driver writes them.
const (
	EvHello            = "hello"
	EvState            = "state"
	EvRestoreStart     = "restore_start"
	EvRestoreBatch     = "restore_batch"
	EvRestoreEnd       = "restore_end"
	EvRestoreSuspended = "restore_suspended"
	EvStandbyStart     = "standby_start"
	EvStandbyBatch     = "standby_batch"
	EvStandbySuspended = "standby_suspended"
	EvTasks            = "tasks"
	EvLags             = "lags"
	EvProcessed        = "processed"
	EvProcess          = "process"
	EvMetrics          = "metrics"
	EvDigest           = "digest"
	EvBalances         = "balances"
	EvEntries          = "entries"
	EvError            = "error"
	EvStopped          = "stopped"
)

// Hello is the first event: who the instance is and what it runs on.
type Hello struct {
	Meta
	PID                 int    `json:"pid"`
	KafkaStreamsVersion string `json:"kafka_streams_version"`
	KafkaClientsVersion string `json:"kafka_clients_version"`
	// Compat names the driver's shims in use for this version (one line
	// each, kstreams/PROTOCOL.md), none on the newest.
	Compat       []string `json:"compat"`
	JavaVersion  string   `json:"java_version"`
	JVMArgs      []string `json:"jvm_args"`
	MaxHeapBytes int64    `json:"max_heap_bytes"`
	GC           []string `json:"gc"`
	Topology     string   `json:"topology"`
	Store        string   `json:"store"`
	Bare         bool     `json:"bare"`
}

// Kafka Streams client states (KafkaStreams.State) the tool waits for.
const (
	StateCreated     = "CREATED"
	StateRebalancing = "REBALANCING"
	StateRunning     = "RUNNING"
	StateError       = "ERROR"
)

// StateChange is a KafkaStreams state transition.
type StateChange struct {
	Meta
	From string `json:"from"`
	To   string `json:"to"`
}

// StorePartition names one store's changelog partition.
type StorePartition struct {
	Store     string `json:"store"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// RestoreStart is StateRestoreListener.onRestoreStart: the store partition
// will be restored from StartOffset up to EndOffset.
type RestoreStart struct {
	Meta
	StorePartition
	StartOffset int64 `json:"start_offset"`
	EndOffset   int64 `json:"end_offset"`
}

// RestoreBatch is onBatchRestored: Records were written, up to BatchEndOffset.
type RestoreBatch struct {
	Meta
	StorePartition
	BatchEndOffset int64 `json:"batch_end_offset"`
	Records        int64 `json:"records"`
}

// RestoreEnd is onRestoreEnd: the partition restored Restored records in all.
type RestoreEnd struct {
	Meta
	StorePartition
	Restored int64 `json:"restored"`
}

// RestoreSuspended is onRestoreSuspended: the task moved away mid-restore.
type RestoreSuspended struct {
	Meta
	StorePartition
	Restored int64 `json:"restored"`
}

// StandbyStart is StandbyUpdateListener.onUpdateStart.
type StandbyStart struct {
	Meta
	StorePartition
	StartOffset int64 `json:"start_offset"`
}

// StandbyBatch is onBatchLoaded: a standby (or warmup) applied Records.
type StandbyBatch struct {
	Meta
	StorePartition
	Task           string `json:"task"`
	BatchEndOffset int64  `json:"batch_end_offset"`
	Records        int64  `json:"records"`
	EndOffset      int64  `json:"end_offset"`
}

// StandbySuspended is onUpdateSuspended; Reason is MIGRATED or PROMOTED.
type StandbySuspended struct {
	Meta
	StorePartition
	StoreOffset int64  `json:"store_offset"`
	EndOffset   int64  `json:"end_offset"`
	Reason      string `json:"reason"`
}

// ThreadTasks are one stream thread's tasks.
type ThreadTasks struct {
	Name    string   `json:"name"`
	State   string   `json:"state"`
	Active  []string `json:"active"`
	Standby []string `json:"standby"`
}

// Tasks is metadataForLocalThreads(), sent when it changes.
type Tasks struct {
	Meta
	Threads []ThreadTasks `json:"threads"`
}

// StoreLag is one local store partition's lag.
type StoreLag struct {
	Store         string `json:"store"`
	Partition     int32  `json:"partition"`
	CurrentOffset int64  `json:"current_offset"`
	EndOffset     int64  `json:"end_offset"`
	Lag           int64  `json:"lag"`
}

// Lags is allLocalStorePartitionLags().
type Lags struct {
	Meta
	Lags []StoreLag `json:"lags"`
}

// ProcessedPartition counts input records processed since the last event.
type ProcessedPartition struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Records     int64  `json:"records"`
	LastOffset  int64  `json:"last_offset"`
	FirstMonoNs int64  `json:"first_mono_ns"`
	LastMonoNs  int64  `json:"last_mono_ns"`
}

// Processed is the topology's processed-record counts.
type Processed struct {
	Meta
	Partitions []ProcessedPartition `json:"partitions"`
}

// CPUSplitNs is process CPU time by thread kind, in nanoseconds.
type CPUSplitNs struct {
	Stream int64 `json:"stream"`
	JIT    int64 `json:"jit"`
	GC     int64 `json:"gc"`
	Other  int64 `json:"other"`
}

// Process is the instance's CPU time, RSS and heap, once a second.
type Process struct {
	Meta
	CPUNs         int64      `json:"cpu_ns"`
	RSSBytes      int64      `json:"rss_bytes"`
	HeapUsedBytes int64      `json:"heap_used_bytes"`
	CPUSplitNs    CPUSplitNs `json:"cpu_split_ns"`
	// RocksDB is the memory the instance's RocksDB stores hold, from
	// Kafka Streams' own store metrics; nil while no store is open.
	RocksDB *RocksMemory `json:"rocksdb,omitempty"`
}

// RocksMemory is the memory of an instance's RocksDB stores, summed over
// them, from Kafka Streams' stream-state-metrics (KIP-607, recorded at
// INFO), as the driver's process events carry it (kstreams/PROTOCOL.md).
type RocksMemory struct {
	// Stores counts the stores reporting (one per task and store).
	Stores int `json:"stores"`
	// MemTablesBytes is size-all-mem-tables: the active, immutable and
	// pinned memtables.
	MemTablesBytes int64 `json:"mem_tables_bytes"`
	// BlockCacheUsageBytes and BlockCacheCapacityBytes are
	// block-cache-usage and block-cache-capacity: each store has a cache
	// of its own in Kafka Streams' defaults (50 MiB), so the sum is what
	// they hold; a cache a RocksDBConfigSetter shares is counted once per
	// store. BlockCachePinnedBytes is block-cache-pinned-usage.
	BlockCacheUsageBytes    int64 `json:"block_cache_usage_bytes"`
	BlockCacheCapacityBytes int64 `json:"block_cache_capacity_bytes"`
	BlockCachePinnedBytes   int64 `json:"block_cache_pinned_bytes"`
	// TableReadersBytes is estimate-table-readers-mem: the index and
	// filter blocks held outside the block cache.
	TableReadersBytes int64 `json:"table_readers_bytes"`
}

// DigestPartition is one store partition's digest, as Go's verifier
// computes it (loadgen.EntryHash).
type DigestPartition struct {
	Partition int32          `json:"partition"`
	Keys      int64          `json:"keys"`
	LiveBytes int64          `json:"live_bytes"`
	Digest    loadgen.Digest `json:"digest"`
}

// Digest is the reply to `digest` (scope active) or `digest all`.
type Digest struct {
	Meta
	Store      string            `json:"store"`
	Scope      string            `json:"scope"`
	Seconds    float64           `json:"seconds"`
	Partitions []DigestPartition `json:"partitions"`
}

// States returns the digest as the verifier's partition states, by partition.
func (d *Digest) States() []loadgen.PartitionState {
	out := make([]loadgen.PartitionState, len(d.Partitions))
	for i, p := range d.Partitions {
		out[i] = loadgen.PartitionState{Partition: p.Partition, Keys: p.Keys, LiveBytes: p.LiveBytes, Digest: p.Digest}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out
}

// Balances is the reply to `balances PATH` (ledger topology).
type Balances struct {
	Meta
	Path         string  `json:"path"`
	Accounts     int64   `json:"accounts"`
	Transactions int64   `json:"transactions"`
	Seconds      float64 `json:"seconds"`
}

// Entries is the reply to `entries PARTITION PATH`: the store partition's
// live entries, key by key, were written to Path.
type Entries struct {
	Meta
	Path      string  `json:"path"`
	Partition int32   `json:"partition"`
	Keys      int64   `json:"keys"`
	Seconds   float64 `json:"seconds"`
}

// Error is a failure the instance reports: a bad config (it then exits 3),
// an uncaught exception (exits 2), a failed command (it goes on).
type Error struct {
	Meta
	Message string `json:"message"`
	// Where is config, start, uncaught, command, digest, balances or close.
	Where string `json:"where"`
	Stack string `json:"stack"`
}

// Err returns the event as a Go error naming the instance and where.
func (e *Error) Err() error {
	return fmt.Errorf("kafka-streams instance %s: %s: %s", e.Instance, e.Where, e.Message)
}

// Stopped is the last event: the client closed (Clean when on request and
// without failure) after Seconds.
type Stopped struct {
	Meta
	Clean   bool    `json:"clean"`
	Seconds float64 `json:"seconds"`
}

// Unknown is an event this build does not know, or (Ev "") a stdout line
// that is not a JSON event; Raw is the line.
type Unknown struct {
	Meta
	Raw string `json:"-"`
}

// newEvent returns an empty event of the named kind.
func newEvent(ev string) Event {
	switch ev {
	case EvHello:
		return &Hello{}
	case EvState:
		return &StateChange{}
	case EvRestoreStart:
		return &RestoreStart{}
	case EvRestoreBatch:
		return &RestoreBatch{}
	case EvRestoreEnd:
		return &RestoreEnd{}
	case EvRestoreSuspended:
		return &RestoreSuspended{}
	case EvStandbyStart:
		return &StandbyStart{}
	case EvStandbyBatch:
		return &StandbyBatch{}
	case EvStandbySuspended:
		return &StandbySuspended{}
	case EvTasks:
		return &Tasks{}
	case EvLags:
		return &Lags{}
	case EvProcessed:
		return &Processed{}
	case EvProcess:
		return &Process{}
	case EvMetrics:
		return &Metrics{}
	case EvDigest:
		return &Digest{}
	case EvBalances:
		return &Balances{}
	case EvEntries:
		return &Entries{}
	case EvError:
		return &Error{}
	case EvStopped:
		return &Stopped{}
	case EvAPI:
		return &API{}
	}
	return nil
}

// ErrNotEvent is returned by Parse for a line that is not a JSON event.
var ErrNotEvent = errors.New("not an event")

// Parse decodes one line of the event stream. An event of a name this build
// does not know is an *Unknown, not an error (a newer driver may add
// events); a line that is not a JSON object with an "ev" name, or a known
// event whose fields have the wrong types, is an error wrapping ErrNotEvent.
func Parse(line []byte) (Event, error) {
	var m Meta
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotEvent, err)
	}
	if m.Ev == "" {
		return nil, fmt.Errorf("%w: no \"ev\" name", ErrNotEvent)
	}
	e := newEvent(m.Ev)
	if e == nil {
		return &Unknown{Meta: m, Raw: string(line)}, nil
	}
	if err := json.Unmarshal(line, e); err != nil {
		return nil, fmt.Errorf("%w: %s event: %v", ErrNotEvent, m.Ev, err)
	}
	return e, nil
}
