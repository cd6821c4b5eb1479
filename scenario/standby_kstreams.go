package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// Instance ids of the standby scenario on the kafka-streams engine.
const (
	ksActiveID  = "i0"
	ksStandbyID = "i1"
)

// Settings the scenario gives Kafka Streams unless the case names them,
// so the standby instance stays a standby for the whole scenario: with
// acceptable.recovery.lag 0 a client is caught up only with no lag at all,
// which it never has at a rebalance while writes go on, and the hour-long
// probing interval leaves no probing rebalance within the steps. Neither
// changes how a standby applies the changelog.
const (
	standbyAssignorLag   = "0"
	standbyProbingMillis = "3600000"
)

// standbySetupTimeout bounds each wait of the setup: the active's restore,
// then the standby's first restore of the whole changelog.
const standbySetupTimeout = 15 * time.Minute

// StandbyKafkaStreams is the standby scenario on the kafka-streams engine:
// the real client's standby replicas (num.standby.replicas 1, the kv
// topology). Instance i0 starts alone and restores every task as active;
// instance i1 joins and gets a standby of every task (the classic
// assignor keeps the actives on the caught-up client), which restores the
// changelog: the "initial" record. Then the input topic is written at each
// rate (the active processes it and appends to the changelog, which the
// standby follows: a "rate" record each), the highest rate the standby
// sustains is searched for ("max"), and i1 is stopped with its state
// directory kept while writes go on, then started again ("pause": the time
// from its start until every standby's lag is within
// acceptable.recovery.lag). After every step the writes stop, the
// standby applies everything and its stores are digested through
// interactive queries (stale stores) and verified.
//
// Lags are the instance's allLocalStorePartitionLags() at the settings'
// sample interval, summed over its standby tasks; the rate written is the
// changelog's, what the standby had to follow.
type StandbyKafkaStreams struct{}

func init() { Register(config.ScenarioStandby, config.EngineKafkaStreams, StandbyKafkaStreams{}) }

// ksStandby is one standby scenario on the kafka-streams engine under way.
type ksStandby struct {
	ctx   context.Context
	env   *fleet.Env
	t     fleet.Target
	req   fleet.Request
	st    config.StandbySettings
	f     *fleet.Fleet
	input string
	parts int
	// changelogOffsets is the changelog's size when the scenario began.
	changelogOffsets int64
	ks               runs.KafkaStreamsRun
	out              []runs.Restore
}

// Run runs the steps and returns one record per step.
func (StandbyKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	if req.Changer == nil {
		return nil, fleet.ErrNoChanger
	}
	s := &ksStandby{ctx: ctx, env: env, t: t, req: req, st: *req.Case.Standby}
	if err := s.prepare(); err != nil {
		return nil, fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
	}
	defer s.f.KillAll()
	err := standbySequence(s, s.st, env.Logf)
	s.f.StopAll(ctx)
	s.f.ResetAfterRun(ctx, "standby", s.input, nil)
	if err != nil {
		// The instances' directories stay, with their logs.
		return s.out, fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
	}
	s.f.KillAll()
	s.f.RemoveStateUnlessKept()
	return s.out, nil
}

// prepare checks the target and the broker, creates the input topic,
// works out the instances' properties and clears the group.
func (s *ksStandby) prepare() error {
	st, err := fleet.SettingsOf(s.req.Case)
	if err != nil {
		return err
	}
	if st.Protocol != warmup.ProtocolClassic {
		return fmt.Errorf("streams.%s: the standby scenario needs the classic protocol, whose assignor keeps the actives "+
			"on the caught-up instance; under %s Kafka Streams 4.4 moves tasks to the new instance at once", fleet.PropGroupProtocol, st.Protocol)
	}
	if v, ok := s.req.Case.Streams[fleet.PropStandbys]; ok && v != "1" {
		return fmt.Errorf("streams.%s: the standby scenario runs one active and one standby instance: num.standby.replicas "+
			"must be 1 (or unset), not %s", fleet.PropStandbys, v)
	}
	var offsets offsetsAt
	if s.f, s.input, offsets, err = fleet.OpenFleet(s.ctx, s.env, s.t, s.req); err != nil {
		return err
	}
	s.parts, s.changelogOffsets = len(offsets.End), totalOffsets(offsets)
	defaults := map[string]string{
		fleet.PropStandbys:        "1",
		fleet.PropAcceptableLag:   standbyAssignorLag,
		fleet.PropProbingInterval: standbyProbingMillis,
	}
	for k, v := range defaults {
		if _, ok := s.req.Case.Streams[k]; !ok {
			s.f.Base[k] = v
		}
	}
	s.f.Base[ksdriver.PropLagsIntervalMs] = strconv.FormatInt(s.sampleInterval().Milliseconds(), 10)
	s.ks = runs.KafkaStreamsRun{Properties: maps.Clone(s.f.Base), Instances: 2, BytesFrom: "changelog"}
	return s.f.ResetGroup(s.ctx, s.input, nil)
}

// sampleInterval is how often the instances report their lags: the
// settings' sample, at least the driver's shortest interval.
func (s *ksStandby) sampleInterval() time.Duration {
	return config.StandbyLagInterval(config.EngineKafkaStreams, s.st.Sample)
}

// initial starts the active instance, waits for its restore, then starts
// the standby instance and records its first restore of the changelog.
func (s *ksStandby) initial() error {
	s.env.Logf("standby: case %s #%d: %s restores the changelog (%d offsets) as active; then %s joins and its standbys restore it too",
		s.req.Case.Name, s.req.Repeat, ksActiveID, s.changelogOffsets, ksStandbyID)
	active, err := s.f.Start(s.ctx, ksActiveID, nil)
	if err != nil {
		return err
	}
	fleet.RecordHello(&s.ks, active.Inst.Hello())
	if _, err := s.f.WatchUntil(s.ctx, time.Now().Add(standbySetupTimeout), time.Second, func() (bool, string) {
		r := s.f.ReadinessNow(s.parts, 0)
		return r.Ready, r.Why
	}); err != nil {
		return fmt.Errorf("the active instance's restore: %w", err)
	}
	s.env.Logf("standby: case %s #%d: %s restored every task; starting the standby instance %s", s.req.Case.Name, s.req.Repeat, ksActiveID, ksStandbyID)
	sb, err := s.f.Start(s.ctx, ksStandbyID, nil)
	if err != nil {
		return err
	}
	from := sb.Inst.LaunchMonoNs()
	caughtNs, err := s.f.WatchUntil(s.ctx, time.Now().Add(standbySetupTimeout), 0, s.standbyWithin(0))
	if err != nil {
		return fmt.Errorf("the standby's first restore: %w", err)
	}
	sr := &runs.StandbyRecord{Step: runs.StepInitial, AcceptableRecoveryLag: s.st.AcceptableRecoveryLag, Sustained: true}
	secs := fleet.SecsFrom(from, caughtNs)
	applied := s.applied(sb, from, caughtNs)
	sr.AppliedRate = runs.PerSec(applied, secs)
	return s.finish(sr, applied, secs, nil)
}

// standbyWithin is the condition "the standby instance runs, is standby
// for every task and active for none, and each standby's lag is at most
// lag". It fails the wait when the assignor made the standby active.
func (s *ksStandby) standbyWithin(lag int64) func() (bool, string) {
	return func() (bool, string) {
		sb := s.f.LiveProc(ksStandbyID)
		if sb == nil {
			return false, ksStandbyID + " is not running"
		}
		if sb.View.State != ksdriver.StateRunning {
			return false, fmt.Sprintf("%s is %s", ksStandbyID, fleet.OrNone(sb.View.State))
		}
		if len(sb.View.Active) > 0 {
			return false, fmt.Sprintf("%s is active for %d tasks: the assignor moved tasks to it (the case's "+
				"acceptable.recovery.lag or probing.rebalance.interval.ms let it)", ksStandbyID, len(sb.View.Active))
		}
		if len(sb.View.Standby) < s.parts {
			return false, fmt.Sprintf("%s is standby for %d of %d tasks", ksStandbyID, len(sb.View.Standby), s.parts)
		}
		for task := range sb.View.Standby {
			part, _ := ksdriver.TaskPartition(task)
			if l, ok := sb.Lags[part]; !ok || l > lag {
				return false, fmt.Sprintf("standby %s lags %s (want at most %d)", task, fleet.LagText(l, ok), lag)
			}
		}
		return true, ""
	}
}

// rateStep writes the input at rate for the step's duration while the
// standby follows the changelog, then stops the writes and waits for the
// standby to apply everything, and verifies it.
func (s *ksStandby) rateStep(step runs.StepKind, rate float64) (*runs.StandbyRecord, error) {
	s.env.Logf("standby: case %s #%d: %s step, %.0f records/s for %s (through the active's processing)", s.req.Case.Name, s.req.Repeat, step, rate, s.st.Duration)
	before, err := s.env.Offsets(s.ctx, s.t.Topic)
	if err != nil {
		return nil, err
	}
	sb := s.f.LiveProc(ksStandbyID)
	if sb == nil {
		return nil, fmt.Errorf("the standby instance %s is not running", ksStandbyID)
	}
	ld := fleet.StartLoad(s.ctx, s.req.Changer, "standby", s.input, rate)
	waitErr := s.f.Wait(s.ctx, s.st.Duration.D())
	_, loadErr := ld.Finish()
	if err := errors.Join(waitErr, loadErr); err != nil {
		return nil, err
	}
	writeSecs := fleet.SecsFrom(ld.StartNs, ld.EndNs)
	caughtNs, drainErr := s.drain()
	sr := &runs.StandbyRecord{Step: step, TargetRate: rate, Seconds: writeSecs, AcceptableRecoveryLag: s.st.AcceptableRecoveryLag}
	setLag(sr, s.lagPoints(sb, ld.StartNs, ld.EndNs))
	if drainErr == nil {
		after, err := s.env.Offsets(s.ctx, s.t.Topic)
		if err != nil {
			return nil, err
		}
		sr.WrittenRate = runs.PerSec(sumEnds(after)-sumEnds(before), writeSecs)
		sr.ProducerLimited = sr.WrittenRate < 0.95*rate
		// Caught up within a second (and a lag sample) of the last record
		// reaching the changelog, and the lag bounded while writing.
		settled := fleet.SecsFrom(ld.EndNs, caughtNs) <= 1+2*s.sampleInterval().Seconds()
		judge(sr, settled && lagBounded(sr.Lag, writeSecs, sr.WrittenRate, s.st.AcceptableRecoveryLag), s.env.Logf)
	}
	stepEnd := max(caughtNs, ld.EndNs)
	applied, secs := s.applied(sb, ld.StartNs, stepEnd), fleet.SecsFrom(ld.StartNs, stepEnd)
	sr.AppliedRate = runs.PerSec(applied, secs)
	return sr, s.finish(sr, applied, secs, drainErr)
}

// pauseStep stops the standby instance (its state directory kept) while
// the input is written at the pause rate, starts it again with the writes
// going on, and measures the time until every standby is within
// acceptable.recovery.lag.
func (s *ksStandby) pauseStep(pause time.Duration) error {
	s.env.Logf("standby: case %s #%d: standby stopped for %s at %.0f records/s", s.req.Case.Name, s.req.Repeat, pause, s.st.PauseRate)
	running := s.f.LiveProc(ksStandbyID)
	if running == nil {
		return fmt.Errorf("the standby instance %s is not running", ksStandbyID)
	}
	if _, err := s.f.Stop(s.ctx, running); err != nil {
		return fmt.Errorf("stopping the standby instance: %w", err)
	}
	ld := fleet.StartLoad(s.ctx, s.req.Changer, "standby", s.input, s.st.PauseRate)
	defer ld.Finish()
	if err := s.f.Wait(s.ctx, pause); err != nil {
		return err
	}
	sb, err := s.f.Start(s.ctx, ksStandbyID, nil)
	if err != nil {
		return err
	}
	restart := sb.Inst.LaunchMonoNs()
	caughtNs, watchErr := s.f.WatchUntil(s.ctx, time.Now().Add(catchUpLimit), 0, s.standbyWithin(s.st.AcceptableRecoveryLag))
	_, loadErr := ld.Finish()
	sr := &runs.StandbyRecord{Step: runs.StepPause, TargetRate: s.st.PauseRate, PauseSeconds: pause.Seconds(), AcceptableRecoveryLag: s.st.AcceptableRecoveryLag}
	rec := ld.Record()
	sr.WrittenRate, sr.Seconds = rec.Rate, rec.Seconds
	setLag(sr, s.lagPoints(sb, restart, ksdriver.NowMonoNs()))
	if watchErr == nil {
		sr.Sustained, sr.CatchUpSeconds = true, fleet.SecsFrom(restart, caughtNs)
	} else {
		watchErr = fmt.Errorf("the restarted standby did not get within acceptable.recovery.lag %d within %s: %w", s.st.AcceptableRecoveryLag, catchUpLimit, watchErr)
	}
	var drainErr error
	if err := errors.Join(watchErr, loadErr); err == nil {
		_, drainErr = s.drain()
	} else {
		drainErr = err
	}
	end := ksdriver.NowMonoNs()
	applied, secs := s.applied(sb, restart, end), fleet.SecsFrom(restart, end)
	sr.AppliedRate = runs.PerSec(applied, secs)
	return s.finish(sr, applied, secs, drainErr)
}

// drain waits until the active processed every input record written and
// the standby applied every changelog record, and returns when the
// standby's lag first read 0.
//
// Processed is not yet in the changelog: the active's changelog records
// leave with its producer (linger, a commit) after it processed them, and
// until they land the standby's lag reads 0 against the old end. So it
// waits until the changelog's end offsets hold still, and takes only lags
// the standby reported after that.
func (s *ksStandby) drain() (int64, error) {
	if err := s.f.AwaitProcessed(s.ctx, s.input, drainTimeout); err != nil {
		return 0, err
	}
	settled, err := s.changelogSettled()
	if err != nil {
		return 0, err
	}
	ns, err := s.f.WatchUntil(s.ctx, time.Now().Add(catchUpLimit), 0, s.standbyLagsSince(settled, s.drainLag()))
	if err != nil {
		return 0, fmt.Errorf("the standby did not apply everything written within %s: %w", catchUpLimit, err)
	}
	return ns, nil
}

// changelogSettledPoll is how often changelogSettled reads the end
// offsets; two equal readings in a row count as settled.
const changelogSettledPoll = 300 * time.Millisecond

// changelogSettled waits until two readings of the changelog's end offsets
// agree, and returns the monotonic time of the second.
func (s *ksStandby) changelogSettled() (int64, error) {
	prev, settled := int64(-1), int64(0)
	growing := fmt.Sprintf("the changelog %s kept growing for %s after the writes stopped", s.t.Topic, drainTimeout)
	err := poll.Until(s.ctx, changelogSettledPoll, drainTimeout, growing, func(ctx context.Context) (bool, error) {
		o, err := s.env.Offsets(ctx, s.t.Topic)
		if err != nil {
			return false, err
		}
		cur := sumEnds(o)
		if cur == prev {
			settled = ksdriver.NowMonoNs()
			return true, nil
		}
		prev = cur
		return false, nil
	})
	return settled, err
}

// standbyLagsSince is standbyWithin for lags the standby reported after
// since: each standby task's latest such lag is at most lag.
func (s *ksStandby) standbyLagsSince(since, lag int64) func() (bool, string) {
	within := s.standbyWithin(lag)
	return func() (bool, string) {
		if ok, why := within(); !ok {
			return false, why
		}
		sb := s.f.LiveProc(ksStandbyID)
		latest := map[int32]int64{}
		for _, e := range sb.Inst.Events() {
			l, ok := e.(*ksdriver.Lags)
			if !ok || l.MonoNs <= since {
				continue
			}
			for _, sl := range l.Lags {
				if sl.Store == s.t.StoreName {
					latest[sl.Partition] = sl.Lag
				}
			}
		}
		for task := range sb.View.Standby {
			part, _ := ksdriver.TaskPartition(task)
			if l, ok := latest[part]; !ok || l > lag {
				return false, fmt.Sprintf("standby %s lags %s since the changelog settled (want at most %d)", task, fleet.LagText(l, ok), lag)
			}
		}
		return true, ""
	}
}

// drainLag is the lag a standby that applied everything shows: 0, or
// under exactly-once 1, the marker of the last transaction, which is an
// offset but not a record.
func (s *ksStandby) drainLag() int64 {
	if s.req.Case.ExactlyOnce() {
		return 1
	}
	return 0
}

// sumEnds is the sum of a topic's end offsets.
func sumEnds(o offsetsAt) int64 {
	var n int64
	for _, e := range o.End {
		n += e
	}
	return n
}

// lagPoints are the standby's summed standby lags from its lags events
// between from and to, times in seconds from from.
func (s *ksStandby) lagPoints(sb *fleet.Proc, from, to int64) []runs.LagPoint {
	var out []runs.LagPoint
	for _, e := range sb.Inst.Events() {
		l, ok := e.(*ksdriver.Lags)
		if !ok || l.MonoNs < from || l.MonoNs > to {
			continue
		}
		var total int64
		for _, sl := range l.Lags {
			if sl.Store == s.t.StoreName {
				total += sl.Lag
			}
		}
		out = append(out, runs.LagPoint{T: fleet.SecsFrom(from, l.MonoNs), Lag: total})
	}
	return out
}

// applied sums the records the standby instance's standbys applied
// between from and to (StandbyUpdateListener.onBatchLoaded).
func (s *ksStandby) applied(sb *fleet.Proc, from, to int64) int64 {
	var n int64
	for _, e := range sb.Inst.Events() {
		if b, ok := e.(*ksdriver.StandbyBatch); ok && b.MonoNs >= from && b.MonoNs <= to {
			n += b.Records
		}
	}
	return n
}

// finish digests the standby's stores and verifies them against what the
// changelog holds, and records the step (with stepErr, unverified).
func (s *ksStandby) finish(sr *runs.StandbyRecord, applied int64, secs float64, stepErr error) error {
	rec := newRecord(s.t, s.req, standbyStep(s.req, sr))
	rec.Standby = sr
	ks := s.ks
	ks.Placement = s.f.Placement()
	rec.KafkaStreams = &ks
	rec.Partitions = s.parts
	rec.Records = applied
	if sr.Step == runs.StepInitial {
		// The standby's first restore of the changelog: a restore, ready
		// when it caught up (no ready phase is measured on Kafka Streams).
		rec.Phase = &runs.RestorePhase{Seconds: secs, TotalSeconds: secs, RecordsPerSec: runs.PerSec(applied, secs)}
	} else {
		sr.Following = &runs.FollowingPhase{Seconds: secs, RecordsPerSec: runs.PerSec(applied, secs)}
	}
	return concludeStandby(&s.out, rec, s.req, stepErr, s.standbyStates)
}

// standbyStates digests the standby instance's stores ("digest all":
// standby stores through stale-store queries) and keeps its standby
// partitions, one each.
func (s *ksStandby) standbyStates() ([]loadgen.PartitionState, error) {
	sb := s.f.LiveProc(ksStandbyID)
	if sb == nil {
		return nil, fmt.Errorf("the standby instance %s is not running", ksStandbyID)
	}
	dctx, cancel := context.WithTimeout(s.ctx, fleet.KSDigestTimeout)
	defer cancel()
	e, err := sb.Inst.Request(dctx, "digest all", ksdriver.EvDigest)
	if err != nil {
		return nil, fmt.Errorf("digest of the standby's stores: %w", err)
	}
	d := e.(*ksdriver.Digest)
	if d.Store != s.t.StoreName {
		return nil, fmt.Errorf("digest of store %s, expected %s", d.Store, s.t.StoreName)
	}
	var out []loadgen.PartitionState
	for _, st := range d.States() {
		if sb.View.Standby[ksdriver.TaskName(st.Partition)] {
			out = append(out, st)
		}
	}
	if len(out) != s.parts {
		return nil, fmt.Errorf("the standby instance digested %d standby partitions of %d", len(out), s.parts)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}
