package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/queryload"
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
	Register(config.ScenarioScaleOut, config.EngineKafkaStreams, single{ScaleOutKafkaStreams{}})
}

// scaleOut is one scale-out under way.
type scaleOut struct {
	ctx   context.Context
	env   *fleet.Env
	t     fleet.Target
	req   fleet.Request
	st    fleet.StreamsSettings
	f     *fleet.Fleet
	input string
	rec   *runs.Restore
	sr    *runs.ScaleOutRecord
	// setupProcs are the processes of the setup, whose restores give the
	// restore rate.
	setupProcs []*fleet.Proc
	// q is the query load (nil without one) and moves follow each
	// partition's keys from the start (scaleout_queries.go).
	q     *queryload.FleetQueries
	moves []*queryload.ReadOutage
}

// Run runs one scale-out and verifies every store at the end.
func (ScaleOutKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (runs.Restore, error) {
	rec := newRecord(t, req, req.Step(runs.StepScaleOut))
	fail := func(err error) (runs.Restore, error) {
		err = fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
		rec.Error = err.Error()
		return rec, err
	}
	so := req.Case.ScaleOut
	if req.Changer == nil {
		return fail(fleet.ErrNoChanger)
	}
	st, err := fleet.SettingsOf(req.Case)
	if err != nil {
		return fail(err)
	}
	s := &scaleOut{ctx: ctx, env: env, t: t, req: req, st: st, rec: &rec}
	s.sr = &runs.ScaleOutRecord{Protocol: st.Protocol, Before: so.Before, After: so.After, Threads: st.Threads, Standbys: st.Standbys,
		MaxWarmupReplicas: st.MaxWarmups, AcceptableRecoveryLag: st.Acceptable, ProbingIntervalSeconds: st.Probing.Seconds(),
		BalancedRule: balancedRule, GapThresholdSeconds: so.GapThreshold.D().Seconds()}
	rec.ScaleOut = s.sr
	if err := s.prepare(); err != nil {
		return fail(err)
	}
	defer s.f.KillAll()
	if err := s.run(); err != nil {
		return fail(err) // the instances' directories stay, with their logs
	}
	s.f.KillAll()
	s.f.RemoveStateUnlessKept()
	return rec, nil
}

// prepare checks the target and the broker, creates the input topic,
// clears the group and builds the fleet.
func (s *scaleOut) prepare() error {
	var offsets offsetsAt
	var err error
	s.f, s.input, offsets, err = fleet.OpenFleet(s.ctx, s.env, s.t, s.req)
	s.rec.Partitions, s.sr.Tasks = len(offsets.End), len(offsets.End)
	if err != nil {
		return err
	}
	s.rec.KafkaStreams = &runs.KafkaStreamsRun{Properties: s.f.Base, Instances: s.req.Case.ScaleOut.After, BytesFrom: "changelog"}
	s.f.KS = s.rec.KafkaStreams
	queryload.WithAPI(s.f, s.req)
	if s.st.Protocol == warmup.ProtocolStreams {
		s.sr.Notes = append(s.sr.Notes, streamsProtocolNotes(s.st)...)
	}
	return s.f.ResetGroup(s.ctx, s.input, nil)
}

// streamsProtocolNotes say what the client-side settings do under the
// streams protocol in Kafka Streams 4.4.
func streamsProtocolNotes(st fleet.StreamsSettings) []string {
	notes := []string{"group.protocol=streams (KIP-1071): the broker assigns tasks with its sticky assignor; Kafka " +
		"Streams 4.4 ignores the client's max.warmup.replicas, acceptable.recovery.lag and " +
		"probing.rebalance.interval.ms and the 4.4 broker creates no warmups (AssignmentRefiner.refine " +
		"returns the target unchanged): tasks move at once and their new owners restore them from scratch"}
	if st.Standbys > 0 {
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
	s.sr.RestoreRate = restoreRate(s.setupProcs, s.t.StoreName, s.st.Threads)
	s.env.Logf("scaleout: case %s #%d: %d instances balanced and running after %.1fs (restore %.0f offsets/s per thread); load %.0f records/s",
		s.req.Case.Name, s.req.Repeat, so.Before, s.sr.SetupSeconds, s.sr.RestoreRate, so.Rate)
	spec := s.req.Changer.Spec()
	ld := fleet.StartLoad(s.ctx, s.req.Changer, "scaleout", s.input, so.Rate)
	defer ld.Finish()
	var err error
	if s.q, err = queryload.StartFleetQueries(s.req, s.f, spec, ld); err != nil {
		return err
	}
	var origin, endNs int64
	var atOrigin offsetsAt
	watchErr := s.f.Wait(s.ctx, so.Lead.D())
	if watchErr == nil {
		origin = ksdriver.NowMonoNs()
		s.followMoves()
		if atOrigin, watchErr = s.env.Offsets(s.ctx, s.t.Topic); watchErr == nil {
			endNs, watchErr = s.scale(ids(so.Before, so.After))
		}
	}
	s.rec.Queries = s.q.Finish(s.ctx, endNs, watchErr != nil)
	if _, err := ld.Finish(); err != nil {
		watchErr = errors.Join(watchErr, fmt.Errorf("write load: %w", err))
	}
	s.sr.Load = ld.Record()
	// Verify (or at least let the load's records be processed, so the
	// changelog holds what the manifest says was appended) whatever happened.
	verifyErr := s.verify()
	s.f.StopAll(s.ctx)
	if origin != 0 {
		s.record(origin, endNs, ld, atOrigin)
		s.movedReads()
	}
	s.f.ResetAfterRun(s.ctx, "scaleout", s.input, nil)
	s.logResult()
	return errors.Join(watchErr, verifyErr, queryload.WrongReads(s.rec, s.req))
}

// setup brings the Before instances up, restored, balanced and running.
func (s *scaleOut) setup(names []string) error {
	timeout := s.req.Case.ScaleOut.Timeout.D()
	if s.st.Protocol == warmup.ProtocolClassic {
		seed := func(string) map[string]string { return map[string]string{fleet.PropAcceptableLag: fleet.UnboundedLag} }
		if err := s.startBalanced(names, seed, timeout); err != nil {
			return fmt.Errorf("first start (acceptable.recovery.lag unbounded): %w", err)
		}
		s.f.StopAll(s.ctx)
	}
	return s.startBalanced(names, noExtra, timeout)
}

// startBalanced starts instances and waits until the group is balanced.
func (s *scaleOut) startBalanced(names []string, extra func(string) map[string]string, timeout time.Duration) error {
	procs, err := s.f.StartAll(s.ctx, names, extra)
	s.setupProcs = append(s.setupProcs, nonNil(procs)...)
	if err != nil {
		return err
	}
	_, err = s.f.WatchUntil(s.ctx, time.Now().Add(timeout), time.Second, s.balanced)
	return err
}

func nonNil(ps []*fleet.Proc) []*fleet.Proc {
	var out []*fleet.Proc
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// balanced is the scale-out's end condition (balancedRule).
func (s *scaleOut) balanced() (bool, string) {
	r := s.f.ReadinessNow(s.sr.Tasks, s.st.Standbys)
	return r.Balanced, r.Why
}

// scale starts the new instances and waits for the balanced end; it
// returns when that state began (0 if it never did).
func (s *scaleOut) scale(names []string) (int64, error) {
	so := s.req.Case.ScaleOut
	s.env.Logf("scaleout: case %s #%d: starting %d more instances; waiting for a balanced assignment (timeout %s)",
		s.req.Case.Name, s.req.Repeat, len(names), so.Timeout)
	procs, err := s.f.StartAll(s.ctx, names, noExtra)
	for _, p := range nonNil(procs) {
		p.Newcomer = true
	}
	if err != nil {
		return 0, err
	}
	end, err := s.f.WatchUntil(s.ctx, time.Now().Add(so.Timeout.D()), so.Settle.D(), s.balanced)
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
	if err := s.f.AwaitProcessed(s.ctx, s.input, drainTimeout); err != nil {
		return err
	}
	return s.f.VerifyStores(s.ctx, s.rec)
}

// record builds the timeline and fills in the record and the prediction.
func (s *scaleOut) record(origin, endNs int64, ld *fleet.Load, atOrigin offsetsAt) {
	so, sr := s.req.Case.ScaleOut, s.sr
	end := ld.EndNs
	spec := fleet.TimelineSpec{Origin: origin, End: end, Store: s.t.StoreName, Input: s.input, Partitions: sr.Tasks, Standbys: s.st.Standbys,
		Acceptable: s.st.Acceptable, Gap: so.GapThreshold.D(), Offsets: sizes(atOrigin)}
	if so.Rate > 0 {
		spec.GapFrom, spec.GapTo, spec.Produced = origin, end, fleet.InputProduced(s.ctx, s.env, s.input)
	}
	insts := s.f.InstanceEvents()
	tl := fleet.BuildTimeline(spec, insts)
	fleet.CaughtUpAt(spec, tl.Tasks, tl.Lags)
	sr.TaskTimelines, sr.Lags, sr.Warmups = tl.Tasks, tl.Lags, tl.Warmups
	sr.RestoredRecords, sr.WarmupRecords = tl.Restored, tl.Applied
	sr.Instances = s.f.Processes(origin)
	for _, r := range tl.Rebalances {
		sr.RebalanceTimes = append(sr.RebalanceTimes, fleet.SecsFrom(origin, r))
	}
	sr.Rebalances = len(tl.Rebalances)
	if s.st.Protocol == warmup.ProtocolClassic {
		for _, r := range fleet.ProbingRounds(tl.Rebalances, s.st.Probing) {
			sr.ProbingTimes = append(sr.ProbingTimes, fleet.SecsFrom(origin, r))
		}
		sr.ProbingRounds = len(sr.ProbingTimes)
	}
	for _, t := range tl.Tasks {
		if t.From != t.To {
			sr.Moved++
		}
		sr.NotProcessingSeconds += t.NotProcessingSeconds
		sr.MaxNotProcessingSeconds = max(sr.MaxNotProcessingSeconds, t.NotProcessingSeconds)
	}
	if endNs > 0 {
		sr.WarmupAssignmentSeconds = fleet.SecsFrom(origin, endNs)
	}
	sr.StartupSeconds = startupSeconds(s.f.Procs, tl.Rebalances, origin)
	s.rec.Records = tl.Restored + tl.Applied
	if n := totalOffsets(atOrigin); n > 0 {
		if b, err := fleet.ChangelogBytes(s.ctx, s.env, atOrigin); err == nil {
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
