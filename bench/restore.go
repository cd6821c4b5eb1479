package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/profiles"
)

// RestoreRequest is one cold restore to run and measure.
type RestoreRequest struct {
	Case   string
	Repeat int
	Params measure.CaseParams
	Config engine.RestoreConfig
	// Manifest is the fill's manifest; nil for a topic the tool did not fill,
	// which is then counted but not verified.
	Manifest *loadgen.Manifest
	// KeepState leaves the restored stores on disk afterwards.
	KeepState bool
	// Ready measures the ready phase after the restore (flush, settled
	// compactions, point reads of sampled keys).
	Ready bool
	// Limits, if set, are the case's fetch-only and write-only limits; the
	// restore's efficiency is computed against them.
	Limits *CaseLimits
}

// CaseLimits are a case's measured limits: the fastest of Runs measurements each.
type CaseLimits struct {
	FetchOnly engine.Limit
	WriteOnly engine.Limit
	Runs      int
}

// readyTimeout bounds the wait for compactions to settle.
const readyTimeout = 30 * time.Minute

// ErrUnverified marks a restore whose contents did not match the expected state.
var ErrUnverified = errors.New("restore did not verify")

// ColdRestore runs one measured, verified cold restore. The returned record
// is filled in as far as the restore got, also on error.
func (e *Env) ColdRestore(ctx context.Context, req RestoreRequest) (measure.Restore, error) {
	rec := measure.Restore{
		Case: req.Case, Repeat: req.Repeat, Params: req.Params, Topic: req.Config.Topic,
		StartedAt: time.Now().UTC(),
	}
	offsets, err := e.Offsets(ctx, req.Config.Topic)
	if err != nil {
		return rec, err
	}
	rec.Partitions = len(offsets.End)
	if req.Manifest != nil && !sameEnds(req.Manifest.Offsets, offsets) {
		return rec, fmt.Errorf("topic %s no longer ends at the offsets its fill recorded; refill it", req.Config.Topic)
	}
	var want int64
	for _, p := range offsets.Partitions() {
		want += offsets.End[p] - offsets.Start[p]
	}
	bar := e.newBar(want, fmt.Sprintf("restore %s #%d", req.Case, req.Repeat), false)
	cfg := req.Config
	if e.Opts.StallTimeout > 0 {
		cfg.StallTimeout = e.Opts.StallTimeout
	}
	callerProgress := cfg.Progress
	cfg.Progress = func(records, bytes int64) {
		if bar != nil {
			bar.Set64(records)
		}
		if callerProgress != nil {
			callerProgress(records, bytes)
		}
	}
	// Return the heap earlier restores left behind to the OS, so this
	// restore's peak RSS is its own.
	debug.FreeOSMemory()
	measure.ResetPeakRSS()
	cpu0 := measure.CPUTime()
	restored, err := engine.ColdRestore(ctx, e.Cluster, offsets, cfg)
	rec.CPUSeconds = (measure.CPUTime() - cpu0).Seconds()
	if bar != nil {
		bar.Finish()
	}
	rec.PeakRSSBytes = measure.PeakRSS()
	cleanup := func() {
		if !req.KeepState {
			os.RemoveAll(filepath.Join(cfg.StateDir, cfg.AppID))
		}
	}
	if err != nil {
		rec.Error = err.Error()
		cleanup()
		return rec, err
	}
	defer cleanup()
	defer restored.Close()
	rec.DurationSeconds = restored.Duration.Seconds()
	rec.LoadSeconds, rec.FinishSeconds = restored.Load.Seconds(), restored.Finish.Seconds()
	rec.TotalSeconds = rec.DurationSeconds
	rec.Records, rec.Bytes = restored.Records, restored.Bytes
	rec.RecordsPerSec = measure.PerSec(rec.Records, rec.DurationSeconds)
	rec.MBPerSec = measure.MBPerSec(rec.Bytes, rec.DurationSeconds)
	rec.Series = restored.Series
	rec.PollWait = restored.PollWait.Summary()
	rec.BatchWrite = restored.BatchWrite.Summary()
	rec.RocksDB = restored.RocksStats()
	if req.Ready {
		e.Logf("restore: case %s #%d restored in %.2fs; waiting until the store can serve", req.Case, req.Repeat, rec.DurationSeconds)
		ready, err := engine.AwaitReady(ctx, restored.Stores, restored.SampleKeys, readyTimeout)
		if err != nil {
			rec.Error = "ready phase: " + err.Error()
			return rec, fmt.Errorf("case %s #%d: ready phase: %w", req.Case, req.Repeat, err)
		}
		rec.Ready = &measure.ReadyPhase{
			Seconds:          ready.Settle.Seconds(),
			Reads:            ready.Reads.Summary(),
			ReadProbeSeconds: (ready.Total - ready.Settle).Seconds(),
			After:            restored.RocksStats(),
		}
		rec.TotalSeconds = rec.DurationSeconds + rec.Ready.Seconds
		rec.Ready.After.WriteAmplification = writeAmp(rec.Ready.After, rec.Bytes)
	}
	rec.RocksDB.WriteAmplification = writeAmp(rec.RocksDB, rec.Bytes)
	rec.DiskBytes = dirBytes(filepath.Join(cfg.StateDir, cfg.AppID))
	if l := req.Limits; l != nil {
		rec.Limits = limitsRecord(l, rec.MBPerSec)
	}

	if req.Manifest == nil {
		v, err := engine.Census(restored.Stores)
		rec.Verification = v
		if err != nil {
			rec.Error = err.Error()
			return rec, err
		}
		return rec, nil
	}
	ok, v := engine.Verify(restored.Stores, req.Manifest.Expected)
	rec.Verified, rec.Verification = ok, v
	if !ok {
		rec.Error = "verification failed: " + v.Problem
		return rec, fmt.Errorf("%w: case %s #%d: %s", ErrUnverified, req.Case, req.Repeat, v.Problem)
	}
	return rec, nil
}

// writeAmp is what RocksDB wrote to SST files per key+value byte restored.
func writeAmp(st measure.RocksDBStats, userBytes int64) float64 {
	if userBytes == 0 {
		return 0
	}
	return float64(st.FlushBytes+st.CompactionWriteBytes+st.IngestedBytes+st.SortSpillBytes) / float64(userBytes)
}

// limitsRecord states a restore's rate against its case's limits.
func limitsRecord(l *CaseLimits, restoreMBps float64) *measure.Limits {
	out := &measure.Limits{
		FetchOnlySeconds:  l.FetchOnly.Duration.Seconds(),
		FetchOnlyMBPerSec: l.FetchOnly.MBPerSec(),
		FetchOnlyCPU:      l.FetchOnly.CPU.Seconds(),
		WriteOnlySeconds:  l.WriteOnly.Duration.Seconds(),
		WriteOnlyMBPerSec: l.WriteOnly.MBPerSec(),
		WriteOnlyCPU:      l.WriteOnly.CPU.Seconds(),
		Runs:              l.Runs,
	}
	out.BoundMBPerSec, out.Bound = out.FetchOnlyMBPerSec, "fetch"
	if out.WriteOnlyMBPerSec < out.BoundMBPerSec {
		out.BoundMBPerSec, out.Bound = out.WriteOnlyMBPerSec, "write"
	}
	if out.BoundMBPerSec > 0 {
		out.Efficiency = restoreMBps / out.BoundMBPerSec
	}
	return out
}

// dirBytes is the total size of the regular files under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// CaseConfig builds the engine configuration for one case's parameters.
// Zero fetch sizes and a nil RocksDBOptions take the defaults (Kafka's and
// the named preset's).
func CaseConfig(topic, stateDir, appID, storeName string, p measure.CaseParams) (engine.RestoreConfig, error) {
	c := engine.DefaultRestoreConfig(topic, stateDir)
	c.AppID, c.StoreName = appID, storeName
	c.BatchRecords, c.Threads, c.Store = p.BatchRecords, p.Threads, p.Store
	if p.Strategy != "" {
		c.Strategy = p.Strategy
	}
	if c.Strategy == engine.StrategyMemory {
		c.Store = "memory"
	}
	if p.FetchMaxBytes > 0 {
		c.FetchMaxBytes = p.FetchMaxBytes
	}
	if p.MaxPartitionFetchBytes > 0 {
		c.MaxPartitionFetchBytes = p.MaxPartitionFetchBytes
	}
	if p.SortBufferBytes > 0 {
		c.SortBufferBytes = p.SortBufferBytes
	}
	if p.RocksDBOptions != nil {
		c.RocksDB = *p.RocksDBOptions
	} else {
		ro, err := engine.RocksPreset(p.RocksDB)
		if err != nil {
			return c, err
		}
		c.RocksDB = ro
	}
	return c, c.Validate()
}

// ParamsOf returns the results record of an expanded profile case.
func ParamsOf(c profiles.Case) measure.CaseParams {
	ro := c.RocksDBOptions
	return measure.CaseParams{
		Scenario: "cold", Strategy: c.Strategy, BatchRecords: c.BatchRecords, Threads: c.Threads,
		RocksDB: c.RocksDB, Store: c.Store, FetchMaxBytes: c.FetchMaxBytes,
		MaxPartitionFetchBytes: c.MaxPartitionFetchBytes, SortBufferBytes: c.SortBufferBytes,
		RocksDBOptions: &ro,
	}
}
