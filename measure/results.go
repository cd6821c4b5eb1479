package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// SchemaVersion is the version of the results.json layout. It changes when a
// field is renamed, removed or changes meaning; adding fields keeps it.
const SchemaVersion = 1

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
	// Complete is false when the run was interrupted or failed part-way; the
	// restores present were still measured and verified as recorded.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`

	Host    Host         `json:"host"`
	Broker  Broker       `json:"broker"`
	Profile *ProfileInfo `json:"profile,omitempty"`
	Fill    *Fill        `json:"fill,omitempty"`

	Restores []Restore `json:"restores"`
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
}

// ProfileInfo records which profile a run expanded.
type ProfileInfo struct {
	Name    string `json:"name"`
	Source  string `json:"source"` // "builtin" or the file path
	Repeats int    `json:"repeats"`
	YAML    string `json:"yaml"`
}

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
	Bytes           int64                      `json:"bytes"`
	DurationSeconds float64                    `json:"duration_seconds"`
	RecordsPerSec   float64                    `json:"records_per_sec"`
	MBPerSec        float64                    `json:"mb_per_sec"`
	Offsets         []loadgen.PartitionOffsets `json:"offsets"`
	Expected        []loadgen.PartitionState   `json:"expected,omitempty"`
	Series          []Point                    `json:"series,omitempty"`
}

// CaseParams are the settings one restore case ran with.
type CaseParams struct {
	// Scenario is the restore kind; "cold" for now.
	Scenario string `json:"scenario"`
	// Strategy is how records reach the store: "put" (one WriteBatch per
	// poll), "bulk" (KIP-167 bulk loading), "ingest" (sorted SST files
	// ingested) or "memory" (in-memory store).
	Strategy string `json:"strategy"`
	// FetchMaxBytes is the restore consumer's fetch.max.bytes.
	FetchMaxBytes int32 `json:"fetch_max_bytes,omitempty"`
	// MaxPartitionFetchBytes is max.partition.fetch.bytes.
	MaxPartitionFetchBytes int32 `json:"max_partition_fetch_bytes,omitempty"`
	// SortBufferBytes bounds the ingest strategy's in-memory sort run.
	SortBufferBytes int64 `json:"sort_buffer_bytes,omitempty"`
	// RocksDBOptions are the resolved RocksDB options (preset plus overrides).
	RocksDBOptions *RocksDBOptions `json:"rocksdb_options,omitempty"`
	// BatchRecords is the restore consumer's max.poll.records.
	BatchRecords int `json:"batch_records"`
	// Threads is the number of restore consumers (stream threads) in parallel.
	Threads int `json:"threads"`
	// RocksDB is the option preset name.
	RocksDB string `json:"rocksdb"`
	// Store is "rocksdb" or "memory".
	Store string `json:"store"`
}

// Restore is one measured restore: one case, one repeat.
type Restore struct {
	Case       string     `json:"case"`
	Repeat     int        `json:"repeat"`
	Params     CaseParams `json:"params"`
	Topic      string     `json:"topic"`
	Partitions int        `json:"partitions"`
	StartedAt  time.Time  `json:"started_at"`
	// DurationSeconds is the restore phase: LoadSeconds plus FinishSeconds.
	DurationSeconds float64 `json:"duration_seconds"`
	// LoadSeconds runs from opening the stores to the last record written.
	LoadSeconds float64 `json:"load_seconds"`
	// FinishSeconds is the strategy's work after the last record: bulk's
	// manual compaction, ingest's sort and SST ingestion; 0 for put.
	FinishSeconds float64 `json:"finish_seconds"`
	// Ready is the phase after the restore until the store can serve; nil
	// when not measured.
	Ready *ReadyPhase `json:"ready,omitempty"`
	// TotalSeconds is DurationSeconds plus the ready phase: the time until
	// the store restored and serving without stalls.
	TotalSeconds float64 `json:"total_seconds"`
	Records      int64   `json:"records"`
	// Bytes is key+value bytes read from the changelog.
	Bytes         int64   `json:"bytes"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	Series        []Point `json:"series"`
	// PollWait is the time each poll waited for records; BatchWrite the time
	// each WriteBatch took to apply.
	PollWait   Latency      `json:"poll_wait"`
	BatchWrite Latency      `json:"batch_write"`
	RocksDB    RocksDBStats `json:"rocksdb"`
	// DiskBytes is the size of the stores' directories after the ready phase.
	DiskBytes int64 `json:"disk_bytes"`
	// Limits compares the restore with what fetching alone and writing
	// alone achieve on this machine; nil when not measured.
	Limits *Limits `json:"limits,omitempty"`
	// PeakRSSBytes is the process's peak resident memory during the restore.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// CPUSeconds is the process's CPU time (all threads, user+system) during
	// the restore phase; over DurationSeconds it says how many cores the
	// restore kept busy (with the embedded broker, the broker's work counts too).
	CPUSeconds float64 `json:"cpu_seconds"`
	// Verified is true only when every store matched the expected state.
	Verified     bool         `json:"verified"`
	Verification Verification `json:"verification"`
	Error        string       `json:"error,omitempty"`
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
	Reads            Latency `json:"reads"`
	ReadProbeSeconds float64 `json:"read_probe_seconds"`
	// After are RocksDB's figures once settled.
	After RocksDBStats `json:"rocksdb_after"`
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
}

// RocksDBStats are RocksDB's own figures after the restore, summed over stores.
type RocksDBStats struct {
	LiveSSTBytes           int64   `json:"live_sst_bytes"`
	TotalSSTBytes          int64   `json:"total_sst_bytes"`
	L0Files                int64   `json:"l0_files"`
	PendingCompactionBytes int64   `json:"pending_compaction_bytes"`
	MemtableBytes          int64   `json:"memtable_bytes"`
	EstimatedKeys          int64   `json:"estimated_keys"`
	StallSeconds           float64 `json:"stall_seconds"`
	// FlushBytes and CompactionWriteBytes are what RocksDB wrote to SST files
	// by flushing memtables and by compacting.
	FlushBytes           int64 `json:"flush_bytes"`
	CompactionWriteBytes int64 `json:"compaction_write_bytes"`
	// IngestedBytes are SST bytes added by file ingestion.
	IngestedBytes int64 `json:"ingested_bytes,omitempty"`
	// SortSpillBytes are the ingest strategy's external-sort run files.
	SortSpillBytes int64 `json:"sort_spill_bytes,omitempty"`
	// WriteAmplification is (flush + compaction + ingested + sort spill
	// bytes) over the key+value bytes the restore wrote: what the disk
	// absorbed per byte restored.
	WriteAmplification float64 `json:"write_amplification"`
}

// Verification is the check of restored stores against the expected state.
type Verification struct {
	// Mode is "expected-state" (checked against the generator's state) or
	// "unverified" (a topic the tool did not fill: only counted).
	Mode       string           `json:"mode"`
	Partitions []PartitionCheck `json:"partitions"`
	Problem    string           `json:"problem,omitempty"`
}

// PartitionCheck compares one store with its expected state.
type PartitionCheck struct {
	Partition      int32          `json:"partition"`
	ExpectedKeys   int64          `json:"expected_keys"`
	ActualKeys     int64          `json:"actual_keys"`
	ExpectedDigest loadgen.Digest `json:"expected_digest"`
	ActualDigest   loadgen.Digest `json:"actual_digest"`
	LiveBytes      int64          `json:"live_bytes"`
	OK             bool           `json:"ok"`
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

// Save writes results as indented JSON to path atomically.
func (r *Results) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// Load reads a results.json, refusing a schema it does not know.
func Load(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, this build reads %d", path, r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

// CaseSummary aggregates one case's repeats.
type CaseSummary struct {
	Case                string
	Params              CaseParams
	Repeats             int
	Verified            int
	MedianSeconds       float64
	MinSeconds          float64
	MaxSeconds          float64
	MedianMBPerSec      float64
	MedianRecordsPerSec float64
	MaxPeakRSSBytes     int64
	// MedianReadySeconds and MedianTotalSeconds cover the ready phase; zero
	// (and HasReady false) when no verified repeat measured it.
	HasReady           bool
	MedianReadySeconds float64
	MedianTotalSeconds float64
	// MedianEfficiency is the median restore MB/s over min(fetch-only,
	// write-only); zero (HasLimits false) when limits were not measured.
	HasLimits        bool
	MedianEfficiency float64
}

// Summarize groups restores by case, in first-seen order, and takes the
// median, min and max over the verified, error-free repeats.
func Summarize(restores []Restore) []CaseSummary {
	var order []string
	byCase := map[string][]Restore{}
	for _, r := range restores {
		if _, ok := byCase[r.Case]; !ok {
			order = append(order, r.Case)
		}
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	out := make([]CaseSummary, 0, len(order))
	for _, name := range order {
		rs := byCase[name]
		s := CaseSummary{Case: name, Params: rs[0].Params, Repeats: len(rs)}
		var secs, mbs, rps, ready, total, eff []float64
		for _, r := range rs {
			if r.PeakRSSBytes > s.MaxPeakRSSBytes {
				s.MaxPeakRSSBytes = r.PeakRSSBytes
			}
			if !r.Verified || r.Error != "" {
				continue
			}
			s.Verified++
			secs = append(secs, r.DurationSeconds)
			mbs = append(mbs, r.MBPerSec)
			rps = append(rps, r.RecordsPerSec)
			if r.Ready != nil {
				ready = append(ready, r.Ready.Seconds)
				total = append(total, r.TotalSeconds)
			}
			if r.Limits != nil {
				eff = append(eff, r.Limits.Efficiency)
			}
		}
		if len(secs) > 0 {
			s.MedianSeconds, s.MinSeconds, s.MaxSeconds = Median(secs), minOf(secs), maxOf(secs)
			s.MedianMBPerSec, s.MedianRecordsPerSec = Median(mbs), Median(rps)
		}
		if len(ready) > 0 {
			s.HasReady, s.MedianReadySeconds, s.MedianTotalSeconds = true, Median(ready), Median(total)
		}
		if len(eff) > 0 {
			s.HasLimits, s.MedianEfficiency = true, Median(eff)
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

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}
