// Package capacitytest makes synthetic results files for the planner's and
// the report's tests: runs at several changelog sizes whose restore times
// follow known lines, with a little deterministic noise, so a test knows
// every answer in advance.
package capacitytest

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// Case is one synthetic case: its settings and the line its time to ready
// follows, Seconds = Fixed + bytes / Rate.
type Case struct {
	Name   string
	Modify func(*config.Case)
	Fixed  float64
	Rate   float64 // bytes per second
	// Noise multiplies each repeat's time, one entry for each of the four
	// repeats; nil is the default, within ±3%. Two engines' cases with
	// different noise give their repeat pairs a spread, as a real
	// calibration has.
	Noise []float64
}

// Cases are the default synthetic cases: Kafka Streams' defaults at 100 MB/s
// (+0.5 s), two threads at 130 MB/s, SST ingestion at 220 MB/s (+0.4 s).
var Cases = []Case{
	{Name: "kstreams-default", Modify: func(*config.Case) {}, Fixed: 0.5, Rate: 100e6},
	{Name: "threads-2", Modify: func(c *config.Case) { c.Threads = 2 }, Fixed: 0.5, Rate: 130e6},
	{Name: "ingest", Modify: func(c *config.Case) { c.Strategy = config.StrategyIngest }, Fixed: 0.4, Rate: 220e6},
}

// KafkaStreams is a kafka-streams case of Kafka Streams' default settings
// (the counterpart of Cases[0]) whose restores take Fixed + bytes / Rate
// with noise of its own: with Cases[0] it makes engine pairs whose factor
// (Kafka Streams / model) falls with size, as the JVM's start-up
// amortises, and spreads over repeat pairs.
func KafkaStreams(fixed, rate float64) Case {
	return Case{Name: "ks-default", Modify: func(c *config.Case) { c.Engine = config.EngineKafkaStreams }, Fixed: fixed, Rate: rate,
		Noise: []float64{1.03, 0.98, 1.01, 0.975}}
}

// Sizes are the default changelog sizes: 128 MB to 1 GB.
var Sizes = []int64{128e6, 256e6, 512e6, 1000e6}

// noise multiplies each repeat's time: four repeats within ±3%.
var noise = []float64{1.00, 1.03, 0.98, 1.015}

// readySeconds is the synthetic ready phase, part of the time to ready.
const readySeconds = 0.3

// Liveness of the synthetic fills: live bytes and keys per changelog byte
// and record.
const (
	liveFraction  = 0.43
	keysPerRecord = 0.42
	recordBytes   = 516
)

// Runs returns one results per size, each with every case × 4 repeats.
// The first run is written as an old file would be: without the CPU model,
// disk and broker version. The second holds a fifth, failed repeat of the
// default case, which must not count (so that run is partial, as the tool
// would record it).
func Runs() []*runs.Results {
	out := make([]*runs.Results, len(Sizes))
	for i, size := range Sizes {
		out[i] = Run(i, size, Cases)
	}
	out[0].Host.CPUModel, out[0].Host.Disk, out[0].Broker.Version = "", nil, ""
	failed := out[1].Restores[0]
	failed.Repeat, failed.Verified, failed.Error = 5, false, "restore did not verify: partition 2: digest differs"
	failed.Phase = &runs.RestorePhase{Seconds: 0.1, TotalSeconds: 0.4}
	out[1].Restores = append(out[1].Restores, failed)
	// As the tool writes such a run: it went on to its end, but is not
	// complete, and its error names the failed measurement.
	out[1].Complete, out[1].Failed, out[1].Error = false, 1, "1 measurement failed: kstreams-default #5 did not verify"
	out[1].Profile.Repeats = len(noise) + 1 // the run asked for 5 repeats; the others' fifth was never run
	return out
}

// Run is one synthetic run of the cases at one changelog size.
func Run(index int, size int64, cases []Case) *runs.Results {
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(index) * 10 * time.Minute)
	label := sizeLabel(size)
	fill := fillOf(label, size, start)
	r := &runs.Results{
		SchemaVersion: runs.SchemaVersion, RunID: start.Format("20060102-150405") + "-size-" + label, ToolVersion: "0.2.0-test",
		StartedAt: start, FinishedAt: start.Add(5 * time.Minute), Complete: true,
		Host:    host(),
		Broker:  runs.Broker{Kind: "embedded", Bootstrap: []string{"127.0.0.1:9092"}, Version: "kfake v0.0.0-test"},
		Profile: &runs.ProfileInfo{Name: "size-" + label, Source: "builtin", Repeats: len(noise)},
		Fill:    fill,
	}
	for _, c := range cases {
		for rep := range noise {
			r.Restores = append(r.Restores, restore(c, rep, fill, start))
		}
	}
	return r
}

// Write saves results as dir/<run id>/results.json and returns the run
// directories, in order.
func Write(dir string, rs []*runs.Results) ([]string, error) {
	var dirs []string
	for _, r := range rs {
		d := filepath.Join(dir, r.RunID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := r.Save(filepath.Join(d, "results.json")); err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

func sizeLabel(size int64) string {
	if size >= 1e9 {
		return fmt.Sprintf("%dGB", size/1e9)
	}
	return fmt.Sprintf("%dMB", size/1e6)
}

func host() runs.Host {
	rot := false
	return runs.Host{Hostname: "bench-01", OS: "linux", Arch: "amd64", CPUs: 8, MemoryBytes: 32 << 30, GoVersion: "go1.26.8",
		RocksDBVersion: "7.8.3", CPUModel: "AMD EPYC 7B13",
		Disk: &runs.Disk{Path: "/data/state", MountPoint: "/data", Device: "/dev/nvme0n1p1", Filesystem: "ext4",
			Model: "Samsung SSD 980 PRO 1TB", Rotational: &rot, SizeBytes: 1e12, FreeBytes: 6e11}}
}

// fillOf is the fill of a changelog of size bytes over 4 partitions.
func fillOf(label string, size int64, at time.Time) *runs.Fill {
	records := size / recordBytes
	keys := int64(float64(records) * keysPerRecord)
	f := &runs.Fill{
		Topic: "rb-size-" + label + "-balances-changelog", Compression: "lz4", FilledAt: at,
		Spec: &loadgen.Spec{Seed: 1, TargetBytes: size, Keys: records / 2, ValueMin: 200, ValueMax: 800,
			TombstoneRatio: 0.02, KeyOrder: loadgen.KeysUniform, Partitions: 4},
		Records: records, Tombstones: records / 50, Bytes: size, DurationSeconds: float64(size) / 130e6, MBPerSec: 130, RecordsPerSec: 130e6 / recordBytes,
	}
	for p := int32(0); p < 4; p++ {
		f.Offsets = append(f.Offsets, loadgen.PartitionOffsets{Partition: p, End: records / 4})
		f.Expected = append(f.Expected, loadgen.PartitionState{Partition: p, Keys: keys / 4, LiveBytes: int64(float64(size)*liveFraction) / 4})
	}
	return f
}

// restore is repeat rep of case c on fill: its time to ready on c's line
// times the repeat's noise.
func restore(c Case, rep int, fill *runs.Fill, start time.Time) runs.Restore {
	p := config.DefaultCase()
	p.Name = c.Name
	p.RocksDB.Parallelism, p.RocksDB.MaxBackgroundJobs = 2, 2
	c.Modify(&p)
	n := noise
	if c.Noise != nil {
		n = c.Noise
	}
	total := (c.Fixed + float64(fill.Bytes)/c.Rate) * n[rep]
	dur := total - readySeconds
	v := verify.Result{Mode: verify.ModeExpectedState}
	for _, e := range fill.Expected {
		v.Partitions = append(v.Partitions, verify.PartitionCheck{Partition: e.Partition, ExpectedKeys: e.Keys, ActualKeys: e.Keys,
			ExpectedLiveBytes: e.LiveBytes, LiveBytes: e.LiveBytes, OK: true})
	}
	r := runs.Restore{
		Case: c.Name, Step: &runs.Step{Case: c.Name, Kind: runs.StepRestore}, Repeat: rep + 1, Params: p,
		Topic: fill.Topic, Partitions: 4, StartedAt: start.Add(time.Duration(rep+1) * time.Second),
		Phase: &runs.RestorePhase{Seconds: dur, TotalSeconds: total, RecordsPerSec: float64(fill.Records) / dur,
			MBPerSec: float64(fill.Bytes) / 1e6 / dur, PeakRSSBytes: 300 << 20},
		Records: fill.Records, Bytes: fill.Bytes,
		Verified: true, Verification: v,
	}
	setModel(&r, dur)
	return r
}

// setModel gives a model-engine record the model's own figures: its
// restore phase all load, and the ready phase its time to ready holds
// beyond it; a kafka-streams record has none.
func setModel(r *runs.Restore, load float64) {
	if r.Params.Engine == config.EngineKafkaStreams {
		r.Model = nil
		return
	}
	r.Model = &runs.ModelRun{LoadSeconds: load, Ready: &runs.ReadyPhase{Seconds: readySeconds}}
}
