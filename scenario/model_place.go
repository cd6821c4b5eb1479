package scenario

import (
	"context"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// modelPlace is where a model-engine instance runs, chosen once per
// measurement by placeModel, as a kafka-streams instance's fleet.Host is:
// this process (localModel) or an agent (agentModel, `run --agents`).
// The model scenarios that run on agents (config.ScenarioDef's
// ModelOnAgents) ask their place and never where it is; a third place is
// one more implementation.
type modelPlace interface {
	// cold restores the target's changelog up to offsets into an emptied
	// state directory, verifies the stores against the target's expected
	// state and returns rec (begun for the restore, its partitions set)
	// completed.
	cold(ctx context.Context, offsets cluster.TopicOffsets, rec runs.Restore) (runs.Restore, error)
	// warm is the one instance a warm-restart sequence restarts there;
	// done removes what it keeps, unless the request keeps state.
	warm() (in warmInstance, done func(), err error)
}

// placeModel is where the request's model instance runs: on an agent
// when the run has agents, else in this process.
func placeModel(env *fleet.Env, t fleet.Target, req fleet.Request) modelPlace {
	m := modelMeasurement{env: env, t: t, req: req}
	if env.Agents != nil {
		return agentModel{m}
	}
	return localModel{m}
}

// modelMeasurement is what every place is given: the run's environment,
// the target and the request.
type modelMeasurement struct {
	env *fleet.Env
	t   fleet.Target
	req fleet.Request
}

// localModel runs the model instance in this process, its stores on this
// machine's disk.
type localModel struct{ modelMeasurement }

// cold restores in this process, with the case's query load beside it,
// and verifies the open stores (naming the first key that differs).
func (l localModel) cold(ctx context.Context, offsets cluster.TopicOffsets, rec runs.Restore) (runs.Restore, error) {
	env, t, req := l.env, l.t, l.req
	in := modelInstance(env, t, req)
	queries, err := queryload.StartQueries(req, req.Spec, in, len(offsets.End))
	if err != nil {
		rec.Error = err.Error()
		return rec, err
	}
	restored, err := measureModel(ctx, env, req, in, &rec, func() (*engine.Restored, error) { return in.ColdRestore(ctx, offsets) })
	if err != nil {
		if queries != nil {
			queries.Stop()
		}
		return rec, err
	}
	defer cleanupState(in, req)
	defer restored.Close()
	if queries != nil {
		env.Logf("restore: case %s #%d: lookups go on for %s after the restore", rec.Case, rec.Repeat, req.Case.Queries.After)
		rec.Queries = queries.Finish(ctx)
	}
	out, err := verifyStores(&rec, t.Expected, restored)
	if err != nil {
		err = fleet.NameDifference(ctx, &out, t, func(_ context.Context, p int32) (map[string]uint64, error) {
			return engine.Entries(restored.Stores[p])
		}, err)
		return out, err
	}
	return checkReads(&rec)
}

// warm is the sequence's instance in this process; its stores are removed
// at the end unless the request keeps state.
func (l localModel) warm() (warmInstance, func(), error) {
	crash, err := crashRule(l.req.Case)
	if err != nil {
		return nil, nil, err
	}
	in := modelInstance(l.env, l.t, l.req)
	keep := l.req
	keep.KeepState = true // the restarts need the stores; done removes them at the end
	return &modelWarm{env: l.env, t: l.t, req: l.req, keep: keep, in: in, crash: crash}, func() { cleanupState(in, l.req) }, nil
}
