package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
)

// ToolVersion is the restorebench version recorded in results.json.
var ToolVersion = "0.2.0-dev"

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
	AfterRestore func(runs.Restore)
}

// NewRunID returns a sortable run id: 20261129-104512-<profile>.
func NewRunID(profile string) string {
	return time.Now().UTC().Format("20060102-150405") + "-" + profile
}

// Run executes a plan: it ensures the fill, then runs every case × repeat
// with its scenario on a fresh state directory, verifying each. results.json
// is rewritten atomically after every restore, so an interrupted run keeps
// all it finished. The error is non-nil when anything failed or did not
// verify; the results are returned in every case once the run has started.
func (e *Env) Run(ctx context.Context, plan *profiles.Plan, o RunOptions) (*runs.Results, error) {
	if o.RunID == "" {
		o.RunID = NewRunID(plan.Name)
	}
	repeats := plan.Repeats
	if o.Repeats > 0 {
		repeats = o.Repeats
	}
	out, err := e.startResults(o.OutDir, o.RunID)
	if err != nil {
		return nil, err
	}
	out.res.Profile = &runs.ProfileInfo{Name: plan.Name, Source: plan.Source, Repeats: repeats, YAML: plan.YAML}
	fill, err := e.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: plan.Compression, Refill: o.Refill})
	if err != nil {
		return out.fail(fmt.Errorf("fill: %w", err))
	}
	out.res.Fill = fill.ToResults()
	if err := out.save(errInProgress); err != nil {
		return out.res, err
	}
	stateRoot := filepath.Join(e.Opts.StateDir, o.RunID)
	defer func() {
		if !o.KeepState {
			os.RemoveAll(stateRoot)
		}
	}()
	r := caseRunner{
		env: e, out: out, repeats: repeats, ready: plan.Ready, keepState: o.KeepState, after: o.AfterRestore,
		target: scenario.Target{Topic: plan.Topic, AppID: plan.AppID, StoreName: plan.StoreName,
			Expected: fill.Manifest.Expected, Ends: endsOf(fill.Manifest.Offsets)},
		stateDir: func(c config.Case, rep int) string {
			return filepath.Join(stateRoot, fmt.Sprintf("%s-%d", c.Name, rep))
		},
	}
	if plan.Limits {
		r.limits = newLimitMeter(e, plan.Topic, plan.AppID, plan.StoreName, filepath.Join(stateRoot, "limits"))
		defer r.limits.close()
	}
	return r.run(ctx, plan.Cases)
}

// RestoreTopicOptions configure a one-off restore of an existing topic.
type RestoreTopicOptions struct {
	Topic     string
	AppID     string
	StoreName string
	Case      config.Case
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
func (e *Env) RestoreTopic(ctx context.Context, o RestoreTopicOptions) (*runs.Results, error) {
	if o.Repeats <= 0 {
		o.Repeats = 1
	}
	if o.RunID == "" {
		o.RunID = NewRunID("restore")
	}
	in := engine.Instance{StateDir: e.Opts.StateDir, AppID: o.AppID}
	if err := in.CheckStateDirEmpty(); err != nil {
		if !o.Force {
			return nil, fmt.Errorf("%w (use --force to wipe it)", err)
		}
		e.Logf("restore: --force: wiping %s", in.AppDir())
		if err := os.RemoveAll(in.AppDir()); err != nil {
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
	out, err := e.startResults(o.OutDir, o.RunID)
	if err != nil {
		return nil, err
	}
	target := scenario.Target{Topic: o.Topic, AppID: o.AppID, StoreName: o.StoreName}
	if manifest != nil && sameEnds(manifest.Offsets, offsets) {
		out.res.Fill = FillOutcome{Manifest: manifest, Reused: true}.ToResults()
		target.Expected, target.Ends = manifest.Expected, endsOf(manifest.Offsets)
	} else {
		if manifest != nil {
			e.Logf("restore: %s changed since restorebench filled it; it will be counted, not verified", o.Topic)
		} else {
			e.Logf("restore: %s was not filled by restorebench here; it will be counted, not verified", o.Topic)
		}
		out.res.Fill = &runs.Fill{Topic: o.Topic, Offsets: toPartitionOffsets(offsets)}
	}
	o.Case.Name = "restore"
	r := caseRunner{
		env: e, out: out, repeats: o.Repeats, ready: o.Ready, target: target,
		stateDir: func(config.Case, int) string { return e.Opts.StateDir },
		// Only the last repeat's stores can be kept: each repeat starts cold.
		keepStateOf: func(rep int) bool { return o.KeepState && rep == o.Repeats },
	}
	return r.run(ctx, []config.Case{o.Case})
}

// errInProgress is the error results.json carries while the run goes on.
var errInProgress = errors.New(runs.ErrorInProgress)

// resultsFile is a run's results and where they are saved.
type resultsFile struct {
	res  *runs.Results
	path string
}

func (e *Env) startResults(outDir, runID string) (*resultsFile, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output dir: %w", err)
	}
	return &resultsFile{res: e.newResults(runID), path: filepath.Join(outDir, "results.json")}, nil
}

// save writes results.json atomically, marking the run complete when
// runErr is nil.
func (f *resultsFile) save(runErr error) error {
	f.res.FinishedAt = time.Now().UTC()
	f.res.Complete = runErr == nil
	f.res.Error = ""
	if runErr != nil {
		f.res.Error = runErr.Error()
	}
	return f.res.Save(f.path)
}

// fail saves the results with err and returns both.
func (f *resultsFile) fail(err error) (*runs.Results, error) {
	return f.res, errors.Join(err, f.save(err))
}

// caseRunner runs cases × repeats with their scenarios, recording each.
type caseRunner struct {
	env         *Env
	out         *resultsFile
	target      scenario.Target
	repeats     int
	ready       bool
	keepState   bool
	keepStateOf func(rep int) bool // overrides keepState when set
	stateDir    func(c config.Case, rep int) string
	limits      *limitMeter
	after       func(runs.Restore)
}

func (r *caseRunner) run(ctx context.Context, cases []config.Case) (*runs.Results, error) {
	e := r.env
	var failures []string
	for _, c := range cases {
		sc, err := scenario.For(c)
		if err != nil {
			return r.out.fail(err)
		}
		var limits *runs.Limits
		for rep := 1; rep <= r.repeats; rep++ {
			if err := ctx.Err(); err != nil {
				return r.out.fail(fmt.Errorf("interrupted before case %s #%d: %w", c.Name, rep, err))
			}
			if r.limits != nil && limits == nil {
				if limits, err = r.limits.forCase(ctx, c); err != nil {
					return r.out.fail(fmt.Errorf("case %s: limits: %w", c.Name, err))
				}
			}
			keep := r.keepState
			if r.keepStateOf != nil {
				keep = r.keepStateOf(rep)
			}
			e.Logf("restore: case %s #%d (%s)", c.Name, rep, c.Describe())
			rec, err := sc.Run(ctx, e.scenarioEnv(), r.target, scenario.Request{
				Case: c, Repeat: rep, StateDir: r.stateDir(c, rep), KeepState: keep, Ready: r.ready, Limits: limits,
			})
			if ctx.Err() != nil {
				// An interrupted restore is not a measurement: keep what finished.
				return r.out.fail(fmt.Errorf("interrupted during case %s #%d: %w", c.Name, rep, ctx.Err()))
			}
			r.out.res.Restores = append(r.out.res.Restores, rec)
			switch {
			case errors.Is(err, scenario.ErrUnverified):
				e.Logf("restore: case %s #%d VERIFICATION FAILED: %s", c.Name, rep, rec.Verification.Problem)
				failures = append(failures, fmt.Sprintf("%s #%d did not verify", c.Name, rep))
			case err != nil:
				e.Logf("restore: case %s #%d FAILED: %v", c.Name, rep, err)
				failures = append(failures, fmt.Sprintf("%s #%d failed: %v", c.Name, rep, err))
			case rec.Verified:
				e.Logf("restore: case %s #%d verified: %d records in %.2fs (%.1f MB/s, %.0f records/s)",
					c.Name, rep, rec.Records, rec.DurationSeconds, rec.MBPerSec, rec.RecordsPerSec)
			default:
				e.Logf("restore: case %s #%d restored, NOT verified (%s): %d records in %.2fs",
					c.Name, rep, rec.Verification.Problem, rec.Records, rec.DurationSeconds)
			}
			if r.after != nil {
				r.after(rec)
			}
			if err := r.out.save(errInProgress); err != nil {
				return r.out.res, err
			}
		}
	}
	var runErr error
	if len(failures) > 0 {
		runErr = fmt.Errorf("%d restore(s) failed: %s", len(failures), strings.Join(failures, "; "))
	}
	if err := r.out.save(runErr); err != nil {
		return r.out.res, errors.Join(runErr, err)
	}
	return r.out.res, runErr
}

// RunCase runs one case once against a fill, with its scenario, in
// stateDir: the building block of Run, for tests and tools that drive cases
// one at a time.
func (e *Env) RunCase(ctx context.Context, fill FillOutcome, appID, storeName string, c config.Case, stateDir string) (runs.Restore, error) {
	sc, err := scenario.For(c)
	if err != nil {
		return runs.Restore{}, err
	}
	m := fill.Manifest
	t := scenario.Target{Topic: m.Topic, AppID: appID, StoreName: storeName, Expected: m.Expected, Ends: endsOf(m.Offsets)}
	return sc.Run(ctx, e.scenarioEnv(), t, scenario.Request{Case: c, Repeat: 1, StateDir: stateDir})
}
