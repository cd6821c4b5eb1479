package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
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
}

// ErrUnverified marks a restore whose contents did not match the expected state.
var ErrUnverified = errors.New("restore did not verify")

// ColdRestore runs one measured, verified cold restore. The returned record
// is filled in as far as the restore got, also on error.
func (e *Env) ColdRestore(ctx context.Context, req RestoreRequest) (measure.Restore, error) {
	rec := measure.Restore{
		Case: req.Case, Repeat: req.Repeat, Params: req.Params, Topic: req.Config.Topic,
		StartedAt: time.Now().UTC(),
	}
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return rec, err
	}
	offsets, err := cluster.Offsets(ctx, adm, req.Config.Topic)
	closeAdm()
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
	measure.ResetPeakRSS()
	restored, err := engine.ColdRestore(ctx, e.Cluster, offsets, cfg)
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
	rec.Records, rec.Bytes = restored.Records, restored.Bytes
	rec.RecordsPerSec = measure.PerSec(rec.Records, rec.DurationSeconds)
	rec.MBPerSec = measure.MBPerSec(rec.Bytes, rec.DurationSeconds)
	rec.Series = restored.Series
	rec.PollWait = restored.PollWait.Summary()
	rec.BatchWrite = restored.BatchWrite.Summary()
	rec.RocksDB = restored.RocksStats()

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

// CaseConfig builds the engine configuration for one expanded case.
func CaseConfig(topic, stateDir, appID, storeName string, p measure.CaseParams) (engine.RestoreConfig, error) {
	c := engine.DefaultRestoreConfig(topic, stateDir)
	c.AppID, c.StoreName = appID, storeName
	c.BatchRecords, c.Threads, c.Store = p.BatchRecords, p.Threads, p.Store
	ro, err := engine.RocksPreset(p.RocksDB)
	if err != nil {
		return c, err
	}
	c.RocksDB = ro
	return c, c.Validate()
}
