package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
	"github.com/restorebench/restorebench/topicshape"
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

// checkRunID refuses a run id that is not one path element: it names the
// run's state root under the state dir.
func checkRunID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") {
		return fmt.Errorf("run id %q is not one path element", id)
	}
	return nil
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
	if err := checkRunID(o.RunID); err != nil {
		return nil, err
	}
	repeats := plan.Repeats
	if o.Repeats > 0 {
		repeats = o.Repeats
	}
	if err := e.checkPlan(ctx, plan, repeats); err != nil {
		return nil, err
	}
	out, err := e.startResults(o.OutDir, o.RunID)
	if err != nil {
		return nil, err
	}
	out.res.Profile = &runs.ProfileInfo{Name: plan.Name, Source: plan.Source, Repeats: repeats, YAML: plan.YAML}
	root, runID, err := e.claimRunState(o.RunID)
	if err != nil {
		return out.fail(err)
	}
	if runID != o.RunID {
		e.Logf("run: %s is another run's (its state dir exists); this run is %s", o.RunID, runID)
		o.RunID, out.res.RunID = runID, runID
	}
	defer func() {
		if o.KeepState {
			root.Release()
		} else {
			root.Remove()
		}
	}()
	pr := planRun{env: e, plan: plan, opts: o, repeats: repeats, out: out, stateRoot: root.Path}
	var failures []string
	for _, fp := range fillsOf(plan) {
		cases := plan.Cases
		if len(plan.KindSpecs) > 0 {
			if cases, err = plan.CasesFor(fp.spec); err != nil {
				return out.fail(err)
			}
		}
		if !fp.first {
			cases = everySizeCases(cases)
		}
		f, err := pr.onFill(ctx, fp, cases)
		failures = append(failures, f...)
		if err != nil {
			return out.res, err
		}
	}
	return out.finish(failures)
}

// checkPlan refuses, before anything is filled, a plan this run cannot
// carry out: a runaway schedule (it is built in memory), a case this
// broker cannot run, kafka-streams cases under an application that is not
// restorebench's (a user's group or input topic), or kafka-streams cases
// without their engine.
func (e *Env) checkPlan(ctx context.Context, plan *profiles.Plan, repeats int) error {
	if err := profiles.CheckJobs(len(plan.Cases), plan.Fills(), repeats); err != nil {
		return err
	}
	cases, err := casesWithTwins(plan)
	if err != nil {
		return err
	}
	for _, c := range cases {
		if err := scenario.CheckBroker(c, e.Embedded != nil); err != nil {
			return err
		}
	}
	var targets []fleet.Target
	for _, fp := range fillsOf(plan) {
		targets = append(targets, fleet.Target{Topic: fp.topic, AppID: fp.appID, StoreName: plan.StoreName})
	}
	if err := e.checkApplications(ctx, cases, targets); err != nil {
		return err
	}
	if e.Agents != nil {
		return e.checkAgentPlan(plan)
	}
	if len(plan.Placement) > 0 {
		e.Logf("run: the profile's placement block is for instances on agents (--agents); this run starts every instance here")
	}
	return e.checkKafkaStreamsEngine(ctx, cases)
}

// planRun is a profile run under way (Env.Run): what each of its fills
// needs to be made and restored.
type planRun struct {
	env     *Env
	plan    *profiles.Plan
	opts    RunOptions
	repeats int
	out     *resultsFile
	// stateRoot is the run's state directory; each fill's stores go in a
	// directory of their own under it.
	stateRoot string
}

// onFill ensures fill fp, records it in the results (saved, still in
// progress) and runs cases on it, each case × repeat in its own state
// directory, with the limits measured first when the plan asks for them.
// It returns the measurements that failed; an error means the run stopped
// (and was saved as such).
func (pr planRun) onFill(ctx context.Context, fp fillPlan, cases []config.Case) ([]string, error) {
	e, plan, out := pr.env, pr.plan, pr.out
	fill, err := e.EnsureFill(ctx,
		FillRequest{Topic: fp.topic, Spec: fp.spec, Compression: plan.Compression, Refill: pr.opts.Refill, TopicConfigs: heldFromCreation(plan.HoldCleaner)})
	if err != nil {
		_, err = out.fail(fmt.Errorf("fill: %w", err))
		return nil, err
	}
	fr := fill.ToResults()
	if out.res.Fill == nil {
		out.res.Fill = fr
	}
	if plan.Fills() > 1 {
		out.res.Fills = append(out.res.Fills, fr)
	}
	if plan.HoldCleaner {
		release, err := e.holdCleaner(ctx, fp.topic, fr)
		if err != nil {
			_, err = out.fail(errNoHold(err))
			return nil, err
		}
		defer release()
	}
	if err := out.save(errInProgress); err != nil {
		return nil, err
	}
	dir := filepath.Join(pr.stateRoot, fp.label)
	r := &caseRunner{
		env: e, out: out, repeats: pr.repeats, ready: plan.Ready, keepState: pr.opts.KeepState, after: pr.opts.AfterRestore,
		interleave: plan.Interleave, size: fp.size, kind: fp.kind, shape: fp.shape,
		target:  fill.target(fp.appID, plan.StoreName),
		changer: e.NewChanger(fill),
		stateDir: func(c config.Case, rep int) string {
			return filepath.Join(dir, fmt.Sprintf("%s-%d", c.Name, rep))
		},
	}
	r.changer.held = plan.HoldCleaner
	if plan.Limits {
		r.limits = newLimitMeter(e, fp.topic, fp.appID, plan.StoreName, filepath.Join(dir, "limits"))
	}
	failures, err := r.runSome(ctx, cases)
	if r.limits != nil {
		r.limits.close()
		r.limits = nil // the twins on Kafka Streams are not measured against the limits
	}
	if err == nil && plan.Confirm > 0 {
		var more []string
		more, err = r.confirm(ctx, cases, plan.Confirm)
		failures = append(failures, more...)
	}
	return failures, err
}

// everySizeCases are the cases whose scenario runs at every size of a size
// sweep (config.ScenarioDef.EverySize: the cold restores, which the fit
// needs); the other scenarios run once, at the first size.
func everySizeCases(cases []config.Case) []config.Case {
	var out []config.Case
	for _, c := range cases {
		if d, ok := config.ScenarioDefOf(c.Scenario); ok && d.EverySize {
			out = append(out, c)
		}
	}
	return out
}

// fillPlan is one fill a run restores: the plan's, or one size or store
// kind of a sweep.
type fillPlan struct {
	label, appID, topic string
	// size and kind are the sweep's fill: its size label, its store kind
	// (either empty outside that sweep), its records' Step.Size and
	// Step.StoreKind.
	size string
	kind config.StoreKind
	// shape is a shape sweep's fill's name, its records' Step.Shape;
	// empty outside one.
	shape string
	// first says it is a size sweep's first size (or no size sweep's):
	// every case runs there, only everySizeCases at the other sizes.
	first bool
	spec  loadgen.Spec
}

// fillsOf lists a plan's fills: its one fill, or one per size or store
// kind of its sweep (per kind and size, kinds first, when it sweeps both),
// each on its own application id (and so its own changelog topic), the
// size or kind appended: restorebench-256MB-balances-changelog,
// restorebench-window-balances-changelog,
// restorebench-window-256MB-balances-changelog; or one per shape of a
// shape sweep, its name appended likewise: restorebench-v8-balances-changelog.
func fillsOf(plan *profiles.Plan) []fillPlan {
	if len(plan.Shapes) > 0 {
		var out []fillPlan
		for _, sh := range plan.Shapes {
			appID := plan.AppID + "-" + sh.Name
			out = append(out, fillPlan{label: sh.Name, appID: appID, topic: config.ChangelogTopic(appID, plan.StoreName),
				shape: sh.Name, first: true, spec: sh.Spec})
		}
		return out
	}
	if len(plan.KindSpecs) == 0 && len(plan.Sizes) == 0 {
		return []fillPlan{{appID: plan.AppID, topic: plan.Topic, first: true, spec: plan.Spec}}
	}
	var out []fillPlan
	for _, kf := range kindFills(plan) {
		if len(plan.Sizes) == 0 {
			out = append(out, kf)
			continue
		}
		for i, size := range plan.Sizes {
			label := config.Size(size).String()
			f := fillPlan{label: label, size: label, kind: kf.kind, first: i == 0, spec: kf.spec}
			if kf.kind != "" {
				f.label = kf.label + "-" + label
			}
			f.appID = plan.AppID + "-" + f.label
			f.spec.TargetBytes, f.spec.Records = size, 0
			f.topic = config.ChangelogTopic(f.appID, plan.StoreName)
			if kf.kind == "" && plan.Topic != config.ChangelogTopic(plan.AppID, plan.StoreName) {
				f.topic = plan.Topic + "-" + label
			}
			out = append(out, f)
		}
	}
	return out
}

// kindFills are a store-kind sweep's fills, one per kind, or the plan's
// one fill (no kind) outside one.
func kindFills(plan *profiles.Plan) []fillPlan {
	if len(plan.KindSpecs) == 0 {
		return []fillPlan{{first: true, spec: plan.Spec}}
	}
	var out []fillPlan
	for _, spec := range plan.KindSpecs {
		label := string(spec.StoreKind.Of())
		appID := plan.AppID + "-" + label
		out = append(out, fillPlan{label: label, appID: appID, topic: config.ChangelogTopic(appID, plan.StoreName),
			kind: spec.StoreKind.Of(), first: true, spec: spec})
	}
	return out
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
	// Partitions, when set, are the only partitions of Topic restored
	// (restore --partitions), each at its full size and verified against
	// an independent read of that partition alone; distinct, each one of
	// Topic's. Nil (default): every partition.
	Partitions []int32
	// Sample, with Partitions, is what several restores of samples of
	// Topic share (plan --measure): the partitions' independent reads and
	// the kafka-streams engine's copy, which its owner deletes
	// (SampleSource.Close). Nil (default): the restore reads and copies
	// for itself, and deletes its copy when it ends.
	Sample *SampleSource
}

// RestoreCaseName is the case name of RestoreTopic's restores.
const RestoreCaseName = "restore"

// RestoreTopic restores an existing topic, any topic, on the case's engine:
// one the tool filled is verified against its manifest; any other is
// restored and counted but reported as not verified. results.json is
// written to OutDir. A sample of partitions on the kafka-streams engine is
// restored from restorebench's copy of them (sample_copy.go), deleted
// however the run ends.
func (e *Env) RestoreTopic(ctx context.Context, o RestoreTopicOptions) (*runs.Results, error) {
	if o.Repeats <= 0 {
		o.Repeats = 1
	}
	if o.Repeats > profiles.MaxRepeats {
		return nil, fmt.Errorf("repeats: %d is over %d", o.Repeats, profiles.MaxRepeats)
	}
	if o.RunID == "" {
		o.RunID = NewRunID("restore")
	}
	o.Case.Name = RestoreCaseName
	if err := e.checkApplications(ctx, []config.Case{o.Case}, []fleet.Target{{Topic: o.Topic, AppID: o.AppID, StoreName: o.StoreName}}); err != nil {
		return nil, err
	}
	if err := e.checkKafkaStreamsEngine(ctx, []config.Case{o.Case}); err != nil {
		return nil, err
	}
	appDir, err := e.claimRestoreState(o.AppID, o.Force)
	if err != nil {
		return nil, err
	}
	defer appDir.Release()
	offsets, err := e.Offsets(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	if err := checkSample(o, offsets); err != nil {
		return nil, err
	}
	manifest, err := loadgen.LoadManifest(loadgen.ManifestPath(e.Opts.DataDir, e.ClusterID, o.Topic))
	if err != nil {
		return nil, fmt.Errorf("%w; refill the topic (restorebench fill ... --refill) or delete the file to restore it unverified", err)
	}
	out, err := e.startResults(o.OutDir, o.RunID)
	if err != nil {
		return nil, err
	}
	target := fleet.Target{Topic: o.Topic, AppID: o.AppID, StoreName: o.StoreName, Partitions: o.Partitions}
	why := "it was not filled by restorebench here (no fill manifest)"
	if o.Partitions != nil {
		// A sample is verified against the read of its partitions alone,
		// whether or not restorebench filled the topic.
		verb := "are"
		if len(o.Partitions) == 1 {
			verb = "is"
		}
		manifest, why = nil, fmt.Sprintf("only %s of its %d %s restored (--partitions)", capacity.NamePartitions(o.Partitions), len(offsets.End), verb)
	}
	if manifest != nil {
		spec, d, err := currentContents(manifest)
		if err != nil {
			return nil, fmt.Errorf("fill manifest of %s: %w", o.Topic, err)
		}
		if why, err = e.holdsFill(ctx, o.Topic, spec, d, offsets); err != nil {
			return nil, err
		}
		if why == "" {
			fill := FillOutcome{Manifest: manifest, Derived: d, Reused: true}
			out.res.Fill = fill.ToResults()
			target = fill.target(o.AppID, o.StoreName)
			target.Topic = o.Topic
		} else {
			why = "it no longer holds the fill its manifest names: " + why
		}
	}
	src := o.Sample
	if o.Partitions != nil && src == nil {
		// Its copy, if any, deleted however the run ends: returned,
		// failed or interrupted.
		src = e.NewSampleSource(o.Topic)
		defer src.Close()
	}
	if src != nil {
		if err := src.checkSource(e, o); err != nil {
			return nil, err
		}
	}
	var read *topicshape.TopicState
	if why != "" {
		out.res.Fill = &runs.Fill{Topic: o.Topic, Offsets: toPartitionOffsets(offsets.Only(o.Partitions))}
		if err := e.windowRetention(ctx, &o); err != nil {
			return nil, err
		}
		if read, err = e.readIndependently(ctx, o, &target, out.res.Fill, why, offsets, src); err != nil {
			return nil, err
		}
	}
	if e.Agents == nil {
		if err := stateFits(target, e.Opts.StateDir); err != nil {
			return nil, err
		}
	}
	if onKafkaStreamsSample(o) {
		if err := src.arrangeCopy(ctx, o, &target, offsets, read); err != nil {
			return nil, err
		}
	}
	r := caseRunner{
		env: e, out: out, repeats: o.Repeats, ready: o.Ready, target: target,
		stateDir: func(config.Case, int) string { return e.Opts.StateDir },
		// Only the last repeat's stores can be kept: each repeat starts cold.
		keepStateOf: func(rep int) bool { return o.KeepState && rep == o.Repeats },
	}
	return r.run(ctx, []config.Case{o.Case})
}

// checkSample refuses a sample of partitions (RestoreTopicOptions.Partitions)
// that is empty, names one twice or names one the topic lacks, naming
// them and the topic's partition count, before anything is written.
func checkSample(o RestoreTopicOptions, offsets cluster.TopicOffsets) error {
	if o.Partitions == nil {
		return nil
	}
	if len(o.Partitions) == 0 {
		return errors.New("--partitions: no partition named; name one or more, e.g. --partitions 3,17")
	}
	seen := map[int32]bool{}
	var missing []int32
	for _, p := range o.Partitions {
		if seen[p] {
			return fmt.Errorf("--partitions: partition %d is named twice", p)
		}
		seen[p] = true
		if _, ok := offsets.End[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--partitions: topic %s has no partition %s: it has %d partitions (0..%d)",
			o.Topic, capacity.FormatPartitions(missing), len(offsets.End), len(offsets.End)-1)
	}
	return nil
}

// readIndependently sets target's expected state, for a topic restorebench
// did not fill (why says so), from an independent read of the topic: a
// consumer of its own reads every record to the topic's end offsets, as
// the case's restore consumer does (read_committed under exactly_once_v2),
// and folds each key's last value into the digest the engines report, so
// the restore is verified like a fill's (runs.Fill.ExpectedFrom says so).
// A topic with more live keys than the read keeps is restored counted,
// not verified, saying so (the read returned is then nil).
func (e *Env) readIndependently(ctx context.Context, o RestoreTopicOptions, target *fleet.Target, fill *runs.Fill,
	why string, offsets cluster.TopicOffsets, src *SampleSource) (*topicshape.TopicState, error) {
	if kind := o.Case.StoreKind; !config.RestoresForeign(kind) {
		return nil, fmt.Errorf("store kind %s: topic %s: %s; such a topic is restored, and verified against an independent read, "+
			"as a %s store's changelog (--store-kind)", kind, o.Topic, why, config.ForeignKinds())
	}
	opts := IndependentRead(o.Case)
	var st *topicshape.TopicState
	if src != nil {
		var err error
		if st, err = src.read(ctx, o.Partitions, offsets, opts, why); err != nil || st == nil {
			return nil, err
		}
	} else {
		e.Logf("restore: %s: %s; reading it independently to verify the restore against", o.Topic, why)
		whole, err := topicshape.State(ctx, e.Cluster, o.Topic, opts)
		if errors.Is(err, topicshape.ErrTooManyKeys) {
			e.Logf("restore: %s will be counted, not verified: %v", o.Topic, err)
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the independent read of %s, to verify its restore against: %w", o.Topic, err)
		}
		st = &whole
	}
	var keys int64
	for _, p := range st.Partitions {
		keys += p.Keys
	}
	took := fmt.Sprintf("in %.1fs", st.Seconds)
	if src != nil {
		took += " of reading, over this sample's restores"
	}
	e.Logf("restore: %s: read %d records (%d without a key, skipped as Kafka Streams does) to %d live keys %s: "+
		"the restore is verified against them", o.Topic, st.Records, st.NullKeys, keys, took)
	fleet.KnowReads(e.Cluster.Brokers, o.Topic, o.Case.IsolationLevel(), st.Restored)
	target.Expected, target.Ends = st.Partitions, st.Ends
	target.TopicEntries = func(ctx context.Context, partition int32) (map[string]uint64, error) {
		return topicshape.Entries(ctx, e.Cluster, o.Topic, partition, st.Ends[partition], opts)
	}
	fill.Expected, fill.ExpectedFrom = st.Partitions, runs.ExpectedFromIndependentRead
	fill.HotRecords = &st.HotRecords
	return st, nil
}

// IndependentRead is how a topic restorebench did not fill is read to
// verify a restore of case c against: with c's isolation level, each value
// behind its timestamp for a timestamped store, and as the changelog keys
// c's store kind declares (config.StoreKindDef.ForeignRead): a window (or
// session) store's of c's retention for a window (or session) store.
func IndependentRead(c config.Case) topicshape.StateOptions {
	o := topicshape.StateOptions{ReadCommitted: c.IsolationLevel() == "read_committed", TimestampedValue: c.StoreKind.TimestampedValue()}
	switch config.ForeignReadOf(c.StoreKind).Keys {
	case config.KeysWindow:
		o.WindowRetentionMs = c.Retention.D().Milliseconds()
	case config.KeysSession:
		o.SessionRetentionMs = c.Retention.D().Milliseconds()
	}
	return o
}

// windowRetention sets the retention of a window or session store restored
// from a topic restorebench did not fill, when the case names none: Kafka
// Streams made its changelog a day longer-lived than the store
// (topicshape.WindowRetention; windowstore.changelog.additional.retention.ms
// serves session stores too). Without it the store would keep, and the
// independent read expect, another set of windows.
func (e *Env) windowRetention(ctx context.Context, o *RestoreTopicOptions) error {
	if !o.Case.StoreKind.Segmented() || o.Case.Retention > 0 {
		return nil
	}
	ret, err := topicshape.WindowRetention(ctx, e.Cluster, o.Topic)
	if err != nil {
		return fmt.Errorf("a %s store's retention, restoring %s: %w; give the store's retention (restorebench restore --retention: what the "+
			"application's Materialized.withRetention, or its window size (a session store's inactivity gap) plus grace, says)", o.Case.StoreKind, o.Topic, err)
	}
	o.Case.Retention = config.Duration(ret)
	e.Logf("restore: %s: a %s store of %s retention (the topic's retention.ms minus %s, as Kafka Streams made it)",
		o.Topic, o.Case.StoreKind, ret, topicshape.WindowChangelogExtraRetention)
	return nil
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

// finish saves the run's results, complete, with the failures as its error.
func (f *resultsFile) finish(failures []string) (*runs.Results, error) {
	var runErr error
	if len(failures) > 0 {
		runErr = fmt.Errorf("%d restore(s) failed: %s", len(failures), strings.Join(failures, "; "))
		f.res.Failed = len(failures)
	}
	if err := f.save(runErr); err != nil {
		return f.res, errors.Join(runErr, err)
	}
	return f.res, runErr
}

// caseRunner runs cases × repeats with their scenarios, recording each.
type caseRunner struct {
	env         *Env
	out         *resultsFile
	target      fleet.Target
	repeats     int
	ready       bool
	keepState   bool
	keepStateOf func(rep int) bool // overrides keepState when set
	stateDir    func(c config.Case, rep int) string
	limits      *limitMeter
	after       func(runs.Restore)
	// interleave runs repeat 1 of every case, then repeat 2 in reverse
	// order, ... (ABBA) instead of all repeats of one case first.
	interleave bool
	// changer lets scenarios change the filled topic (nil for a topic
	// restorebench did not fill: scenarios that need changes refuse it).
	changer *Changer
	// size and kind are a sweep's fill, its size ("256MB") and its store
	// kind ("window"), either empty outside that sweep, which every
	// record's step carries (and its name: "warm@256MB/cold",
	// "cold@window", "cold@256MB@window").
	size string
	kind config.StoreKind
	// shape is a shape sweep's fill's name, which every record's step
	// carries ("cold@v8"); empty outside one.
	shape string
}

// job is one case × repeat of a run.
type job struct {
	c   config.Case
	rep int
}

// schedule orders the run's jobs: case by case, or with interleave repeat
// by repeat, every other repeat in reverse case order, so compared cases
// alternate and none always runs right after the same other one.
func (r *caseRunner) schedule(cases []config.Case) []job {
	var jobs []job
	if !r.interleave {
		for _, c := range cases {
			for rep := 1; rep <= r.repeats; rep++ {
				jobs = append(jobs, job{c, rep})
			}
		}
		return jobs
	}
	for rep := 1; rep <= r.repeats; rep++ {
		for i := range cases {
			if rep%2 == 0 {
				i = len(cases) - 1 - i
			}
			jobs = append(jobs, job{cases[i], rep})
		}
	}
	return jobs
}

func (r *caseRunner) run(ctx context.Context, cases []config.Case) (*runs.Results, error) {
	failures, err := r.runSome(ctx, cases)
	if err != nil {
		return r.out.res, err
	}
	return r.out.finish(failures)
}

// runSome runs the cases × repeats and returns the measurements that
// failed; an error means the run stopped (and was saved as such).
func (r *caseRunner) runSome(ctx context.Context, cases []config.Case) ([]string, error) {
	e := r.env
	var failures []string
	fail := func(err error) ([]string, error) {
		_, err = r.out.fail(err)
		return failures, err
	}
	scenarios := map[string]scenario.Scenario{}
	for _, c := range cases {
		sc, err := scenario.For(c)
		if err != nil {
			return fail(err)
		}
		scenarios[c.Name] = sc
	}
	limitsOf := map[string]*runs.Limits{}
	for _, j := range r.schedule(cases) {
		c, rep, sc := j.c, j.rep, scenarios[j.c.Name]
		if err := ctx.Err(); err != nil {
			return fail(fmt.Errorf("interrupted before case %s #%d: %w", c.Name, rep, err))
		}
		limits := limitsOf[c.Name]
		if r.limits != nil && limits == nil {
			var err error
			if limits, err = r.limits.forCase(ctx, c); err != nil {
				return fail(fmt.Errorf("case %s: limits: %w", c.Name, err))
			}
			limitsOf[c.Name] = limits
		}
		e.Logf("restore: case %s #%d (%s)", c.Name, rep, capacity.Describe(c))
		if e.Opts.Watch != nil {
			e.Opts.Watch.Case(c.Name, string(c.Scenario), rep)
		}
		recs, err := sc.Run(ctx, e.scenarioEnvOwned(), r.target, r.request(c, rep, limits))
		if r.size != "" || r.kind != "" {
			for i := range recs {
				recs[i].SetFill(r.size, r.kind)
			}
		}
		if r.shape != "" {
			for i := range recs {
				recs[i].SetShape(r.shape)
			}
		}
		if ctx.Err() != nil {
			// An interrupted restore is not a measurement: keep what finished.
			r.out.res.Restores = append(r.out.res.Restores, finished(recs)...)
			return fail(fmt.Errorf("interrupted during case %s #%d: %w", c.Name, rep, ctx.Err()))
		}
		failed := failedRecord(recs, err)
		r.out.res.Restores = append(r.out.res.Restores, recs...)
		for i, rec := range recs {
			var recErr error
			if i == failed {
				recErr = err
			}
			if f := r.logRecord(rec, recErr); f != "" {
				failures = append(failures, f)
			}
			if r.after != nil {
				r.after(rec)
			}
		}
		if err != nil && failed < 0 {
			// The step that failed left no record (a write between two
			// measured steps, say): the case failed after what it finished.
			e.Logf("restore: case %s #%d FAILED after %d finished measurement(s): %v", c.Name, rep, len(recs), err)
			failures = append(failures, fmt.Sprintf("%s #%d failed: %v", c.Name, rep, err))
		}
		if errors.Is(err, agent.ErrAgentLost) {
			// Every later case would need the agent too.
			return fail(fmt.Errorf("case %s #%d: %w; the run stops, keeping the %d finished measurement(s)", c.Name, rep, err, len(finished(r.out.res.Restores))))
		}
		if err := r.out.save(errInProgress); err != nil {
			return failures, err
		}
	}
	return failures, nil
}

// request is what the scenario of case c's repeat rep is asked to do:
// where its state goes, whether it is kept, and the fill it may change.
func (r *caseRunner) request(c config.Case, rep int, limits *runs.Limits) fleet.Request {
	keep := r.keepState
	if r.keepStateOf != nil {
		keep = r.keepStateOf(rep)
	}
	req := fleet.Request{Case: c, Repeat: rep, StateDir: r.stateDir(c, rep), KeepState: keep, Ready: r.ready, Limits: limits}
	if r.changer != nil {
		req.Changer = r.changer
		spec := r.changer.fill.Manifest.Spec
		req.Spec = &spec
	}
	return req
}

// checkKafkaStreamsEngine refuses, before any fill, a plan with a case on
// the kafka-streams engine when no JVM is found or the driver for a case's
// Kafka Streams version is not built (and cannot be: ksdriver.EnsureLib
// builds each version the plan names, once, when restorebench runs in its
// repository): otherwise the run would fail only when it reached that case,
// maybe after many minutes of filling and restoring.
func (e *Env) checkKafkaStreamsEngine(ctx context.Context, cases []config.Case) error {
	checked := map[string]bool{}
	for _, c := range cases {
		if c.Engine != config.EngineKafkaStreams || checked[c.KafkaStreamsVersion] {
			continue
		}
		if len(checked) == 0 {
			if _, err := ksdriver.FindJava(); err != nil {
				return fmt.Errorf("case %s runs on the kafka-streams engine: %w", c.Name, err)
			}
		}
		checked[c.KafkaStreamsVersion] = true
		if _, err := ksdriver.EnsureLib(ctx, c.KafkaStreamsVersion, e.Logf); err != nil {
			return fmt.Errorf("case %s runs on the kafka-streams engine, Kafka Streams %s: %w", c.Name, c.KafkaStreamsVersion, err)
		}
	}
	return nil
}

// logRecord says how one measurement went and returns, for a failed one,
// the line the run's error lists.
func (r *caseRunner) logRecord(rec runs.Restore, err error) string {
	e, name := r.env, fmt.Sprintf("%s #%d", rec.Case, rec.Repeat)
	headline, secs, measuredByHeadline := rec.Headline()
	switch {
	case errors.Is(err, fleet.ErrUnverified):
		e.Logf("restore: case %s VERIFICATION FAILED: %s", name, rec.Verification.Problem)
		return name + " did not verify"
	case err != nil:
		e.Logf("restore: case %s FAILED: %v", name, err)
		return fmt.Sprintf("%s failed: %v", name, err)
	case rec.Verified && rec.ScaleOut != nil:
		e.Logf("restore: case %s verified: every task's store after the scale-out (%d records restored or applied)", name, rec.Records)
	case rec.Verified && rec.Rolling != nil:
		e.Logf("restore: case %s verified: every task's store after %d restarts (%d records restored)", name, len(rec.Rolling.Restarts), rec.Records)
	case measuredByHeadline:
		// Not a restore: its scenario's own figure, never a restore time.
		verdict := "verified"
		if !rec.Verified {
			verdict = fmt.Sprintf("NOT verified (%s)", rec.Verification.Problem)
		}
		e.Logf("restore: case %s %s: %s %.2f (%d records restored)", name, verdict, headline.Label, secs, rec.Records)
	case rec.Verified && rec.Phase != nil:
		e.Logf("restore: case %s verified: %d records in %.2fs (%.1f MB/s, %.0f records/s)",
			name, rec.Records, rec.Phase.Seconds, rec.Phase.MBPerSec, rec.Phase.RecordsPerSec)
	case rec.Verified:
		e.Logf("restore: case %s verified: %d records", name, rec.Records)
	case rec.Phase != nil:
		e.Logf("restore: case %s restored, NOT verified (%s): %d records in %.2fs",
			name, rec.Verification.Problem, rec.Records, rec.Phase.Seconds)
	default:
		e.Logf("restore: case %s restored, NOT verified (%s): %d records", name, rec.Verification.Problem, rec.Records)
	}
	return ""
}

// A scenario returns every measurement it finished (each verified, or
// with the verification's failure in its Error) and, when a step failed,
// that step's error, with the step's partial record last (its Error set)
// if it made one: a step can fail without a record of its own, as the
// write before a warm restart does, and the measurements before it still
// stand.

// isFinished says whether a record is a finished measurement: it was
// verified (or counted, on a topic restorebench did not fill) and carries
// no error.
func isFinished(rec runs.Restore) bool {
	return rec.Error == "" && rec.Verification.Mode != ""
}

// finished are the records of an interrupted request that were complete
// before the interruption: the finished measurements, not the step the
// interruption cut (or anything it left unverified).
func finished(recs []runs.Restore) []runs.Restore {
	var out []runs.Restore
	for _, rec := range recs {
		if isFinished(rec) {
			out = append(out, rec)
		}
	}
	return out
}

// failedRecord is the index of the record err belongs to, -1 for none:
// the last record, when it is not a finished measurement (the failed
// step's own); the error then is in its Error too.
func failedRecord(recs []runs.Restore, err error) int {
	if err == nil || len(recs) == 0 {
		return -1
	}
	last := &recs[len(recs)-1]
	if isFinished(*last) {
		return -1
	}
	if last.Error == "" {
		last.Error = err.Error()
	}
	return len(recs) - 1
}

// RunCaseAll runs one case once against a fill, with its scenario, in
// stateDir, and returns every record it made (a warm-restart sequence makes
// one per restart).
func (e *Env) RunCaseAll(ctx context.Context, fill FillOutcome, appID, storeName string, c config.Case, stateDir string) ([]runs.Restore, error) {
	sc, err := scenario.For(c)
	if err != nil {
		return nil, err
	}
	return sc.Run(ctx, e.scenarioEnvOwned(), fill.target(appID, storeName), oneRequest(e, fill, c, stateDir))
}

// oneRequest is the request of a case's single run against a fill: its
// changer, and the fill's spec (a window store's instance is built with
// its window size).
func oneRequest(e *Env, fill FillOutcome, c config.Case, stateDir string) fleet.Request {
	spec := fill.Manifest.Spec
	return fleet.Request{Case: c, Repeat: 1, StateDir: stateDir, Changer: e.NewChanger(fill), Spec: &spec}
}

// RunCase runs one case once against a fill, with its scenario, in
// stateDir: the building block of Run, for tests and tools that drive cases
// one at a time.
func (e *Env) RunCase(ctx context.Context, fill FillOutcome, appID, storeName string, c config.Case, stateDir string) (runs.Restore, error) {
	recs, err := e.RunCaseAll(ctx, fill, appID, storeName, c, stateDir)
	if len(recs) == 0 {
		return runs.Restore{}, err
	}
	return recs[len(recs)-1], err
}

// target is what a restore of this fill must produce: the state derived
// from its spec, and the end offsets its writes imply (its records, and a
// transactional fill's aborted records and markers).
func (o FillOutcome) target(appID, storeName string) fleet.Target {
	ends := map[int32]int64{}
	for p, end := range o.Derived.Log.Ends {
		ends[int32(p)] = end
	}
	return fleet.Target{Topic: o.Manifest.Topic, AppID: appID, StoreName: storeName, Expected: o.Derived.Expected, Ends: ends}
}

// currentContents is what a filled topic holds now by its manifest: the
// fill, plus any changes restorebench's scenarios recorded (appended
// records, a deleted prefix), as a spec and what it derives.
func currentContents(m *loadgen.Manifest) (loadgen.Spec, loadgen.Derived, error) {
	base, err := loadgen.Derive(m.Spec)
	if err != nil || m.Changes == nil {
		return m.Spec, base, err
	}
	spec := loadgen.Extended(m.Spec, base.Totals.Records, m.Changes.Appended)
	d, err := loadgen.DeriveFrom(spec, m.Changes.Starts)
	return spec, d, err
}
