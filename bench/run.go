package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/profiles"
)

// ToolVersion is the restorebench version recorded in results.json.
var ToolVersion = "0.1.0-dev"

// RunOptions configure a profile run.
type RunOptions struct {
	// OutDir receives results.json (and the CLI adds plots). Created if missing.
	OutDir string
	// RunID names the run; default a UTC timestamp plus the profile name.
	RunID string
	// Refill deletes and refills a topic that holds a different fill.
	Refill bool
	// KeepState leaves restored stores on disk.
	KeepState bool
	// Repeats overrides the profile's repeats when positive.
	Repeats int
	// AfterRestore, if set, is called after each restore is recorded.
	AfterRestore func(measure.Restore)
}

// NewRunID returns a sortable run id: 20261129-104512-<profile>.
func NewRunID(profile string) string {
	return time.Now().UTC().Format("20060102-150405") + "-" + profile
}

// Run executes a plan: it ensures the fill, then runs every case × repeat as
// a cold restore on a fresh state directory, verifying each. results.json is
// rewritten atomically after every restore, so an interrupted run keeps all
// it finished. The error is non-nil when anything failed or did not verify;
// the results are returned in every case once the run has started.
func (e *Env) Run(ctx context.Context, plan *profiles.Plan, o RunOptions) (*measure.Results, error) {
	if o.RunID == "" {
		o.RunID = NewRunID(plan.Name)
	}
	repeats := plan.Repeats
	if o.Repeats > 0 {
		repeats = o.Repeats
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("output dir: %w", err)
	}
	resultsPath := filepath.Join(o.OutDir, "results.json")
	res := e.newResults(o.RunID)
	res.Profile = &measure.ProfileInfo{Name: plan.Name, Source: plan.Source, Repeats: repeats, YAML: plan.YAML}
	save := func(runErr error) error {
		res.FinishedAt = time.Now().UTC()
		res.Complete = runErr == nil
		res.Error = ""
		if runErr != nil {
			res.Error = runErr.Error()
		}
		return res.Save(resultsPath)
	}

	fill, err := e.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: plan.Compression, Refill: o.Refill})
	if err != nil {
		err = fmt.Errorf("fill: %w", err)
		if serr := save(err); serr != nil {
			return res, errors.Join(err, serr)
		}
		return res, err
	}
	res.Fill = fill.ToResults()
	if err := save(errors.New("run in progress")); err != nil {
		return res, err
	}

	var failures []string
	stateRoot := filepath.Join(e.Opts.StateDir, o.RunID)
	defer func() {
		if !o.KeepState {
			os.RemoveAll(stateRoot)
		}
	}()
	var limits *limitMeter
	if plan.Limits {
		limits = newLimitMeter(e, plan.Topic, filepath.Join(stateRoot, "limits"))
		defer limits.close()
	}
	for _, c := range plan.Cases {
		params := ParamsOf(c)
		var caseLimits *CaseLimits
		for rep := 1; rep <= repeats; rep++ {
			if err := ctx.Err(); err != nil {
				err = fmt.Errorf("interrupted before case %s #%d: %w", c.Name, rep, err)
				return res, errors.Join(err, save(err))
			}
			stateDir := filepath.Join(stateRoot, fmt.Sprintf("%s-%d", c.Name, rep))
			cfg, err := CaseConfig(plan.Topic, stateDir, plan.AppID, plan.StoreName, params)
			if err != nil {
				err = fmt.Errorf("case %s: %w", c.Name, err)
				return res, errors.Join(err, save(err))
			}
			if limits != nil && caseLimits == nil {
				if caseLimits, err = limits.forCase(ctx, cfg); err != nil {
					err = fmt.Errorf("case %s: limits: %w", c.Name, err)
					return res, errors.Join(err, save(err))
				}
			}
			e.Logf("restore: case %s #%d (strategy=%s batch_records=%d threads=%d rocksdb=%s store=%s)",
				c.Name, rep, c.Strategy, c.BatchRecords, c.Threads, c.RocksDB, c.Store)
			rec, err := e.ColdRestore(ctx, RestoreRequest{
				Case: c.Name, Repeat: rep, Params: params, Config: cfg,
				Manifest: fill.Manifest, KeepState: o.KeepState, Ready: plan.Ready, Limits: caseLimits,
			})
			if ctx.Err() != nil {
				// An interrupted restore is not a measurement: keep what finished.
				err = fmt.Errorf("interrupted during case %s #%d: %w", c.Name, rep, ctx.Err())
				return res, errors.Join(err, save(err))
			}
			res.Restores = append(res.Restores, rec)
			switch {
			case errors.Is(err, ErrUnverified):
				e.Logf("restore: case %s #%d VERIFICATION FAILED: %s", c.Name, rep, rec.Verification.Problem)
				failures = append(failures, fmt.Sprintf("%s #%d did not verify", c.Name, rep))
			case err != nil:
				e.Logf("restore: case %s #%d FAILED: %v", c.Name, rep, err)
				failures = append(failures, fmt.Sprintf("%s #%d failed: %v", c.Name, rep, err))
			default:
				e.Logf("restore: case %s #%d verified: %d records in %.2fs (%.1f MB/s, %.0f records/s)",
					c.Name, rep, rec.Records, rec.DurationSeconds, rec.MBPerSec, rec.RecordsPerSec)
			}
			if o.AfterRestore != nil {
				o.AfterRestore(rec)
			}
			if err := save(errors.New("run in progress")); err != nil {
				return res, err
			}
		}
	}
	var runErr error
	if len(failures) > 0 {
		runErr = fmt.Errorf("%d restore(s) failed: %s", len(failures), strings.Join(failures, "; "))
	}
	if err := save(runErr); err != nil {
		return res, errors.Join(runErr, err)
	}
	return res, runErr
}

// RestoreTopicOptions configure a one-off restore of an existing topic.
type RestoreTopicOptions struct {
	Topic     string
	AppID     string
	StoreName string
	Params    measure.CaseParams
	Repeats   int
	OutDir    string
	RunID     string
	// Force wipes existing state under <state.dir>/<application.id> first.
	Force     bool
	KeepState bool
	// Ready measures the ready phase after each restore.
	Ready bool
}

// RestoreTopic restores an existing topic, any topic: one the tool filled is
// verified against its manifest; any other is restored and counted but
// reported as not verified. results.json is written to OutDir.
func (e *Env) RestoreTopic(ctx context.Context, o RestoreTopicOptions) (*measure.Results, error) {
	if o.Repeats <= 0 {
		o.Repeats = 1
	}
	if o.RunID == "" {
		o.RunID = NewRunID("restore")
	}
	cfg, err := CaseConfig(o.Topic, e.Opts.StateDir, o.AppID, o.StoreName, o.Params)
	if err != nil {
		return nil, err
	}
	if err := engine.CheckStateDirEmpty(cfg); err != nil {
		if !o.Force {
			return nil, err
		}
		dir := filepath.Join(cfg.StateDir, cfg.AppID)
		e.Logf("restore: --force: wiping %s", dir)
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
	}
	offsets, err := e.Offsets(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	manifest, err := loadgen.LoadManifest(loadgen.ManifestPath(e.Opts.DataDir, e.ClusterID, o.Topic))
	if err != nil {
		return nil, err
	}
	res := e.newResults(o.RunID)
	if manifest != nil && sameEnds(manifest.Offsets, offsets) {
		res.Fill = FillOutcome{Manifest: manifest, Reused: true}.ToResults()
	} else {
		if manifest != nil {
			e.Logf("restore: %s changed since restorebench filled it; it will be counted, not verified", o.Topic)
		} else {
			e.Logf("restore: %s was not filled by restorebench here; it will be counted, not verified", o.Topic)
		}
		manifest = nil
		res.Fill = &measure.Fill{Topic: o.Topic, Offsets: toPartitionOffsets(offsets)}
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("output dir: %w", err)
	}
	path := filepath.Join(o.OutDir, "results.json")
	var failures []string
	for rep := 1; rep <= o.Repeats; rep++ {
		rec, err := e.ColdRestore(ctx, RestoreRequest{
			Case: "restore", Repeat: rep, Params: o.Params, Config: cfg, Manifest: manifest, KeepState: o.KeepState && rep == o.Repeats, Ready: o.Ready,
		})
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted during restore #%d: %w", rep, ctx.Err())
			res.FinishedAt, res.Error = time.Now().UTC(), err.Error()
			return res, errors.Join(err, res.Save(path))
		}
		res.Restores = append(res.Restores, rec)
		if err != nil {
			failures = append(failures, fmt.Sprintf("#%d: %v", rep, err))
		}
	}
	res.FinishedAt = time.Now().UTC()
	var runErr error
	if len(failures) > 0 {
		runErr = fmt.Errorf("restore failed: %s", strings.Join(failures, "; "))
		res.Error = runErr.Error()
	}
	res.Complete = runErr == nil
	if err := res.Save(path); err != nil {
		return res, errors.Join(runErr, err)
	}
	return res, runErr
}
