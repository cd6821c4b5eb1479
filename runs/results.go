package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/atomicfile"
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
	Series          []measure.Point            `json:"series,omitempty"`
}

// Restore is one measured restore: one case, one repeat.
type Restore struct {
	Case       string      `json:"case"`
	Repeat     int         `json:"repeat"`
	Params     config.Case `json:"params"`
	Topic      string      `json:"topic"`
	Partitions int         `json:"partitions"`
	StartedAt  time.Time   `json:"started_at"`
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
	Bytes         int64           `json:"bytes"`
	RecordsPerSec float64         `json:"records_per_sec"`
	MBPerSec      float64         `json:"mb_per_sec"`
	Series        []measure.Point `json:"series"`
	// PollWait is the time each poll waited for records; BatchWrite the time
	// each WriteBatch took to apply.
	PollWait   measure.Latency    `json:"poll_wait"`
	BatchWrite measure.Latency    `json:"batch_write"`
	RocksDB    measure.StoreStats `json:"rocksdb"`
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
	Verified     bool          `json:"verified"`
	Verification verify.Result `json:"verification"`
	Error        string        `json:"error,omitempty"`
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
}

// NewLimits states a case's fetch-only and write-only limits (each the
// fastest of runs measurements) and which of them bounds a restore.
func NewLimits(fetch, write measure.Limit, runs int) Limits {
	fs, ws := fetch.Duration.Seconds(), write.Duration.Seconds()
	l := Limits{
		FetchOnlySeconds: fs, FetchOnlyMBPerSec: MBPerSec(fetch.Bytes, fs), FetchOnlyCPU: fetch.CPU.Seconds(),
		WriteOnlySeconds: ws, WriteOnlyMBPerSec: MBPerSec(write.Bytes, ws), WriteOnlyCPU: write.CPU.Seconds(),
		Runs: runs,
	}
	l.BoundMBPerSec, l.Bound = l.FetchOnlyMBPerSec, "fetch"
	if l.WriteOnlyMBPerSec < l.BoundMBPerSec {
		l.BoundMBPerSec, l.Bound = l.WriteOnlyMBPerSec, "write"
	}
	return l
}

// For returns the limits with the efficiency of a restore at restoreMBps.
func (l Limits) For(restoreMBps float64) *Limits {
	if l.BoundMBPerSec > 0 {
		l.Efficiency = restoreMBps / l.BoundMBPerSec
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

// Save writes results as indented JSON to path atomically.
func (r *Results) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
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
	for i := range r.Restores {
		r.Restores[i].Params.Name = r.Restores[i].Case
	}
	return &r, nil
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
}

// Summarize groups restores by case, in first-seen order, and takes the
// median, min and max over the verified, error-free repeats.
func Summarize(restores []Restore) []CaseSummary {
	groups := GroupByCase(restores)
	out := make([]CaseSummary, 0, len(groups))
	for _, g := range groups {
		rs := g.Restores
		s := CaseSummary{Case: g.Case, Params: rs[0].Params, Repeats: len(rs)}
		var secs, mbs, rps, ready, total, eff []float64
		for _, r := range rs {
			s.MaxPeakRSSBytes = max(s.MaxPeakRSSBytes, r.PeakRSSBytes)
			s.MaxBatchWriteP99Ms = max(s.MaxBatchWriteP99Ms, r.BatchWrite.P99Ms)
			if !r.Counts() {
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
			s.MedianSeconds, s.MinSeconds, s.MaxSeconds = Median(secs), Min(secs), Max(secs)
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
