package scenario

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/recovery"
	"github.com/restorebench/restorebench/runs"
)

// WarmModel is the warm-restart sequence on the model engine: a cold
// restore (the baseline), then for each count of changes, the instance
// stops cleanly with its state directory kept, that many records are
// written to the changelog, and it restarts and restores only them, from
// the offsets its stores committed; with the fallback setting, a last
// restart whose committed offsets lie below the log start (a prefix of the
// changelog deleted) restores from the log start. Every restore is
// verified against the state the changelog holds at that moment.
type WarmModel struct{}

func init() { Register(config.ScenarioWarm, config.EngineModel, WarmModel{}) }

// Run runs the sequence and returns one record per restore.
func (WarmModel) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	if req.Changer == nil {
		return nil, fleet.ErrNoChanger
	}
	// Every repeat starts from the fill itself: an earlier repeat's
	// fallback step deleted a prefix of the log.
	if err := req.Changer.Reset(ctx); err != nil {
		return nil, err
	}
	in, done, err := placeModel(env, t, req).warm()
	if err != nil {
		return nil, err
	}
	defer done()
	return warmSequence(ctx, env, t, req, in)
}

// warmInstance is the one instance a warm-restart sequence restarts, on
// either engine: the model engine's (modelWarm) or a Kafka Streams
// process (ksWarm).
type warmInstance interface {
	// restart starts the instance on its state directory (empty for the
	// cold step, else as its last clean stop left it), waits until it
	// restored the changelog as it is now, verifies its stores against
	// step.expected, stops it cleanly with its state kept and returns the
	// step's record: nil when the step failed before it made one.
	restart(ctx context.Context, step warmRestart) (*runs.Restore, error)
}

// warmRestart is one restart of a warm-restart sequence.
type warmRestart struct {
	// kind is cold, warm or fallback; changed the records written while
	// the instance was down.
	kind    runs.StepKind
	changed int64
	// since are the changelog's offsets when the instance stopped, before
	// the step's writes (warm steps only): its stores hold up to them.
	since cluster.TopicOffsets
	// expected derives the state the restart must end with.
	expected func() ([]loadgen.PartitionState, error)
	// coldSeconds is the cold step's restore time (0 in the cold step).
	coldSeconds float64
}

// warmSequence walks a warm-restart case on in: a cold restore (the
// baseline), then for each count of changes that many records written
// while the instance is down and a restart, then with the fallback
// setting a restart whose stores' offsets lie below the log start. It
// returns every step's record.
func warmSequence(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, in warmInstance) ([]runs.Restore, error) {
	var out []runs.Restore
	var coldSeconds float64
	step := func(s warmRestart) error {
		if s.expected == nil {
			s.expected = req.Changer.Expected
		}
		s.coldSeconds = coldSeconds
		rec, err := in.restart(ctx, s)
		if rec != nil {
			out = append(out, *rec)
			if secs, ok := rec.RestoreSeconds(); ok && s.kind == runs.StepCold {
				coldSeconds = secs
			}
		}
		return err
	}
	if err := step(warmRestart{kind: runs.StepCold}); err != nil {
		return out, err
	}
	for _, n := range warmCounts(env, req) {
		since, err := env.Offsets(ctx, t.Topic)
		if err != nil {
			return out, err
		}
		env.Logf("warm: case %s #%d: writing %d records while the instance is down", req.Case.Name, req.Repeat, n)
		if _, err := req.Changer.Append(ctx, "warm", n, req.Case.Warm.Rate, nil); err != nil {
			return out, err
		}
		if err := checkEveryPartitionChanged(ctx, env, t, req, since, n); err != nil {
			return out, err
		}
		if err := step(warmRestart{kind: runs.StepWarm, changed: n, since: since}); err != nil {
			return out, err
		}
	}
	if !req.Case.Warm.Fallback {
		return out, nil
	}
	fb, err := deleteBelowCommitted(ctx, env, t, req)
	if err != nil {
		return out, err
	}
	return out, step(warmRestart{kind: runs.StepFallback, changed: fb.written, expected: fb.expected})
}

// modelWarm is the model engine's instance of a warm-restart sequence.
type modelWarm struct {
	env *fleet.Env
	t   fleet.Target
	// req is the case's request; keep the same keeping the stores.
	req, keep fleet.Request
	in        *engine.Instance
	// crash is the Kafka Streams crash rule the case's kill emulates
	// (crashRule), nil for a case that stops cleanly.
	crash *recovery.Rule
}

// beginStep is a model warm step's record, the changelog's offsets now
// and the state the step must end with (on this machine or an agent).
func beginStep(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, s warmRestart) (
	runs.Restore, cluster.TopicOffsets, []loadgen.PartitionState, error) {
	rec := newRecord(t, req, warmStep(req, s.kind, s.changed))
	offsets, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return rec, offsets, nil, err
	}
	rec.Partitions = len(offsets.End)
	expected, err := s.expected()
	return rec, offsets, expected, err
}

// restart restores on the model engine: the cold step from the log start,
// the others from the offsets the stores committed.
func (m *modelWarm) restart(ctx context.Context, s warmRestart) (*runs.Restore, error) {
	rec, offsets, expected, err := beginStep(ctx, m.env, m.t, m.req, s)
	if err != nil {
		return nil, err
	}
	restore := func() (*engine.Restored, error) { return warmRestore(ctx, m.env, m.in, m.t) }
	if s.kind == runs.StepCold {
		restore = func() (*engine.Restored, error) { return m.in.ColdRestore(ctx, offsets) }
	}
	crash := m.crash
	if s.kind == runs.StepCold {
		crash = nil // no stop came before it
	}
	if crash != nil {
		// What the SIGKILL after the last step left: where the rule
		// restores the whole store, none; where it resumes from a flush,
		// what the last step's CloseAsKilled kept; from a checkpoint, what
		// its clean stop kept.
		if crash.Restores == recovery.Whole {
			if err := m.in.WipeAfterCrash("wiped after the emulated SIGKILL: " + crash.String()); err != nil {
				return &rec, err
			}
		}
		if !crash.SeeksByRetention && m.in.Case.StoreKind.Segmented() && !m.in.Case.ReadExpired {
			// That version reads a window store's changelog from the log
			// start (read_expired), this restart too.
			m.in.Case.ReadExpired = true
			defer func() { m.in.Case.ReadExpired = false }()
		}
	}
	queries, err := m.startQueries(s, len(offsets.End))
	if err != nil {
		return &rec, err
	}
	restored, err := measureModel(ctx, m.env, m.keep, m.in, &rec, restore)
	if err != nil {
		if queries != nil {
			queries.Stop()
		}
		return &rec, err
	}
	rec.Warm = warmRecord(s.kind, s.changed, restored, s.coldSeconds)
	if crash != nil {
		rec.Warm.Stop, rec.Warm.CrashRule = string(config.WarmStopKill), crash.String()
		if s.kind == runs.StepWarm {
			rec.Warm.Behind = modelBehind(restored.Tasks, offsets, s.since.End)
		}
	}
	for _, e := range expected {
		rec.Warm.LiveBytes += e.LiveBytes
	}
	if queries != nil {
		rec.Queries = queries.Finish(ctx)
	}
	verified, err := verifyStores(&rec, expected, restored)
	if err == nil {
		verified, err = checkReads(&verified)
	}
	if m.crash != nil && m.crash.Restores == recovery.SinceFlush {
		// The SIGKILL before the next restart, as it leaves the stores.
		if kerr := m.in.CloseAsKilled(ctx, restored); err == nil {
			err = kerr
		}
		return &verified, err
	}
	restored.Close() // a clean stop: the stores flush, offsets committed (or a kill the next restart emulates)
	return &verified, err
}

// crashRule is the Kafka Streams crash rule a case that kills its
// instance (warm.stop: kill) emulates: warm.crash_rule's version (default
// 4.4.0), for a crash right after a restore, under the case's
// processing.guarantee and enable.transactional.statestores
// (recovery.AfterCrash); nil for a case that stops cleanly.
func crashRule(c config.Case) (*recovery.Rule, error) {
	if !c.Warm.Kills() {
		return nil, nil
	}
	rule, err := recovery.AfterCrash(c.Warm.CrashRuleVersion(), c.ProcessingGuarantee(), c.TransactionalStateStores(), recovery.AfterRestore)
	if err != nil {
		return nil, fmt.Errorf("warm: case %s: %w", c.Name, err)
	}
	return &rule, nil
}

// modelBehind is restoredAgain for a model restart: each task's restore
// started where its From says (the log start, or past what a window
// store's retention expired).
func modelBehind(tasks []engine.Task, now cluster.TopicOffsets, stopped map[int32]int64) int64 {
	from := make(map[int32]int64, len(tasks))
	for _, t := range tasks {
		from[t.ID.Partition] = t.From
	}
	return restoredAgain(now, stopped, func(p int32) (int64, bool) {
		f, ok := from[p]
		return f, ok
	})
}

// startQueries starts the case's query load for restart s, checked against
// what the topic holds now; none on a fallback step, whose log lost the
// records below its new start (the checker follows whole fills).
func (m *modelWarm) startQueries(s warmRestart, tasks int) (*queryload.QueryLoad, error) {
	if m.req.Case.Queries == nil || s.kind == runs.StepFallback {
		return nil, nil
	}
	spec := m.req.Changer.Spec()
	return queryload.StartQueries(m.req, &spec, m.in, tasks)
}

// warmRestore restarts the instance on the changelog as it is now.
func warmRestore(ctx context.Context, env *fleet.Env, in *engine.Instance, t fleet.Target) (*engine.Restored, error) {
	offsets, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return nil, err
	}
	return in.WarmRestore(ctx, offsets)
}

// fallbackStep is the changelog a fallback restart finds: records written
// while it was down, and each partition's prefix deleted past the offset
// its store holds.
type fallbackStep struct {
	written int64
	// from[p] is where the partition's log started when the store was
	// restored, kept[p] where its applied records end (its offset + 1),
	// start[p] the partition's new log start, beyond kept[p].
	from, kept, start map[int32]int64
	// expected derives the state the restart must end with: under
	// exactly-once the store is wiped, so that of the log from its new
	// start; under at-least-once Kafka Streams keeps the store and applies
	// the log from its new start on top, so the records deleted between
	// kept and start are the only ones missing.
	expected func() ([]loadgen.PartitionState, error)
}

// deleteBelowCommitted makes the stores' committed offsets fall below the
// log start: it writes a few thousand more records and deletes each
// partition's records up to and including the first new one, as retention
// would have.
func deleteBelowCommitted(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (*fallbackStep, error) {
	before, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return nil, err
	}
	n := max(int64(len(before.End))*1000, 5000)
	if _, err := req.Changer.Append(ctx, "warm", n, 0, nil); err != nil {
		return nil, err
	}
	after, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return nil, err
	}
	fb := &fallbackStep{written: n, kept: map[int32]int64{}, start: map[int32]int64{}, from: before.Start}
	for p, end := range before.End {
		if after.End[p] <= end+1 {
			return nil, fmt.Errorf("warm fallback: the %d records appended reached partition %d less than twice", n, p)
		}
		// The store committed end-1: deleting below end+1 leaves offset
		// end, its next record, outside the log.
		fb.kept[p], fb.start[p] = end, end+1
	}
	env.Logf("warm: case %s #%d: deleting each partition's log below its stores' committed offsets", req.Case.Name, req.Repeat)
	if err := req.Changer.DeletePrefix(ctx, "warm", fb.start); err != nil {
		return nil, err
	}
	if req.Case.ExactlyOnce() {
		fb.expected = req.Changer.Expected
	} else {
		fb.expected = func() ([]loadgen.PartitionState, error) {
			return req.Changer.ExpectedApplied(func(p int32, o int64) bool {
				return (o >= fb.from[p] && o < fb.kept[p]) || o >= fb.start[p]
			})
		}
	}
	return fb, nil
}

// warmCounts are the case's warm.changed counts resolved against the fill
// (a percentage of its records), each measured once: a count that resolves
// to one measured before (500 and 10% of a 5,000-record fill) is said and
// skipped, since the two steps would be one measurement under one name;
// so is a count of 0 for a window or session store (skipWarmCount).
func warmCounts(env *fleet.Env, req fleet.Request) []int64 {
	var out []int64
	seen := map[int64]bool{}
	for i, c := range req.Case.Warm.Changed {
		n := c.Of(req.Changer.FillRecords())
		if seen[n] {
			env.Logf("warm: case %s #%d: warm.changed[%d] (%s) is %d records, a step already measured: skipped", req.Case.Name, req.Repeat, i, c, n)
			continue
		}
		if skipWarmCount(req.Case, n) {
			env.Logf("warm: case %s #%d: warm.changed[%d] (%s) skipped: a reopened %s store that restores nothing serves by "+
				"an unknown stream time", req.Case.Name, req.Repeat, i, c, req.Case.StoreKind)
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// warmStep is the step of kind k of req's sequence, changed records
// after the one before (a warm step's own parameter).
func warmStep(req fleet.Request, k runs.StepKind, changed int64) runs.Step {
	s := req.Step(k)
	if k == runs.StepWarm {
		s.Changed = changed
	}
	return s
}

// warmRecord describes one restore of the sequence.
func warmRecord(step runs.StepKind, changed int64, restored *engine.Restored, coldSeconds float64) *runs.WarmRecord {
	w := &runs.WarmRecord{Step: step, Changed: changed, ColdSeconds: coldSeconds}
	for _, task := range restored.Tasks {
		switch {
		case task.Warm:
			w.WarmTasks++
		case step != runs.StepCold:
			w.FallbackTasks++
			w.Fallbacks = append(w.Fallbacks, fmt.Sprintf("task %s: %s", task.ID, task.Fallback))
		}
	}
	if step == runs.StepCold {
		w.ColdSeconds = restored.Duration.Seconds()
	} else {
		w.Stop = string(config.WarmStopClean) // unless the case kills (modelWarm.crashed)
	}
	return w
}
