package runs

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/verify"
)

// ErrorInProgress is the error a results.json carries while its run goes
// on: a file that still says so after the run ended belongs to a run that
// was killed.
const ErrorInProgress = "run in progress"

// SchemaVersion is the version of the results.json layout. It changes when a
// field is renamed, removed or changes meaning; adding fields keeps it.
//
// Schema 4 splits a record's figures by meaning: a restore's time and
// cost in its restore phase (Restore.Phase), what only the model measures
// in Restore.Model, what only kafka-streams measures in KafkaStreamsRun, a
// standby following step's applying in its StandbyRecord.Following, each
// absent when not measured; schema 3 held them all as flat fields of the
// record, zero when not measured, some copies of one another
// (upgradeSchema3). Schema 3 keeps a failover kill's, a scale-out's and a
// rolling restart's figure only in the scenario's own record
// (Restore.Headline), where schema 2 wrote it into the restore figures too
// (upgradeSchema2). Schema 2 gives every record its Step; schema 1 named
// the step only in the record's case name (upgradeSchema1). Load upgrades
// all three.
const SchemaVersion = 4

// Results is one run's results.json: everything the tool printed, and all a
// plot or report needs, so old runs can be re-plotted and compared.
//
// Units: durations in seconds, sizes in bytes, rates in records/s and MB/s
// where 1 MB = 10^6 bytes, latencies in milliseconds.
type Results struct {
	SchemaVersion int       `json:"schema_version"`
	RunID         string    `json:"run_id"`
	ToolVersion   string    `json:"tool_version"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	// Complete is false when the run was interrupted or stopped part-way,
	// or when it ran to the end but some measurements failed (Failed > 0);
	// the restores present were still measured and verified as recorded.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
	// Failed counts the measurements that failed (did not verify, or
	// errored) in a run that went on past them to its end; Error lists them.
	Failed int `json:"failed,omitempty"`

	Host   Host   `json:"host"`
	Broker Broker `json:"broker"`
	// Agents are the agents instances ran on (`run --agents`), each with
	// its host's facts and its clock offset's estimate and bound; nil when
	// every instance ran on this machine.
	Agents  []Agent      `json:"agents,omitempty"`
	Profile *ProfileInfo `json:"profile,omitempty"`
	Fill    *Fill        `json:"fill,omitempty"`
	// Fills are every fill of a size sweep (Fill is then the first); nil
	// for a run of one fill.
	Fills []*Fill `json:"fills,omitempty"`

	Restores []Restore `json:"restores"`
	// Confirmations are the model settings a run screened and then restored
	// on Kafka Streams too (a profile's confirm), one per fill confirmed;
	// nil when the run confirmed nothing.
	Confirmations []Confirmation `json:"confirmations,omitempty"`
}

// Host describes the machine the run was measured on.
type Host struct {
	Hostname       string `json:"hostname"`
	OS             string `json:"os"`
	Arch           string `json:"arch"`
	CPUs           int    `json:"cpus"`
	MemoryBytes    int64  `json:"memory_bytes"`
	GoVersion      string `json:"go_version"`
	RocksDBVersion string `json:"rocksdb_version"`
	// RocksDBLinkage is which RocksDB library the model ran: "release"
	// (make build's default: the release build inside the rocksdbjni jar,
	// what Kafka Streams runs), "static" (Debian's librocksdb.a, an
	// assertion build) or "shared" (Debian's librocksdb.so, the same
	// assertion build); empty in files written before it was recorded. The
	// model restores 10 M records of 16 B 1.7x faster on the release build
	// than on Debian's, so two runs differing in it differ in the model's
	// times.
	RocksDBLinkage string `json:"rocksdb_linkage,omitempty"`
	// CPUModel is the processor's model name (/proc/cpuinfo); empty in
	// files written before it was recorded or where the OS does not say.
	CPUModel string `json:"cpu_model,omitempty"`
	// Disk is the filesystem holding state.dir, where restored stores are
	// written: what a restore's write side runs on. Nil when not recorded.
	Disk *Disk `json:"disk,omitempty"`
}

// RocksDBText is the RocksDB version with its build when recorded, e.g.
// "7.9.2 (release build, rocksdbjni)" or "7.8.3 (Debian's assertion
// build, static)"; the version alone in older files.
func (h Host) RocksDBText() string {
	if h.RocksDBLinkage == "" || h.RocksDBVersion == "" {
		return h.RocksDBVersion
	}
	switch h.RocksDBLinkage {
	case "release":
		return h.RocksDBVersion + " (release build, rocksdbjni)"
	case "static", "shared":
		return h.RocksDBVersion + " (Debian's assertion build, " + h.RocksDBLinkage + ")"
	}
	return h.RocksDBVersion + " (" + h.RocksDBLinkage + ")"
}

// Disk describes the filesystem and block device under a directory, as far
// as the OS tells (Linux: /proc/self/mountinfo and /sys/class/block).
type Disk struct {
	// Path is the directory described (it may not exist yet: then its
	// nearest existing parent was looked at).
	Path string `json:"path"`
	// MountPoint, Device and Filesystem are from the mount holding Path,
	// e.g. "/", "/dev/nvme0n1p2", "ext4".
	MountPoint string `json:"mount_point,omitempty"`
	Device     string `json:"device,omitempty"`
	Filesystem string `json:"filesystem,omitempty"`
	// Model is the block device's model (/sys/block/<disk>/device/model),
	// empty for virtual disks that do not say.
	Model string `json:"model,omitempty"`
	// Rotational is the kernel's queue/rotational flag: true for spinning
	// disks; nil when unknown (no block device, e.g. overlay or tmpfs).
	Rotational *bool `json:"rotational,omitempty"`
	// SizeBytes and FreeBytes are the filesystem's size and free space
	// (for unprivileged users) when the run started.
	SizeBytes int64 `json:"size_bytes,omitempty"`
	FreeBytes int64 `json:"free_bytes,omitempty"`
}

// Broker names the Kafka the run used.
type Broker struct {
	// Kind is "embedded" (the in-process kfake broker) or "external".
	Kind      string   `json:"kind"`
	Bootstrap []string `json:"bootstrap"`
	// DataDir is where the embedded broker keeps its log on disk.
	DataDir string `json:"data_dir,omitempty"`
	// Security says how the client connected (protocol, mechanism, user),
	// never with a password.
	Security string `json:"security,omitempty"`
	// Version is the broker software: "kfake <franz-go version>" for the
	// embedded broker, for an external one the Kafka version franz-go
	// guesses from the brokers' ApiVersions ("v4.0", "at least v4.1"), or
	// "unknown". Empty in files written before it was recorded.
	Version string `json:"version,omitempty"`
	// LogDisk is the filesystem holding the embedded broker's log; nil for
	// an external broker (its disks are the cluster's, not this host's).
	LogDisk *Disk `json:"log_disk,omitempty"`
}

// ProfileInfo records which profile a run expanded.
type ProfileInfo struct {
	Name    string `json:"name"`
	Source  string `json:"source"` // "builtin" or the file path
	Repeats int    `json:"repeats"`
	YAML    string `json:"yaml"`
}

// ExpectedFromIndependentRead is Fill.ExpectedFrom for a topic restorebench
// did not fill: its expected state is an independent read of the topic
// (topicshape.State), each key's last value as Kafka Streams restores it.
const ExpectedFromIndependentRead = "independent_read"

// Fill describes the changelog the restores read.
type Fill struct {
	Topic string `json:"topic"`
	// Spec is the generator's parameters; nil for a topic the tool did not fill.
	Spec        *loadgen.Spec `json:"spec,omitempty"`
	Compression string        `json:"compression,omitempty"`
	// Reused is true when an earlier fill with the same spec was found and
	// reused; the timing figures are then those measured at that fill.
	Reused     bool      `json:"reused"`
	FilledAt   time.Time `json:"filled_at"`
	Records    int64     `json:"records"`
	Tombstones int64     `json:"tombstones"`
	// Bytes is key+value bytes produced (before compression and framing).
	Bytes int64 `json:"bytes"`
	// HotRecords are the records whose key is among the
	// loadgen.HotKeyWindow records of its partition before it: how
	// skewed the changelog's keys are as a restore meets them (a restore
	// of skewed keys costs less a record). For a topic restorebench did
	// not fill, counted by the independent read (of the records the
	// restore read: Records is then 0). Nil in records written before it
	// was counted.
	HotRecords      *int64                     `json:"hot_records,omitempty"`
	DurationSeconds float64                    `json:"duration_seconds"`
	RecordsPerSec   float64                    `json:"records_per_sec"`
	MBPerSec        float64                    `json:"mb_per_sec"`
	Offsets         []loadgen.PartitionOffsets `json:"offsets"`
	Expected        []loadgen.PartitionState   `json:"expected,omitempty"`
	// ExpectedFrom says where Expected came from when the tool did not
	// fill the topic: ExpectedFromIndependentRead. Empty: the fill's spec.
	ExpectedFrom string          `json:"expected_from,omitempty"`
	Series       []measure.Point `json:"series,omitempty"`
	// Transactions is what a transactional fill wrote besides its records
	// (aborted transactions, markers); nil for a plain fill.
	Transactions *FillTransactions `json:"transactions,omitempty"`
	// OnAgent names the agent whose host wrote the fill (`run --agents`):
	// its times and series are that producer's; nil when this machine
	// wrote it.
	OnAgent *AgentPlace `json:"on_agent,omitempty"`
	// CleanerHold says the log cleaner was held on this topic while the
	// run restored it (profile hold_cleaner), so every restore of the run
	// read the same records; nil when the cleaner ran as the topic's
	// settings let it.
	CleanerHold *CleanerHold `json:"cleaner_hold,omitempty"`
}

// CleanerHold is a log cleaner hold on a fill's topic for one run.
type CleanerHold struct {
	// Setting is what the run set: min.compaction.lag.ms=9223372036854775807.
	Setting string `json:"setting"`
	// Previous is the topic's own min.compaction.lag.ms before the hold,
	// put back when the run ended; "" when the topic had none.
	Previous string `json:"previous,omitempty"`
}

// SampleCopy is the copy of a topic's sampled partitions (restore
// --partitions) that the kafka-streams engine restores from: a topic of
// restorebench's with the same partition count, in which only the sampled
// partitions hold records, each copied verbatim (key, value, headers,
// timestamp; records without a key or value too) and checked against the
// independent read of its partition before any restore. Kafka Streams
// restores every task of a topic; the copy's other partitions are tasks
// that restore nothing.
type SampleCopy struct {
	// Topic is the copy's name (deleted after the run).
	Topic string `json:"topic"`
	// Records are the records the copy holds of the restored partitions:
	// copied for this run, or for an earlier restore of the same sample
	// (plan --measure shares one copy among its restores).
	Records int64 `json:"records"`
	// Bytes are their key+value+header bytes.
	Bytes int64 `json:"bytes"`
	// Seconds is the wall time making the copy ready for this run:
	// reading and writing the partitions it lacked, emptying those the
	// run leaves out, checking it.
	Seconds float64 `json:"seconds"`
}

// Restore is one measured restore: one case, one repeat.
type Restore struct {
	// Case names the record for people: its Step's Name
	// ("warm@256MiB/changed=10000"). Code reads Step, never the name.
	Case string `json:"case"`
	// Step is the record's identity within its run: its profile case,
	// sweep size and scenario step (nil only in records being built).
	Step       *Step       `json:"step"`
	Repeat     int         `json:"repeat"`
	Params     config.Case `json:"params"`
	Topic      string      `json:"topic"`
	Partitions int         `json:"partitions"`
	// RestoredPartitions are the partitions of Topic this cold restore
	// restored, ascending, when it restored a sample of them (restore
	// --partitions): Records, Bytes and the verification are those
	// partitions' only. Absent: every partition of the topic.
	RestoredPartitions []int32 `json:"restored_partitions,omitempty"`
	// SampleCopy is the copy of those partitions the kafka-streams engine
	// restored from (restorebench's own topic, made once before the run's
	// restores and deleted after them); nil otherwise. Its time and bytes
	// are not in the restore phase or Bytes.
	SampleCopy *SampleCopy `json:"sample_copy,omitempty"`
	StartedAt  time.Time   `json:"started_at"`
	Records    int64       `json:"records"`
	// Bytes is key+value bytes read from the changelog.
	Bytes int64 `json:"bytes"`
	// Read is how the changelog was read: the isolation level, the offsets
	// spanned, the transaction markers met; nil in records of runs before
	// it was recorded, and in scenarios that do not record it.
	Read *ChangelogRead `json:"read,omitempty"`
	// Phase is the restore's time and what it cost, on either engine; nil
	// when the record measured no restore (see RestorePhase).
	Phase *RestorePhase `json:"restore,omitempty"`
	// Series are the records the record's measurement restored (or a
	// standby step applied) each second; empty when it measured none.
	Series []measure.Point `json:"series"`
	// Model is what only the model engine measures; nil on kafka-streams
	// (see ModelRun).
	Model *ModelRun `json:"model,omitempty"`
	// Verified is true only when every store matched the expected state.
	Verified     bool          `json:"verified"`
	Verification verify.Result `json:"verification"`
	Error        string        `json:"error,omitempty"`
	// Warm and Standby are a warm-restart or standby measurement's own
	// figures (Params.Scenario); nil for the other scenarios.
	Warm     *WarmRecord     `json:"warm,omitempty"`
	Standby  *StandbyRecord  `json:"standby,omitempty"`
	Failover *FailoverRecord `json:"failover,omitempty"`
	ScaleOut *ScaleOutRecord `json:"scaleout,omitempty"`
	Rolling  *RollingRecord  `json:"rolling,omitempty"`
	// Compaction is a compaction measurement's own figures.
	Compaction *CompactionRecord `json:"compaction,omitempty"`
	// Queries is what a load of key lookups beside the restore met
	// (Params.Queries); nil without one.
	Queries *QueryFigures `json:"queries,omitempty"`
	// Store is what the restore of a store kind beyond key-value did with
	// its records (window stores: kept, expired, segments); nil for
	// key-value stores.
	Store *StoreFigures `json:"store,omitempty"`
	// KafkaStreams describes the real Kafka Streams instance(s) of a
	// restore on the kafka-streams engine (Params.Engine); nil on the model.
	KafkaStreams *KafkaStreamsRun `json:"kafka_streams,omitempty"`
	// OnAgent says where a model-engine restore ran when an agent ran it
	// (`run --agents`); nil when it ran on this machine. (A kafka-streams
	// record names its instances' agents in KafkaStreams.Placement.)
	OnAgent *AgentPlace `json:"on_agent,omitempty"`
}

// KafkaStreamsRun is what a kafka-streams engine restore ran and what only
// it measures. On that engine the record's restore phase (Restore.Phase)
// comes from the instance's events: its Seconds (= TotalSeconds: no ready
// phase is measured) runs from the first restore_start to the last
// restore_end (CLOCK_MONOTONIC, both on the instance); Records is the sum
// of restore_end's restored counts; Series buckets restore_batch records
// per second; CPUSeconds and PeakRSSBytes are the JVM process's
// (/proc/<pid>) over the restore; DiskBytes is the application's state
// directory once restored. The record has no Model: the stores live in
// the JVM, so poll waits, WriteBatch latencies, RocksDB figures and a
// ready phase are not measured.
type KafkaStreamsRun struct {
	// Version is the kafka-streams jar the driver ran, JavaVersion the JVM's.
	Version     string `json:"kafka_streams_version"`
	JavaVersion string `json:"java_version"`
	// Compat names the driver's shims that ran for this version (the
	// hello's compat, kstreams/PROTOCOL.md); none on the newest.
	Compat []string `json:"compat,omitempty"`
	// JVMArgs are the JVM's input arguments as it reports them (-Xmx and
	// the case's jvm_flags); MaxHeapBytes is Runtime.maxMemory(); GC names
	// the garbage collectors.
	JVMArgs      []string `json:"jvm_args"`
	MaxHeapBytes int64    `json:"max_heap_bytes"`
	GC           []string `json:"gc"`
	// Properties are the instance's CONFIG.properties: the StreamsConfig
	// properties it ran with (the case's mapped settings and streams, and
	// application.id, bootstrap.servers, state.dir) and the driver's keys.
	Properties map[string]string `json:"properties"`
	// Instances is how many instance processes ran.
	Instances int `json:"instances"`
	// Placement names the agent each instance ran on (instance id →
	// agent name); nil when every instance ran on this machine.
	Placement map[string]string `json:"placement,omitempty"`
	// StartSeconds runs from launching the JVM to the first restore_start
	// (JVM start, group join, assignment, store open); RunningSeconds from
	// launching it until every restore ended and the instance was RUNNING.
	StartSeconds   float64 `json:"start_seconds"`
	RunningSeconds float64 `json:"running_seconds"`
	// RestoreBatches counts restore_batch events (onBatchRestored calls).
	RestoreBatches int64 `json:"restore_batches"`
	// CPUSplit is the JVM's CPU time over the restore by thread kind, from
	// the driver's 1-second process events around it (so at 1 s
	// resolution); nil when none bracket the restore.
	CPUSplit *CPUSplit `json:"cpu_split,omitempty"`
	// BytesFrom says where Restore.Bytes comes from: "changelog" (the key +
	// value bytes of the records between the offsets restored, read once
	// per topic and end offsets by the Go side, since the instance reports
	// only record counts).
	BytesFrom string `json:"bytes_from"`
	// DigestSeconds is how long the driver took to digest the stores
	// through interactive queries; StopSeconds how long close took.
	DigestSeconds float64 `json:"digest_seconds"`
	StopSeconds   float64 `json:"stop_seconds"`
	// Metrics are Kafka Streams' own restore metrics over the restore,
	// when the case asked for them (kafka_streams_metrics); nil otherwise,
	// and in files written before they were recorded.
	Metrics *KafkaStreamsMetrics `json:"metrics,omitempty"`
	// RocksDBMemory is what the instance's RocksDB stores held over the
	// restore (memtables, block caches, index and filter blocks), from
	// Kafka Streams' own store metrics; nil when no sample had a store
	// open, and in files written before it was recorded.
	RocksDBMemory *RocksDBMemory `json:"rocksdb_memory,omitempty"`
}

// RocksDBMemory is what a kafka-streams instance's RocksDB stores held
// over a restore, sampled from its process events (every second).
type RocksDBMemory struct {
	// Peak is each figure's largest sample from the restore's start to the
	// first sample after its end (each on its own: they need not peak
	// together); AtEnd is the last of those samples, the first after the
	// end when one came.
	Peak  ksdriver.RocksMemory `json:"peak"`
	AtEnd ksdriver.RocksMemory `json:"at_end"`
}

// maxRocks is each figure's larger of m and o.
func maxRocks(m, o ksdriver.RocksMemory) ksdriver.RocksMemory {
	return ksdriver.RocksMemory{Stores: max(m.Stores, o.Stores), MemTablesBytes: max(m.MemTablesBytes, o.MemTablesBytes),
		BlockCacheUsageBytes: max(m.BlockCacheUsageBytes, o.BlockCacheUsageBytes), BlockCacheCapacityBytes: max(m.BlockCacheCapacityBytes, o.BlockCacheCapacityBytes),
		BlockCachePinnedBytes: max(m.BlockCachePinnedBytes, o.BlockCachePinnedBytes), TableReadersBytes: max(m.TableReadersBytes, o.TableReadersBytes)}
}

// NewRocksDBMemory is the peak and end of samples, the last of which is
// the first after the restore ended; nil without samples.
func NewRocksDBMemory(samples []ksdriver.RocksMemory) *RocksDBMemory {
	if len(samples) == 0 {
		return nil
	}
	out := &RocksDBMemory{AtEnd: samples[len(samples)-1]}
	for _, s := range samples {
		out.Peak = maxRocks(out.Peak, s)
	}
	return out
}

// CPUSplit is CPU seconds by thread kind (kstreams/PROTOCOL.md, process
// event): Kafka Streams' own threads (stream threads, state updaters), the
// JIT compilers, the garbage collector, and the rest (RocksDB's background
// threads, the consumer's network thread, exited threads).
type CPUSplit struct {
	Stream float64 `json:"stream"`
	JIT    float64 `json:"jit"`
	GC     float64 `json:"gc"`
	Other  float64 `json:"other"`
}

// ReadyPhase is what happens after the last record until the store can
// serve: memtables flushed and compaction debt settled. Then a probe of point
// reads on sampled keys measures how it serves; the probe is not part of the
// phase (its length depends on the sample size, not on readiness).
type ReadyPhase struct {
	// Seconds is the phase: the flush plus the wait until no flush or
	// compaction runs, pending compaction bytes are 0 and L0 is below its
	// slowdown trigger (held for 100 ms).
	Seconds float64 `json:"seconds"`
	// Reads are the point reads of up to 10,000 sampled keys after settling,
	// and ReadProbeSeconds how long they took in all.
	Reads            measure.Latency `json:"reads"`
	ReadProbeSeconds float64         `json:"read_probe_seconds"`
	// After are RocksDB's figures once settled.
	After measure.StoreStats `json:"rocksdb_after"`
}

// Limits are the machine's limits for one case, measured in the same run:
// consuming the changelog and discarding it (fetch-only) and replaying the
// same records from local disk into the case's store (write-only).
//
// Each limit is the fastest of its measurements (see Runs): a limit is what
// the machine can do, so the best observation estimates it.
type Limits struct {
	FetchOnlySeconds  float64 `json:"fetch_only_seconds"`
	FetchOnlyMBPerSec float64 `json:"fetch_only_mb_per_sec"`
	FetchOnlyCPU      float64 `json:"fetch_only_cpu_seconds"`
	WriteOnlySeconds  float64 `json:"write_only_seconds"`
	WriteOnlyMBPerSec float64 `json:"write_only_mb_per_sec"`
	WriteOnlyCPU      float64 `json:"write_only_cpu_seconds"`
	// Runs is how many times each limit was measured.
	Runs int `json:"runs"`
	// BoundMBPerSec is min(fetch-only, write-only): the best a restore
	// could do here; Bound names which limit it is ("fetch" or "write").
	BoundMBPerSec float64 `json:"bound_mb_per_sec"`
	Bound         string  `json:"bound"`
	// Efficiency is the restore's MB/s over BoundMBPerSec.
	Efficiency float64 `json:"efficiency"`
	// Cores is how many CPUs the process could run on when the limits
	// were measured (runtime.NumCPU: the affinity mask's); 0 in results
	// written before the CPU-aware bound.
	Cores int `json:"cores,omitempty"`
	// CPUBoundSeconds is (FetchOnlyCPU + WriteOnlyCPU) / Cores: a restore
	// does the work of both sides, so it cannot take less time than their
	// CPU time spread over every core, even when each side alone leaves
	// cores idle.
	CPUBoundSeconds float64 `json:"cpu_bound_seconds,omitempty"`
	// CPUAwareBoundSeconds is max(FetchOnlySeconds, WriteOnlySeconds,
	// CPUBoundSeconds): the shortest a restore could take here, counting
	// the CPU both sides share. CPUAwareBound names the largest term
	// ("fetch", "write" or "cpu"); CPUAwareBoundMBPerSec is the
	// changelog's bytes over it.
	CPUAwareBoundSeconds  float64 `json:"cpu_aware_bound_seconds,omitempty"`
	CPUAwareBoundMBPerSec float64 `json:"cpu_aware_bound_mb_per_sec,omitempty"`
	CPUAwareBound         string  `json:"cpu_aware_bound,omitempty"`
	// CPUAwareEfficiency is the restore's MB/s over CPUAwareBoundMBPerSec
	// (1 would be a restore as fast as the CPU-aware bound allows).
	CPUAwareEfficiency float64 `json:"cpu_aware_efficiency,omitempty"`
}

// NewLimits states a case's fetch-only and write-only limits (each the
// fastest of runs measurements) on a machine of cores CPUs, which of them
// bounds a restore, and the CPU-aware bound (see CPUAwareBoundSeconds).
func NewLimits(fetch, write measure.Limit, runs, cores int) Limits {
	fs, ws := fetch.Duration.Seconds(), write.Duration.Seconds()
	l := Limits{
		FetchOnlySeconds: fs, FetchOnlyMBPerSec: MBPerSec(fetch.Bytes, fs), FetchOnlyCPU: fetch.CPU.Seconds(),
		WriteOnlySeconds: ws, WriteOnlyMBPerSec: MBPerSec(write.Bytes, ws), WriteOnlyCPU: write.CPU.Seconds(),
		Runs: runs, Cores: cores,
	}
	l.BoundMBPerSec, l.Bound = l.FetchOnlyMBPerSec, "fetch"
	if l.WriteOnlyMBPerSec < l.BoundMBPerSec {
		l.BoundMBPerSec, l.Bound = l.WriteOnlyMBPerSec, "write"
	}
	if cores > 0 {
		l.CPUBoundSeconds = (l.FetchOnlyCPU + l.WriteOnlyCPU) / float64(cores)
	}
	l.CPUAwareBoundSeconds, l.CPUAwareBound = fs, "fetch"
	if ws > l.CPUAwareBoundSeconds {
		l.CPUAwareBoundSeconds, l.CPUAwareBound = ws, "write"
	}
	if l.CPUBoundSeconds > l.CPUAwareBoundSeconds {
		l.CPUAwareBoundSeconds, l.CPUAwareBound = l.CPUBoundSeconds, "cpu"
	}
	l.CPUAwareBoundMBPerSec = MBPerSec(max(write.Bytes, fetch.Bytes), l.CPUAwareBoundSeconds)
	return l
}

// For returns the limits with the efficiencies of a restore at restoreMBps.
func (l Limits) For(restoreMBps float64) *Limits {
	if l.BoundMBPerSec > 0 {
		l.Efficiency = restoreMBps / l.BoundMBPerSec
	}
	if l.CPUAwareBoundMBPerSec > 0 {
		l.CPUAwareEfficiency = restoreMBps / l.CPUAwareBoundMBPerSec
	}
	return &l
}

// MBPerSec converts bytes over seconds to MB/s (10^6 bytes).
func MBPerSec(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / seconds
}

// PerSec returns n/seconds, or 0 for a zero duration.
func PerSec(n int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(n) / seconds
}

// Save writes results as indented JSON to path atomically, with every
// secret a property or message may hold hidden (see redacted).
func (r *Results) Save(path string) error {
	if err := r.Check(); err != nil {
		return fmt.Errorf("%s: not written: %w", path, err)
	}
	b, err := json.MarshalIndent(r.redacted(), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// Load reads a results.json, refusing a schema it does not know; a file
// of schema 1, 2 or 3 is upgraded to this one (upgradeSchema1,
// upgradeSchema2, upgradeSchema3), and settings a file predates take the
// defaults they ran with (withDefaults).
func Load(path string) (*Results, error) {
	b, err := boundedread.ReadFile(path, boundedread.Results)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %w", path, err)
	}
	switch r.SchemaVersion {
	case SchemaVersion:
	case 1, 2, 3:
		if err := upgrade(&r, b); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("%s: schema_version %d, this build reads 1 to %d", path, r.SchemaVersion, SchemaVersion)
	}
	for i := range r.Restores {
		r.Restores[i].Params = withDefaults(r.Restores[i].Params)
		r.Restores[i].Params.Name = r.Restores[i].Case
	}
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A file written before secrets were hidden shows none either.
	return r.redacted(), nil
}

// CaseRestores are one case's restores, in the order they ran.
type CaseRestores struct {
	Case     string
	Restores []Restore
}

// GroupByCase groups restores by case name, cases in first-seen order.
func GroupByCase(restores []Restore) []CaseRestores {
	var out []CaseRestores
	index := map[string]int{}
	for _, r := range restores {
		i, ok := index[r.Case]
		if !ok {
			i = len(out)
			index[r.Case] = i
			out = append(out, CaseRestores{Case: r.Case})
		}
		out[i].Restores = append(out[i].Restores, r)
	}
	return out
}

// CaseNames lists the case names in first-seen order.
func CaseNames(restores []Restore) []string {
	var names []string
	for _, g := range GroupByCase(restores) {
		names = append(names, g.Case)
	}
	return names
}

// Counts reports whether a restore's figures count in summaries and
// comparisons: only a verified, error-free restore does.
func (r Restore) Counts() bool { return r.Verified && r.Error == "" }

// RestoredOn is the agent whose host restored r, and that host's name
// where the record says it: the model engine's restore on an agent
// (OnAgent), or a kafka-streams restore whose instances all ran on one
// agent (KafkaStreams.Placement); "" when it ran on this machine, or on
// several agents' hosts.
func (r Restore) RestoredOn() (agent, hostname string) {
	if r.OnAgent != nil {
		return r.OnAgent.Agent, r.OnAgent.Hostname
	}
	if ks := r.KafkaStreams; ks != nil {
		for _, a := range ks.Placement {
			if agent != "" && a != agent {
				return "", ""
			}
			agent = a
		}
	}
	return agent, ""
}

// CaseSummary aggregates one case's repeats.
type CaseSummary struct {
	Case                string
	Params              config.Case
	Repeats             int
	Verified            int
	MedianSeconds       float64
	MinSeconds          float64
	MaxSeconds          float64
	MedianMBPerSec      float64
	MedianRecordsPerSec float64
	MaxPeakRSSBytes     int64
	// MaxBatchWriteP99Ms is the worst p99 WriteBatch latency of any repeat.
	MaxBatchWriteP99Ms float64
	// MedianReadySeconds and MedianTotalSeconds cover the ready phase; zero
	// (and HasReady false) when no verified repeat measured it.
	HasReady           bool
	MedianReadySeconds float64
	MedianTotalSeconds float64
	// MedianEfficiency is the median restore MB/s over min(fetch-only,
	// write-only); zero (HasLimits false) when limits were not measured.
	HasLimits        bool
	MedianEfficiency float64
	// MedianCPUAwareEfficiency is the median restore MB/s over the
	// CPU-aware bound (Limits.CPUAwareBoundMBPerSec), and Limits the
	// limits of the case's first verified repeat (each case's limits are
	// measured once, so every repeat has the same); zero and nil without
	// limits, and zero for results written before the CPU-aware bound.
	MedianCPUAwareEfficiency float64
	Limits                   *Limits
}

// Summarize groups restores by case, in first-seen order, and takes the
// median, min and max over the verified, error-free repeats.
func Summarize(restores []Restore) []CaseSummary {
	groups := GroupByCase(restores)
	out := make([]CaseSummary, 0, len(groups))
	for _, g := range groups {
		rs := g.Restores
		s := CaseSummary{Case: g.Case, Params: rs[0].Params, Repeats: len(rs)}
		var secs, mbs, rps, readys, total, eff, cpuEff []float64
		for _, r := range rs {
			if p := r.Phase; p != nil {
				s.MaxPeakRSSBytes = max(s.MaxPeakRSSBytes, p.PeakRSSBytes)
			}
			if m := r.Model; m != nil {
				s.MaxBatchWriteP99Ms = max(s.MaxBatchWriteP99Ms, m.BatchWrite.P99Ms)
			}
			if !r.Counts() {
				continue
			}
			p := r.Phase
			if p == nil {
				// Not a restore (a gap, a standby step): Verified counts
				// it, the restore figures do not.
				s.Verified++
				continue
			}
			s.Verified++
			secs = append(secs, p.Seconds)
			mbs = append(mbs, p.MBPerSec)
			rps = append(rps, p.RecordsPerSec)
			if ready := r.Ready(); ready != nil {
				readys = append(readys, ready.Seconds)
				total = append(total, p.TotalSeconds)
			}
			if l := p.Limits; l != nil {
				eff = append(eff, l.Efficiency)
				cpuEff = append(cpuEff, l.CPUAwareEfficiency)
				if s.Limits == nil {
					s.Limits = l
				}
			}
		}
		if len(secs) > 0 {
			s.MedianSeconds, s.MinSeconds, s.MaxSeconds = Median(secs), Min(secs), Max(secs)
			s.MedianMBPerSec, s.MedianRecordsPerSec = Median(mbs), Median(rps)
		}
		if len(readys) > 0 {
			s.HasReady, s.MedianReadySeconds, s.MedianTotalSeconds = true, Median(readys), Median(total)
		}
		if len(eff) > 0 {
			s.HasLimits, s.MedianEfficiency, s.MedianCPUAwareEfficiency = true, Median(eff), Median(cpuEff)
		}
		out = append(out, s)
	}
	return out
}

// Median returns the median of xs (the mean of the middle two for even counts).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Min returns the smallest of xs (which must not be empty).
func Min(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

// Max returns the largest of xs (which must not be empty).
func Max(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}
