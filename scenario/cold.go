package scenario

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/internal/statedir"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// readyTimeout bounds the wait for compactions to settle.
const readyTimeout = 30 * time.Minute

// ColdModel is a cold restore on the model engine: an instance with an
// empty state directory is assigned every task of the changelog and
// restores it from the log start to the end offsets captured as it begins;
// then (optionally) the ready phase; then the stores are verified.
type ColdModel struct{}

func init() { Register(config.ScenarioCold, config.EngineModel, single{ColdModel{}}) }

// endsMoved is the error of a restore whose topic no longer ends where its
// expected state was derived for.
const endsMoved = "topic %s no longer ends at the offsets its expected state was derived for " +
	"(its fill, or the independent read of a topic restorebench did not fill): it was written meanwhile; " +
	"refill it, or restore it while nothing writes to it"

// Run runs one cold restore and verifies it.
func (ColdModel) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (runs.Restore, error) {
	rec := newRecord(t, req, req.Step(runs.StepRestore))
	if err := resetChanged(ctx, req); err != nil {
		return rec, err
	}
	offsets, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return rec, err
	}
	// A sample of the partitions (restore --partitions): only they are
	// assigned to the restore consumer, so nothing else is fetched.
	offsets = t.Offsets(offsets)
	rec.Partitions, rec.RestoredPartitions = len(offsets.End), t.Partitions
	if t.Ends != nil && !sameEnds(t.Ends, offsets) {
		return rec, fmt.Errorf(endsMoved, t.Topic)
	}
	return placeModel(env, t, req).cold(ctx, offsets, rec)
}

// checkReads fails a restore whose query load met a wrong answer, as an
// unverified restore fails: a read that was never right is the worst a
// store can give.
func checkReads(rec *runs.Restore) (runs.Restore, error) {
	q := rec.Queries
	if q == nil || q.Wrong == 0 {
		return *rec, nil
	}
	rec.Verified = false
	rec.Error = queryload.WrongReadsText(q.Wrong, q.Answered, q.Misrouted, q.WrongReads[0])
	return *rec, fmt.Errorf("%w: case %s #%d: %s", fleet.ErrUnverified, rec.Case, rec.Repeat, rec.Error)
}

// newRecord starts the record of one measurement of req against t: the
// step s of its sequence.
func newRecord(t fleet.Target, req fleet.Request, s runs.Step) runs.Restore {
	rec := runs.Restore{Repeat: req.Repeat, Params: req.Case, Topic: t.Topic, StartedAt: time.Now().UTC()}
	rec.SetStep(s)
	return rec
}

// modelInstance is the model instance a request runs.
func modelInstance(env *fleet.Env, t fleet.Target, req fleet.Request) *engine.Instance {
	return &engine.Instance{
		Cluster: env.Cluster, StateDir: req.StateDir, AppID: t.AppID, StoreName: t.StoreName,
		Case: req.Case, StallTimeout: env.StallTimeout,
	}
}

// cleanupState removes the instance's stores unless the request keeps them.
func cleanupState(in *engine.Instance, req fleet.Request) {
	if !req.KeepState {
		os.RemoveAll(in.AppDir())
	}
}

// measureModel runs one restore of the model instance (restore does it)
// with a progress display, and records in rec its restore phase
// (time, throughput, CPU, peak RSS, disk) and what the model measures
// (the phases' split, latencies, RocksDB figures and, when the request
// asks, the ready phase). On success the stores are left open in the result.
func measureModel(ctx context.Context, env *fleet.Env, req fleet.Request, in *engine.Instance,
	rec *runs.Restore, restore func() (*engine.Restored, error)) (*engine.Restored, error) {
	offsets, err := env.Offsets(ctx, rec.Topic)
	if err != nil {
		return nil, err
	}
	var want int64
	for _, task := range engine.ColdTasks(offsets.Only(rec.RestoredPartitions)) {
		want += task.Records()
	}
	bar := env.Progress.Start(fmt.Sprintf("restore %s #%d", rec.Case, rec.Repeat), want, progress.Records)
	in.Progress = func(records, _ int64) {
		bar.Set(records)
		if env.OnProgress != nil {
			env.OnProgress(records)
		}
	}
	// Return the heap earlier restores left behind to the OS, so this
	// restore's peak RSS is its own.
	debug.FreeOSMemory()
	measure.ResetPeakRSS()
	cpu0 := measure.CPUTime()
	restored, err := restore()
	cpu := (measure.CPUTime() - cpu0).Seconds()
	bar.Done()
	in.Progress = nil // later steps on this instance (a standby's) show their own progress
	peakRSS := measure.PeakRSS()
	if err != nil {
		rec.Error = err.Error()
		cleanupState(in, req)
		return nil, err
	}
	p := &runs.RestorePhase{Seconds: restored.Duration.Seconds(), CPUSeconds: cpu, PeakRSSBytes: peakRSS}
	m := &runs.ModelRun{LoadSeconds: restored.Load.Seconds(), FinishSeconds: restored.Finish.Seconds()}
	rec.Phase, rec.Model = p, m
	p.TotalSeconds = p.Seconds
	rec.Records, rec.Bytes = restored.Records, restored.Bytes
	rec.Read = fleet.ChangelogRead(restored)
	fleet.WarnRead(env, rec)
	p.RecordsPerSec = runs.PerSec(rec.Records, p.Seconds)
	p.MBPerSec = runs.MBPerSec(rec.Bytes, p.Seconds)
	rec.Series = restored.Series
	m.PollWait = restored.PollWait.Summary()
	m.BatchWrite = restored.BatchWrite.Summary()
	m.RocksDB = restored.StoreStats()
	rec.Store = fleet.StoreRecord(in.Case, restored)
	if req.Ready {
		env.Logf("restore: case %s #%d restored in %.2fs; waiting until the store can serve", rec.Case, rec.Repeat, p.Seconds)
		ready, err := engine.AwaitReady(ctx, restored.Stores, restored.SampleKeys, readyTimeout)
		if err != nil {
			rec.Error = "ready phase: " + err.Error()
			restored.Close()
			cleanupState(in, req)
			return nil, fmt.Errorf("case %s #%d: ready phase: %w", rec.Case, rec.Repeat, err)
		}
		m.Ready = &runs.ReadyPhase{
			Seconds:          ready.Settle.Seconds(),
			Reads:            ready.Reads.Summary(),
			ReadProbeSeconds: (ready.Total - ready.Settle).Seconds(),
			After:            restored.StoreStats(),
		}
		p.TotalSeconds = p.Seconds + m.Ready.Seconds
		m.Ready.After.WriteAmplification = writeAmp(m.Ready.After, rec.Bytes)
	}
	m.RocksDB.WriteAmplification = writeAmp(m.RocksDB, rec.Bytes)
	p.DiskBytes = statedir.Bytes(in.AppDir())
	if req.Limits != nil {
		p.Limits = req.Limits.For(p.MBPerSec)
	}
	return restored, nil
}

// resetChanged makes a topic an earlier case's scenario changed (a warm
// restart's or a standby's writes) hold exactly its fill again before a
// cold restore of it: a cold restore measures the fill.
func resetChanged(ctx context.Context, req fleet.Request) error {
	if req.Changer == nil {
		return nil
	}
	return req.Changer.Reset(ctx)
}

// verifyStores scans the restored stores and verifies them against
// expected (a nil expected only counts them).
func verifyStores(rec *runs.Restore, expected []loadgen.PartitionState, restored *engine.Restored) (runs.Restore, error) {
	actual, err := engine.ScanAll(restored.Stores)
	if err != nil {
		rec.Error = err.Error()
		return *rec, err
	}
	return fleet.VerifyInto(rec, fleet.Target{Expected: expected}, actual)
}

// writeAmp is what RocksDB wrote to disk per key+value byte restored.
func writeAmp(st measure.StoreStats, userBytes int64) float64 {
	if userBytes == 0 {
		return 0
	}
	return float64(st.WrittenBytes()) / float64(userBytes)
}

// sameEnds reports whether the topic still ends at the recorded offsets.
func sameEnds(recorded map[int32]int64, now cluster.TopicOffsets) bool {
	if len(recorded) != len(now.End) {
		return false
	}
	for p, end := range recorded {
		if got, ok := now.End[p]; !ok || got != end {
			return false
		}
	}
	return true
}
