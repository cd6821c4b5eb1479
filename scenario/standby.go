package scenario

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// StandbyModel is the standby scenario on the model engine: a standby
// instance first restores the changelog (the "initial" record), then keeps
// its stores current while the changelog is written at each rate (a "rate"
// record each), searches for the highest rate it sustains ("max" records),
// and is paused, stopped with its state kept while writes go on, then
// restarted ("pause" records: the time until its lag is within
// acceptable.recovery.lag again). After every step the standby catches up,
// stops cleanly and is verified against what the changelog holds, then
// restarts from its committed offsets for the next step.
type StandbyModel struct{}

func init() { Register(config.ScenarioStandby, config.EngineModel, StandbyModel{}) }

// catchUpLimit bounds the wait for a standby to catch up after a step.
const catchUpLimit = 2 * time.Minute

// Run runs the standby scenario and returns one record per step.
func (StandbyModel) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	if req.Changer == nil {
		return nil, fleet.ErrNoChanger
	}
	in := modelInstance(env, t, req)
	defer cleanupState(in, req)
	s := &standbyRun{ctx: ctx, env: env, t: t, req: req, in: in}
	err := standbySequence(s, *req.Case.Standby, env.Logf)
	return s.out, err
}

// standbyInstance is the standby of a standby scenario, on either engine:
// the model engine's (standbyRun) or a Kafka Streams instance's standby
// tasks (ksStandby). Every step ends with the standby caught up, its
// stores verified against what the changelog holds and the step recorded.
type standbyInstance interface {
	// initial is the standby's first restore of the changelog.
	initial() error
	// rateStep has the standby follow writes at rate for the step's
	// duration and returns its figures.
	rateStep(step runs.StepKind, rate float64) (*runs.StandbyRecord, error)
	// pauseStep stops the standby for pause while writes go on, starts it
	// again and measures its catch-up.
	pauseStep(pause time.Duration) error
}

// standbySequence walks a standby case on sb: the initial restore, a rate
// step at each rate, the search for the highest rate the standby sustains
// (find_max), and a pause step for each pause.
func standbySequence(sb standbyInstance, st config.StandbySettings, logf func(string, ...any)) error {
	if err := sb.initial(); err != nil {
		return err
	}
	best := 0.0 // the highest rate sustained in the rate steps walked
	for _, rate := range st.Rates {
		r, err := sb.rateStep(runs.StepRate, rate)
		if err != nil {
			return err
		}
		if r.Sustained {
			best = max(best, rate)
		}
	}
	if st.FindMax {
		if err := findMaxRate(best, sb.rateStep, logf); err != nil {
			return err
		}
	}
	for _, p := range st.Pauses {
		if err := sb.pauseStep(p.D()); err != nil {
			return err
		}
	}
	return nil
}

// concludeStandby ends a standby step's record rec: a step that failed
// (stepErr), or whose stores could not be read (actual), is kept with its
// error, unverified; else its stores are verified against what the
// changelog holds now. The record is appended to out.
func concludeStandby(out *[]runs.Restore, rec runs.Restore, req fleet.Request, stepErr error, actual func() ([]loadgen.PartitionState, error)) error {
	err := stepErr
	var states []loadgen.PartitionState
	if err == nil {
		states, err = actual()
	}
	if err != nil {
		rec.Error = err.Error()
		*out = append(*out, rec)
		return err
	}
	expected, err := req.Changer.Expected()
	if err != nil {
		return err
	}
	verified, err := fleet.VerifyInto(&rec, fleet.Target{Expected: expected}, states)
	*out = append(*out, verified)
	return err
}

// standbyRun is one standby scenario under way on the model engine.
type standbyRun struct {
	ctx context.Context
	env *fleet.Env
	t   fleet.Target
	req fleet.Request
	in  *engine.Instance
	out []runs.Restore
}

// initial restores the changelog: a standby starts by restoring it.
func (s *standbyRun) initial() error {
	keep := s.req
	keep.KeepState = true
	rec := newRecord(s.t, s.req, s.req.Step(runs.StepInitial))
	offsets, err := s.env.Offsets(s.ctx, s.t.Topic)
	if err != nil {
		return err
	}
	rec.Partitions = len(offsets.End)
	expected, err := s.req.Changer.Expected()
	if err != nil {
		return err
	}
	restored, err := measureModel(s.ctx, s.env, keep, s.in, &rec, func() (*engine.Restored, error) { return s.in.ColdRestore(s.ctx, offsets) })
	if err != nil {
		s.out = append(s.out, rec)
		return err
	}
	rec.Standby = &runs.StandbyRecord{Step: runs.StepInitial, AppliedRate: rec.Phase.RecordsPerSec, AcceptableRecoveryLag: s.req.Case.Standby.AcceptableRecoveryLag}
	rec, err = verifyStores(&rec, expected, restored)
	restored.Close()
	s.out = append(s.out, rec)
	return err
}

// findMaxRate doubles the write rate from the best sustained one until
// the standby falls behind (or the writes cannot go faster), then bisects
// twice between the last sustained and the first unsustained rate; step
// runs one rate step of an engine's standby scenario.
func findMaxRate(best float64, step func(step runs.StepKind, rate float64) (*runs.StandbyRecord, error), logf func(string, ...any)) error {
	lo, hi := best, 0.0
	rate := max(best*2, 1000)
	for i := 0; i < 8 && hi == 0; i++ {
		r, err := step(runs.StepMax, rate)
		if err != nil {
			return err
		}
		switch {
		case !r.Judged():
			logf("standby: the step at %.0f records/s has no verdict (%d lag samples while writing, fewer than %d): the "+
				"search stops", rate, r.LagSamples, runs.MinLagSamples)
			return nil
		case r.Sustained && r.ProducerLimited:
			// The producer, not the standby, is the limit: the standby
			// sustains at least what was written.
			lo = max(lo, r.WrittenRate)
			logf("standby: the writes reached %.0f of %.0f records/s; the standby kept up: its limit lies above what this machine can write", r.WrittenRate, rate)
			return nil
		case r.Sustained:
			lo, rate = rate, rate*2
		default:
			hi = rate
		}
	}
	for i := 0; i < 2 && hi > 0 && hi-lo > 0.1*hi; i++ {
		mid := (lo + hi) / 2
		r, err := step(runs.StepMax, mid)
		if err != nil {
			return err
		}
		if !r.Judged() {
			logf("standby: the step at %.0f records/s has no verdict (%d lag samples while writing, fewer than %d): the "+
				"search stops", mid, r.LagSamples, runs.MinLagSamples)
			return nil
		}
		if r.Sustained {
			lo = mid
		} else {
			hi = mid
		}
	}
	return nil
}

// rateStep writes the changelog at rate for the step's duration while the
// standby follows it, then waits for the standby to catch up, stops it and
// verifies it. It returns the step's standby figures.
func (s *standbyRun) rateStep(step runs.StepKind, rate float64) (*runs.StandbyRecord, error) {
	st := s.req.Case.Standby
	sb, err := s.start()
	if err != nil {
		return nil, err
	}
	n := int64(rate * st.Duration.D().Seconds())
	s.env.Logf("standby: case %s #%d: %s step, %.0f records/s for %s", s.req.Case.Name, s.req.Repeat, step, rate, st.Duration)
	lag := sampleLag(sb, st.Sample.D())
	applied0, _ := sb.Applied()
	start := time.Now()
	written, werr := s.req.Changer.Append(s.ctx, "standby", n, rate, nil)
	writeSecs := time.Since(start).Seconds()
	caught := waitCaughtUp(s.ctx, sb, 0, time.Second)
	points := lag.stop()
	applied1, _ := sb.Applied()
	sr := &runs.StandbyRecord{
		Step: step, TargetRate: rate, WrittenRate: float64(written) / writeSecs, Seconds: writeSecs,
		AppliedRate:           float64(applied1-applied0) / max(writeSecs, time.Since(start).Seconds()),
		AcceptableRecoveryLag: st.AcceptableRecoveryLag,
	}
	setLag(sr, points)
	sr.ProducerLimited = sr.WrittenRate < 0.95*rate
	judge(sr, caught && lagBounded(points, writeSecs, rate, st.AcceptableRecoveryLag), s.env.Logf)
	if werr != nil {
		err = werr
	}
	return sr, s.finish(sb, sr, err)
}

// pauseStep stops the standby for pause while the changelog is written at
// the pause rate, restarts it with the writes going on, and measures the
// time until its lag is within acceptable.recovery.lag.
func (s *standbyRun) pauseStep(pause time.Duration) error {
	st := s.req.Case.Standby
	s.env.Logf("standby: case %s #%d: paused for %s at %.0f records/s", s.req.Case.Name, s.req.Repeat, pause, st.PauseRate)
	if _, err := s.req.Changer.Append(s.ctx, "standby", int64(st.PauseRate*pause.Seconds()), st.PauseRate, nil); err != nil {
		return err
	}
	// Writes go on while the standby restarts and catches up.
	stop := make(chan struct{})
	stopWrites := sync.OnceFunc(func() { close(stop) })
	done := make(chan error, 1)
	go func() {
		_, err := s.req.Changer.Append(s.ctx, "standby", int64(st.PauseRate*catchUpLimit.Seconds()), st.PauseRate, stop)
		done <- err
	}()
	restart := time.Now()
	sb, err := s.start()
	if err != nil {
		stopWrites()
		<-done
		return err
	}
	lag := sampleLag(sb, st.Sample.D())
	caught := waitCaughtUp(s.ctx, sb, st.AcceptableRecoveryLag, catchUpLimit)
	catchUp := time.Since(restart)
	stopWrites()
	if werr := <-done; werr != nil {
		err = werr
	}
	points := lag.stop()
	applied, _ := sb.Applied()
	sr := &runs.StandbyRecord{
		Step: runs.StepPause, TargetRate: st.PauseRate, WrittenRate: st.PauseRate, PauseSeconds: pause.Seconds(),
		AcceptableRecoveryLag: st.AcceptableRecoveryLag, Sustained: caught,
		AppliedRate: float64(applied) / time.Since(restart).Seconds(),
	}
	if caught {
		sr.CatchUpSeconds = catchUp.Seconds()
	}
	setLag(sr, points)
	if !caught && err == nil {
		err = fmt.Errorf("standby did not get within acceptable.recovery.lag %d within %s of its restart", st.AcceptableRecoveryLag, catchUpLimit)
	}
	return s.finish(sb, sr, err)
}

// start (re)starts the standby from its stores' committed offsets.
func (s *standbyRun) start() (*engine.Standby, error) {
	offsets, err := s.env.Offsets(s.ctx, s.t.Topic)
	if err != nil {
		return nil, err
	}
	return s.in.StartStandby(s.ctx, offsets)
}

// finish waits until the standby has applied everything written (the
// broker's end offsets), stops it cleanly, verifies its stores against what
// the changelog holds and records the step.
func (s *standbyRun) finish(sb *engine.Standby, sr *runs.StandbyRecord, stepErr error) error {
	rec := newRecord(s.t, s.req, standbyStep(s.req, sr))
	rec.Standby = sr
	if stepErr == nil {
		ends, err := s.env.Offsets(s.ctx, s.t.Topic)
		if err != nil {
			stepErr = err
		} else if !sb.WaitApplied(s.ctx, ends.End, catchUpLimit) {
			stepErr = fmt.Errorf("the standby did not apply everything written within %s of the writes stopping", catchUpLimit)
		}
	}
	restored, err := sb.Stop()
	if err != nil {
		rec.Error = err.Error()
		s.out = append(s.out, rec)
		return err
	}
	defer restored.Close()
	rec.Partitions = len(restored.Stores)
	rec.Records, rec.Bytes = restored.Records, restored.Bytes
	// A following step is not a restore: what the standby applied is the
	// standby record's, and the model's figures of it its Model.
	secs := restored.Load.Seconds()
	sr.Following = &runs.FollowingPhase{Seconds: secs, RecordsPerSec: runs.PerSec(rec.Records, secs), MBPerSec: runs.MBPerSec(rec.Bytes, secs)}
	rec.Series = restored.Series
	rec.Model = &runs.ModelRun{LoadSeconds: secs, BatchWrite: restored.BatchWrite.Summary(), PollWait: restored.PollWait.Summary(),
		RocksDB: restored.StoreStats()}
	return concludeStandby(&s.out, rec, s.req, stepErr, func() ([]loadgen.PartitionState, error) { return engine.ScanAll(restored.Stores) })
}

// lagSampler reads a standby's lag at an interval.
type lagSampler struct {
	stopc  chan struct{}
	done   chan []runs.LagPoint
	start  time.Time
	points []runs.LagPoint
}

func sampleLag(sb *engine.Standby, every time.Duration) *lagSampler {
	l := &lagSampler{stopc: make(chan struct{}), done: make(chan []runs.LagPoint, 1), start: time.Now()}
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		var pts []runs.LagPoint
		for {
			total, _ := sb.Lag()
			pts = append(pts, runs.LagPoint{T: time.Since(l.start).Seconds(), Lag: total})
			select {
			case <-tick.C:
			case <-l.stopc:
				l.done <- pts
				return
			}
		}
	}()
	return l
}

func (l *lagSampler) stop() []runs.LagPoint {
	close(l.stopc)
	return <-l.done
}

// waitCaughtUp waits until the standby's lag is at most within, for up to
// limit; it reports whether it got there.
func waitCaughtUp(ctx context.Context, sb *engine.Standby, within int64, limit time.Duration) bool {
	return poll.Until(ctx, 20*time.Millisecond, limit, "standby did not catch up", func(context.Context) (bool, error) {
		total, _ := sb.Lag()
		return total <= within, nil
	}) == nil
}

// lagBounded says whether a standby kept up with writes at rate over
// seconds: its lag stayed within the acceptable recovery lag, or did not
// grow over the second half of the step by more than 5% of the rate.
func lagBounded(points []runs.LagPoint, seconds, rate float64, acceptable int64) bool {
	_, _, maxLag := lagPercentiles(points)
	if maxLag <= acceptable {
		return true
	}
	var xs, ys []float64
	for _, p := range points {
		if p.T >= seconds/2 && p.T <= seconds {
			xs, ys = append(xs, p.T), append(ys, float64(p.Lag))
		}
	}
	return len(xs) >= 3 && slope(xs, ys) <= 0.05*rate
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(xs))
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// setLag records a step's lag samples and their percentiles, and for a
// rate step (its Seconds set) how many it took while writing.
func setLag(sr *runs.StandbyRecord, points []runs.LagPoint) {
	sr.Lag = points
	sr.LagP50, sr.LagP99, sr.LagMax = lagPercentiles(points)
	if sr.RateStep() {
		sr.LagSamples = sr.WriteSamples()
	}
}

// judge gives a rate step its verdict: sustained when kept says its lag
// stayed bounded and it caught up, and only when it took enough lag
// samples while writing to say so; without them it has none (Judged).
func judge(sr *runs.StandbyRecord, kept bool, logf func(string, ...any)) {
	sr.Sustained = kept && sr.Judged()
	if !sr.Judged() {
		logf("standby: %s step at %.0f records/s took %d lag samples while writing, fewer than %d: no verdict on whether the standby kept up",
			sr.Step, sr.TargetRate, sr.LagSamples, runs.MinLagSamples)
	}
}

// lagPercentiles are the p50, p99 and max of the sampled lags.
func lagPercentiles(points []runs.LagPoint) (p50, p99, maxLag int64) {
	if len(points) == 0 {
		return 0, 0, 0
	}
	lags := make([]int64, len(points))
	for i, p := range points {
		lags[i] = p.Lag
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	at := func(q float64) int64 { return lags[int(math.Ceil(q*float64(len(lags))))-1] }
	return at(0.5), at(0.99), lags[len(lags)-1]
}

// standbyStep is the step a standby record measured: its kind, with the
// rate of a rate step or the length of a pause.
func standbyStep(req fleet.Request, sr *runs.StandbyRecord) runs.Step {
	s := req.Step(sr.Step)
	switch {
	case sr.Step.IsRate():
		s.Rate = sr.TargetRate
	case sr.Step == runs.StepPause:
		s.PauseSeconds = sr.PauseSeconds
	}
	return s
}
