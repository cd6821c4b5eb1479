package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// Bounds of the scale-out's waits besides its timeout.
const (
	// drainTimeout bounds the wait, after the load stops, for the last
	// input records to be processed.
	drainTimeout = 2 * time.Minute
)

// balancedRule says what "balanced" means in a ScaleOutRecord.
const balancedRule = "every instance RUNNING; every task active on exactly one instance and not restoring; " +
	"each instance's active task count floor or ceil of tasks/instances (what the classic assignor's round-robin " +
	"target gives equal instances, and the streams protocol's sticky assignor too); no standbys beyond " +
	"num.standby.replicas (no warmups left); held for the settle time"

// ScaleOutKafkaStreams is the scale-out scenario on the kafka-streams
// engine. Before instances of the application (the target's
// application.id, the kv topology, fresh state directories) restore the
// filled changelog and settle into a balanced assignment; a write load
// starts on the input topic; then After-Before instances are started (the
// origin, time 0), and restorebench watches every instance's events until
// the assignment is balanced again with every task running and no
// warmups left, held for the settle time. The load then stops, its last
// records are processed, every instance digests its active stores and the
// union is verified against the state the changelog must hold.
//
// Under the classic protocol the Before instances first start with
// acceptable.recovery.lag unbounded (so the assignor places tasks without
// warmups while they restore), stop, and start again with the case's
// settings on the state they restored: the group then starts balanced and
// caught up, as a long-running application is, instead of warming up
// among its own first members (the local broker's
// group.initial.rebalance.delay.ms is 0, so the first member to join gets
// every task).
//
// The record (runs.ScaleOutRecord) holds every task's timeline, the
// warmup lags, rebalances and probing rounds, gaps in processing, and the
// warmup model's prediction from the inputs measured here; with a query
// load, what the lookups of the moved tasks' keys met (scaleout_queries.go).
type ScaleOutKafkaStreams struct{}

func init() {
	register(config.ScenarioScaleOut, config.EngineKafkaStreams, single{ScaleOutKafkaStreams{}})
}

// scaleOut is one scale-out under way.
type scaleOut struct {
	ctx   context.Context
	env   *Env
	t     Target
	req   Request
	st    streamsSettings
	f     *fleet
	input string
	rec   *runs.Restore
	sr    *runs.ScaleOutRecord
	// setupProcs are the processes of the setup, whose restores give the
	// restore rate.
	setupProcs []*proc
	// q is the query load (nil without one) and moves follow each
	// partition's keys from the start (scaleout_queries.go).
	q     *fleetQueries
	moves []*readOutage
}

// Run runs one scale-out and verifies every store at the end.
func (ScaleOutKafkaStreams) Run(ctx context.Context, env *Env, t Target, req Request) (runs.Restore, error) {
	rec := newRecord(t, req, req.step(runs.StepScaleOut))
	fail := func(err error) (runs.Restore, error) {
		err = fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
		rec.Error = err.Error()
		return rec, err
	}
	so := req.Case.ScaleOut
	if req.Changer == nil {
		return fail(errNoChanger)
	}
	st, err := settingsOf(req.Case)
	if err != nil {
		return fail(err)
	}
	s := &scaleOut{ctx: ctx, env: env, t: t, req: req, st: st, rec: &rec}
	s.sr = &runs.ScaleOutRecord{Protocol: st.protocol, Before: so.Before, After: so.After, Threads: st.threads, Standbys: st.standbys,
		MaxWarmupReplicas: st.maxWarmups, AcceptableRecoveryLag: st.acceptable, ProbingIntervalSeconds: st.probing.Seconds(),
		BalancedRule: balancedRule, GapThresholdSeconds: so.GapThreshold.D().Seconds()}
	rec.ScaleOut = s.sr
	if err := s.prepare(); err != nil {
		return fail(err)
	}
	defer s.f.killAll()
	if err := s.run(); err != nil {
		return fail(err) // the instances' directories stay, with their logs
	}
	s.f.killAll()
	s.f.removeStateUnlessKept()
	return rec, nil
}

// prepare checks the target and the broker, creates the input topic,
// clears the group and builds the fleet.
func (s *scaleOut) prepare() error {
	var offsets offsetsAt
	var err error
	s.f, s.input, offsets, err = openFleet(s.ctx, s.env, s.t, s.req)
	s.rec.Partitions, s.sr.Tasks = len(offsets.End), len(offsets.End)
	if err != nil {
		return err
	}
	s.rec.KafkaStreams = &runs.KafkaStreamsRun{Properties: s.f.base, Instances: s.req.Case.ScaleOut.After, BytesFrom: "changelog"}
	s.f.ks = s.rec.KafkaStreams
	withAPI(s.f, s.req)
	if s.st.protocol == warmup.ProtocolStreams {
		s.sr.Notes = append(s.sr.Notes, streamsProtocolNotes(s.st)...)
	}
	return s.f.resetGroup(s.ctx, s.input, nil)
}

// streamsProtocolNotes say what the client-side settings do under the
// streams protocol in Kafka Streams 4.4.
func streamsProtocolNotes(st streamsSettings) []string {
	notes := []string{"group.protocol=streams (KIP-1071): the broker assigns tasks with its sticky assignor; Kafka " +
		"Streams 4.4 ignores the client's max.warmup.replicas, acceptable.recovery.lag and " +
		"probing.rebalance.interval.ms and the 4.4 broker creates no warmups (AssignmentRefiner.refine " +
		"returns the target unchanged): tasks move at once and their new owners restore them from scratch"}
	if st.standbys > 0 {
		notes = append(notes, "num.standby.replicas is ignored by the client under the streams protocol: standbys are the "+
			"group config streams.num.standby.replicas (kafka-configs.sh --entity-type groups)")
	}
	return notes
}

// ids names instances from..to-1: i<k>.
func ids(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("i%d", i))
	}
	return out
}

func noExtra(string) map[string]string { return nil }

// run is the scenario after preparation.
func (s *scaleOut) run() error {
	so := s.req.Case.ScaleOut
	setup := time.Now()
	if err := s.setup(ids(0, so.Before)); err != nil {
		return fmt.Errorf("setup (%d instances): %w", so.Before, err)
	}
	s.sr.SetupSeconds = time.Since(setup).Seconds()
	s.sr.RestoreRate = restoreRate(s.setupProcs, s.t.StoreName, s.st.threads)
	s.env.Logf("scaleout: case %s #%d: %d instances balanced and running after %.1fs (restore %.0f offsets/s per thread); load %.0f records/s",
		s.req.Case.Name, s.req.Repeat, so.Before, s.sr.SetupSeconds, s.sr.RestoreRate, so.Rate)
	spec := s.req.Changer.Spec()
	ld := startLoad(s.ctx, s.req.Changer, "scaleout", s.input, so.Rate)
	defer ld.finish()
	var err error
	if s.q, err = startFleetQueries(s.req, s.f, spec, ld); err != nil {
		return err
	}
	var origin, endNs int64
	var atOrigin offsetsAt
	watchErr := s.f.wait(s.ctx, so.Lead.D())
	if watchErr == nil {
		origin = ksdriver.NowMonoNs()
		s.followMoves()
		if atOrigin, watchErr = s.env.Offsets(s.ctx, s.t.Topic); watchErr == nil {
			endNs, watchErr = s.scale(ids(so.Before, so.After))
		}
	}
	s.rec.Queries = s.q.finish(s.ctx, endNs, watchErr != nil)
	if _, err := ld.finish(); err != nil {
		watchErr = errors.Join(watchErr, fmt.Errorf("write load: %w", err))
	}
	s.sr.Load = ld.record()
	// Verify (or at least let the load's records be processed, so the
	// changelog holds what the manifest says was appended) whatever happened.
	verifyErr := s.verify()
	s.f.stopAll(s.ctx)
	if origin != 0 {
		s.record(origin, endNs, ld, atOrigin)
		s.movedReads()
	}
	s.f.resetAfterRun(s.ctx, "scaleout", s.input, nil)
	s.logResult()
	return errors.Join(watchErr, verifyErr, wrongReads(s.rec, s.req))
}

// setup brings the Before instances up, restored, balanced and running.
func (s *scaleOut) setup(names []string) error {
	timeout := s.req.Case.ScaleOut.Timeout.D()
	if s.st.protocol == warmup.ProtocolClassic {
		seed := func(string) map[string]string { return map[string]string{propAcceptableLag: unboundedLag} }
		if err := s.startBalanced(names, seed, timeout); err != nil {
			return fmt.Errorf("first start (acceptable.recovery.lag unbounded): %w", err)
		}
		s.f.stopAll(s.ctx)
	}
	return s.startBalanced(names, noExtra, timeout)
}

// startBalanced starts instances and waits until the group is balanced.
func (s *scaleOut) startBalanced(names []string, extra func(string) map[string]string, timeout time.Duration) error {
	procs, err := s.f.startAll(s.ctx, names, extra)
	s.setupProcs = append(s.setupProcs, nonNil(procs)...)
	if err != nil {
		return err
	}
	_, err = s.f.watchUntil(s.ctx, time.Now().Add(timeout), time.Second, s.balanced)
	return err
}

func nonNil(ps []*proc) []*proc {
	var out []*proc
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// balanced is the scale-out's end condition (balancedRule).
func (s *scaleOut) balanced() (bool, string) {
	r := s.f.readinessNow(s.sr.Tasks, s.st.standbys)
	return r.balanced, r.why
}

// scale starts the new instances and waits for the balanced end; it
// returns when that state began (0 if it never did).
func (s *scaleOut) scale(names []string) (int64, error) {
	so := s.req.Case.ScaleOut
	s.env.Logf("scaleout: case %s #%d: starting %d more instances; waiting for a balanced assignment (timeout %s)",
		s.req.Case.Name, s.req.Repeat, len(names), so.Timeout)
	procs, err := s.f.startAll(s.ctx, names, noExtra)
	for _, p := range nonNil(procs) {
		p.newcomer = true
	}
	if err != nil {
		return 0, err
	}
	end, err := s.f.watchUntil(s.ctx, time.Now().Add(so.Timeout.D()), so.Settle.D(), s.balanced)
	if err != nil {
		return 0, fmt.Errorf("after starting %d instances: %w", len(names), err)
	}
	s.sr.Balanced = true
	return end, nil
}

// verify waits for the load's last records to be processed, then digests
// every instance's active stores and checks them against what the
// changelog must hold.
func (s *scaleOut) verify() error {
	if err := s.f.awaitProcessed(s.ctx, s.input, drainTimeout); err != nil {
		return err
	}
	return s.f.verifyStores(s.ctx, s.rec)
}

// record builds the timeline and fills in the record and the prediction.
func (s *scaleOut) record(origin, endNs int64, ld *load, atOrigin offsetsAt) {
	so, sr := s.req.Case.ScaleOut, s.sr
	end := ld.endNs
	spec := timelineSpec{origin: origin, end: end, store: s.t.StoreName, input: s.input, partitions: sr.Tasks, standbys: s.st.standbys,
		acceptable: s.st.acceptable, gap: so.GapThreshold.D(), offsets: sizes(atOrigin)}
	if so.Rate > 0 {
		spec.gapFrom, spec.gapTo, spec.produced = origin, end, inputProduced(s.ctx, s.env, s.input)
	}
	insts := s.f.instanceEvents()
	tl := buildTimeline(spec, insts)
	caughtUpAt(spec, tl.tasks, tl.lags)
	sr.TaskTimelines, sr.Lags, sr.Warmups = tl.tasks, tl.lags, tl.warmups
	sr.RestoredRecords, sr.WarmupRecords = tl.restored, tl.applied
	sr.Instances = s.f.processes(origin)
	for _, r := range tl.rebalances {
		sr.RebalanceTimes = append(sr.RebalanceTimes, secsFrom(origin, r))
	}
	sr.Rebalances = len(tl.rebalances)
	if s.st.protocol == warmup.ProtocolClassic {
		for _, r := range probingRounds(tl.rebalances, s.st.probing) {
			sr.ProbingTimes = append(sr.ProbingTimes, secsFrom(origin, r))
		}
		sr.ProbingRounds = len(sr.ProbingTimes)
	}
	for _, t := range tl.tasks {
		if t.From != t.To {
			sr.Moved++
		}
		sr.NotProcessingSeconds += t.NotProcessingSeconds
		sr.MaxNotProcessingSeconds = max(sr.MaxNotProcessingSeconds, t.NotProcessingSeconds)
	}
	if endNs > 0 {
		sr.WarmupAssignmentSeconds = secsFrom(origin, endNs)
	}
	sr.StartupSeconds = startupSeconds(s.f.procs, tl.rebalances, origin)
	s.rec.DurationSeconds, s.rec.TotalSeconds = sr.WarmupAssignmentSeconds, sr.WarmupAssignmentSeconds
	s.rec.Records = tl.restored + tl.applied
	s.rec.RecordsPerSec = runs.PerSec(s.rec.Records, s.rec.DurationSeconds)
	if n := totalOffsets(atOrigin); n > 0 {
		if b, err := changelogBytes(s.ctx, s.env, atOrigin); err == nil {
			sr.BytesPerOffset = float64(b) / float64(n)
		}
	}
	s.predict(insts, tl, atOrigin)
}

// logResult prints the measurement's headline.
func (s *scaleOut) logResult() {
	sr := s.sr
	model := "no prediction"
	if p := sr.Prediction; p != nil {
		model = fmt.Sprintf("model predicts %.1fs (%+.1f%%)", p.TotalSeconds, sr.PredictionErrorPct)
		if im := p.Immediate; im != nil {
			model += fmt.Sprintf(", or %.1fs if follow-up rebalances come at once", im.TotalSeconds)
		}
	}
	s.env.Logf("scaleout: case %s #%d (%s): warmup-assignment %.1fs, balanced %v, %d probing rounds, %d rebalances, %d "+
		"warmups, %d tasks moved, longest not processing %.1fs; %s",
		s.req.Case.Name, s.req.Repeat, sr.Protocol, sr.WarmupAssignmentSeconds, sr.Balanced, sr.ProbingRounds, sr.Rebalances, sr.Warmups, sr.Moved,
		sr.MaxNotProcessingSeconds, model)
}
