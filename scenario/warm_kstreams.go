package scenario

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// WarmKafkaStreams is the warm-restart sequence on the real client, the
// same steps as WarmModel: a Kafka Streams instance restores cold and stops
// cleanly (from 4.3 Kafka Streams keeps each store's changelog offset in
// the store itself, KIP-1035; before, in a .checkpoint file), or with
// warm.stop kill is SIGKILLed; records are written to the changelog while
// it is down; it starts again on the same state directory and restores only
// those. The fallback step deletes each changelog partition's prefix past
// the offsets the stores hold: Kafka Streams then finds its offsets out of
// range, wipes the stores and restores from the log start. Every restart is
// verified by the instance's digest against what the changelog holds.
type WarmKafkaStreams struct{}

func init() { Register(config.ScenarioWarm, config.EngineKafkaStreams, WarmKafkaStreams{}) }

// Run runs the sequence and returns one record per restore.
func (WarmKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	// Every repeat starts from the fill itself (see WarmModel).
	if err := fleet.ResetKafkaStreamsFill(ctx, env, t, req); err != nil {
		return nil, err
	}
	offsets, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return nil, err
	}
	if err := fleet.CheckBrokerForKafkaStreams(ctx, env.Cluster, t.Topic); err != nil {
		return nil, err
	}
	input, err := fleet.EnsureInputTopic(ctx, env, t, int32(len(offsets.End)))
	if err != nil {
		return nil, err
	}
	props, err := fleet.InstanceProperties(env, t, req, input)
	if err != nil {
		return nil, err
	}
	if err := fleet.AddKindProperties(props, req); err != nil {
		return nil, err
	}
	queryload.SetAPIProps(props, req.Case.Queries)
	queryload.SetRouteProps(props, req)
	single, err := fleet.NewKSSingle(env, req, t.AppID)
	if err != nil {
		return nil, err
	}
	if single.OnAgent() {
		// An earlier repeat of this run left the instance's state on its
		// agent; locally, each repeat's ends with its removal.
		if err := single.Fresh(); err != nil {
			return nil, err
		}
	}
	defer single.Remove()
	return warmSequence(ctx, env, t, req, &ksWarm{env: env, t: t, req: req, props: props, single: single})
}

// ksWarm is the Kafka Streams instance of a warm-restart sequence: a
// process started afresh for each step on the same state directory (on an
// agent, on the same agent: ksSingle).
type ksWarm struct {
	env    *fleet.Env
	t      fleet.Target
	req    fleet.Request
	props  map[string]string
	single *fleet.KSSingle
}

// owedBy is what each partition's restore owes in step s, the changelog
// ending at now: after a warm step's writes, exactly the records written
// since (a clean stop left every store at its partition's end); in the
// cold and the fallback step, the whole log.
func owedBy(s warmRestart, now cluster.TopicOffsets) map[int32]int64 {
	owed := map[int32]int64{}
	for p, end := range now.End {
		switch {
		case s.kind != runs.StepWarm:
			owed[p] = end - now.Start[p]
		case end > s.since.End[p]:
			owed[p] = end - s.since.End[p]
		}
	}
	return owed
}

// restart starts the instance on the kept state directory, waits until it
// restored what each partition owes and is RUNNING, digests and verifies
// its stores, stops it cleanly and records the restart.
func (w *ksWarm) restart(ctx context.Context, s warmRestart) (*runs.Restore, error) {
	offsets, err := w.env.Offsets(ctx, w.t.Topic)
	if err != nil {
		return nil, err
	}
	rec := newRecord(w.t, w.req, warmStep(w.req, s.kind, s.changed))
	rec.Partitions = len(offsets.End)
	fail := func(err error) (*runs.Restore, error) {
		rec.Error = err.Error()
		return &rec, err
	}
	expected, err := s.expected()
	if err != nil {
		return fail(err)
	}
	ks := &runs.KafkaStreamsRun{Properties: w.props, Instances: 1, BytesFrom: "changelog"}
	rec.KafkaStreams = ks
	inst, queries, err := w.launch(ctx, s, fleet.StateNeed(fleet.Target{Expected: expected}))
	if err != nil {
		return fail(err)
	}
	defer inst.Kill()
	fleet.RecordHello(ks, inst.Hello())
	ks.Placement = w.single.Placement()
	owed := owedBy(s, offsets)
	var want int64
	for _, n := range owed {
		want += n
	}
	bar := w.env.Progress.Start(fmt.Sprintf("restore %s #%d %s (kafka-streams)", w.req.Case.Name, w.req.Repeat, s.kind), want, progress.Records)
	watch, err := fleet.AwaitRestored(ctx, w.env, inst, w.t.Topic, owed, bar)
	bar.Done()
	if err != nil {
		if queries != nil {
			queries.Abort()
		}
		return fail(fmt.Errorf("case %s #%d %s restart: %w", w.req.Case.Name, w.req.Repeat, s.kind, err))
	}
	watch.Record(&rec, inst)
	if err := queryload.FinishKSQueries(ctx, w.env, &rec, queries, &watch.Restores); err != nil {
		return fail(fmt.Errorf("case %s #%d %s restart: %w", w.req.Case.Name, w.req.Repeat, s.kind, err))
	}
	rec.Phase.DiskBytes = w.single.DiskBytes(ctx)
	rec.Warm = ksWarmRecord(s.kind, s.changed, &watch.Restores, offsets, s.coldSeconds, w.stop())
	if s.kind == runs.StepWarm {
		rec.Warm.Behind = restoredBehind(&watch.Restores, offsets, s.since.End)
	}
	if s.kind == runs.StepCold {
		rec.Warm.ColdSeconds = rec.Phase.Seconds
	}
	for _, e := range expected {
		rec.Warm.LiveBytes += e.LiveBytes
	}
	actual, err := fleet.DigestStores(ctx, inst, w.t.StoreName)
	if err != nil {
		return fail(err)
	}
	ks.DigestSeconds = actual.Seconds
	if w.stop() == config.WarmStopKill {
		inst.KillNow()
	} else {
		stopInstance(ctx, w.env, inst, ks)
	}
	if rec.Bytes, err = fleet.ChangelogBytes(ctx, w.env, fleet.RestoredRange(offsets, &watch.Restores)); err != nil {
		return fail(fmt.Errorf("counting the restored records' bytes: %w", err))
	}
	finishRates(&rec, &watch.Restores)
	verified, err := fleet.VerifyInto(&rec, fleet.Target{Expected: expected}, actual.States())
	if err == nil {
		verified, err = checkReads(&verified)
	}
	return &verified, err
}

// launch starts the instance for restart s on the kept state directory
// (on an agent, with need bytes free there),
// and beside it the case's query load (none on a fallback step, whose log
// lost the records below its new start: the checker follows whole
// fills), checked against what the topic holds now.
func (w *ksWarm) launch(ctx context.Context, s warmRestart, need int64) (fleet.Process, *queryload.SingleQueries, error) {
	inst, err := w.single.Start(ctx, w.props, need)
	if err != nil {
		return nil, nil, err
	}
	if w.req.Case.Queries == nil || s.kind == runs.StepFallback {
		return inst, nil, nil
	}
	spec := w.req.Changer.Spec()
	queries, err := queryload.StartSingleQueries(ctx, w.req, &spec, inst)
	if err != nil {
		inst.Kill()
		return nil, nil, err
	}
	return inst, queries, nil
}

// stop is how the instance ends after each step (warm.stop).
func (w *ksWarm) stop() config.WarmStop {
	if w.req.Case.Warm.Kills() {
		return config.WarmStopKill
	}
	return config.WarmStopClean
}

// restoredBehind counts the records a warm restart restored again from
// below stopped, the offsets each partition's store had reached when the
// instance stopped: none after a clean stop; after a SIGKILL, what the
// offsets that were durable (a .checkpoint, or the store's own, KIP-1035)
// lagged the store's content. A partition restored from its log start
// (an exactly-once store wiped) counts from there.
func restoredBehind(r *ksdriver.Restores, now cluster.TopicOffsets, stopped map[int32]int64) int64 {
	return restoredAgain(now, stopped, func(p int32) (int64, bool) {
		pr, ok := r.Of(now.Topic, p)
		return pr.StartOffset, ok
	})
}

// restoredAgain counts, over the partitions of stopped (the offsets each
// store had reached when the instance stopped), the records a restart
// restored again from below them: from where startOf says the
// partition's restore started (false: it restored nothing), at least its
// log start in now. Both engines' warm records count "behind" so.
func restoredAgain(now cluster.TopicOffsets, stopped map[int32]int64, startOf func(p int32) (int64, bool)) int64 {
	var n int64
	for p, end := range stopped {
		start, ok := startOf(p)
		if !ok {
			continue
		}
		if from := max(start, now.Start[p]); from < end {
			n += end - from
		}
	}
	return n
}

// ksWarmRecord says, from the restore events, which tasks resumed from
// their stores' offsets and which restored from the log start.
func ksWarmRecord(step runs.StepKind, changed int64, r *ksdriver.Restores, offsets cluster.TopicOffsets,
	coldSeconds float64, stop config.WarmStop) *runs.WarmRecord {
	w := &runs.WarmRecord{Step: step, Changed: changed, ColdSeconds: coldSeconds}
	if step == runs.StepCold {
		return w
	}
	w.Stop = string(stop)
	why := "its store's offset lay below it"
	if stop == config.WarmStopKill && step == runs.StepWarm {
		why = "after the SIGKILL: no offset of its store was durable, or Kafka Streams wiped the store"
	}
	for p := range offsets.End {
		pr, restored := r.Of(offsets.Topic, p)
		switch {
		case !restored || (pr.StartOffset > offsets.Start[p] && step != runs.StepFallback):
			// Nothing to restore, or resumed past the log start. In the
			// fallback step every store's offset lies below the log
			// start: a window or session store's restore starts past it
			// only by its retention (seekByRetention), from no offset.
			w.WarmTasks++
		default:
			w.FallbackTasks++
			w.Fallbacks = append(w.Fallbacks, fmt.Sprintf("task 0_%d: restored from the log start offset %d (%s)", p, pr.StartOffset, why))
		}
	}
	return w
}
