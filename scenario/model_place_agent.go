package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// agentModel runs the model instance on an agent: placed as a
// kafka-streams cold restore's one instance is (fleet.KSInstanceID, the
// profile's placement rules, else round robin), its stores on the agent's
// disk, verified here from the digest the agent returns.
type agentModel struct{ modelMeasurement }

// host is the agents' host of the instance, and what removes its state
// there at the end unless the request keeps it.
func (a agentModel) host() (*fleet.AgentHost, func()) {
	host := fleet.NewAgentHost(a.env.Agents, a.t.AppID, a.req.Case)
	return host, func() {
		if !a.req.KeepState {
			host.Remove()
		}
	}
}

// cold has the agent restore into the instance's emptied state directory.
func (a agentModel) cold(ctx context.Context, offsets cluster.TopicOffsets, rec runs.Restore) (runs.Restore, error) {
	host, done := a.host()
	defer done()
	out, states, err := modelOnAgent(ctx, a.env, host, a.t, a.req, offsets, rec, false)
	if err != nil {
		return out, err
	}
	out.Warm = nil // the agent's figures for a warm sequence's cold step
	return fleet.VerifyInto(&out, a.t, states)
}

// warm is the sequence's instance on one agent, placed once; an emulated
// crash (warm.stop: kill) is refused, as it runs in this process only.
func (a agentModel) warm() (warmInstance, func(), error) {
	if a.req.Case.Warm.Kills() {
		return nil, nil, fmt.Errorf("warm: case %s: the model engine's emulated crash (warm.stop: kill) runs on this host only, not on agents", a.req.Case.Name)
	}
	host, done := a.host()
	return &agentModelWarm{env: a.env, t: a.t, req: a.req, host: host}, done, nil
}

// modelOnAgent has the agent of host's instance ksInstanceID run one
// model restore to offsets' ends: cold into its emptied state directory,
// or (warm) a restart on the stores its last restore left there. It
// returns the agent's record in rec's place, unverified, and what the
// stores held; on error, rec with the error.
func modelOnAgent(ctx context.Context, env *fleet.Env, host *fleet.AgentHost, t fleet.Target, req fleet.Request,
	offsets cluster.TopicOffsets, rec runs.Restore, warm bool) (runs.Restore, []loadgen.PartitionState, error) {
	fail := func(err error) (runs.Restore, []loadgen.PartitionState, error) {
		err = fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
		rec.Error = err.Error()
		return rec, nil, err
	}
	if req.Case.Queries != nil {
		return fail(errModelQueriesOnAgent)
	}
	on, err := host.Place(fleet.KSInstanceID)
	if err != nil {
		return fail(err)
	}
	env.Logf("restore: case %s #%d: the model restore runs on agent %s", req.Case.Name, req.Repeat, on)
	job := agent.ModelRestore{Case: agent.ModelCaseOf(req.Case), Repeat: req.Repeat, Topic: t.Topic, AppID: t.AppID, StoreName: t.StoreName,
		Start: offsets.Start, End: offsets.End, Ready: req.Ready, KeepState: req.KeepState, Warm: warm, StallTimeoutMs: env.StallTimeout.Milliseconds()}
	started := time.Now()
	got, err := env.Agents.ModelRestore(ctx, on, t.AppID, fleet.KSInstanceID, job)
	if err != nil {
		return fail(err)
	}
	out := got.Figures.Into(rec) // a verdict is this side's check's alone
	out.OnAgent = &runs.AgentPlace{Agent: on, Hostname: env.Agents.Hostname(on), StateDir: got.StateDir}
	if out.Phase == nil {
		return fail(fmt.Errorf("agent %s answered without the restore's phase", on))
	}
	if req.Limits != nil {
		out.Phase.Limits = req.Limits.For(out.Phase.MBPerSec)
	}
	env.Logf("restore: case %s #%d: agent %s restored %d records in %.2fs (%.1f s with the round trips)", req.Case.Name, req.Repeat, on,
		out.Records, out.Phase.Seconds, time.Since(started).Seconds())
	return out, got.States, nil
}

// errModelQueriesOnAgent: the model engine's query load reads its stores
// in the restoring process, and a model restore on an agent runs in the
// agent's.
var errModelQueriesOnAgent = errors.New("a model-engine query load reads the stores in the restoring process, and " +
	"this restore runs on an agent: run it without --agents, or without queries")

// agentModelWarm is the model engine's instance of a warm-restart
// sequence on an agent (`run --agents`): placed once, as a cold
// restore's, its stores stay on that agent's disk between the restarts
// (every step keeps them; the sequence removes them at the end unless
// the run keeps state), and every restart is verified here against the
// state the changelog holds then.
type agentModelWarm struct {
	env  *fleet.Env
	t    fleet.Target
	req  fleet.Request
	host *fleet.AgentHost
}

// restart has the agent restore: the cold step into the emptied state
// directory, the others from the offsets the stores committed.
func (m *agentModelWarm) restart(ctx context.Context, s warmRestart) (*runs.Restore, error) {
	rec, offsets, expected, err := beginStep(ctx, m.env, m.t, m.req, s)
	if err != nil {
		return nil, err
	}
	keep := m.req
	keep.KeepState = true // the restarts need the stores
	out, states, err := modelOnAgent(ctx, m.env, m.host, m.t, keep, offsets, rec, s.kind != runs.StepCold)
	if err != nil {
		return &out, err
	}
	if out.Warm == nil {
		out.Warm = &runs.WarmRecord{}
	}
	out.Warm.Step, out.Warm.Changed = s.kind, s.changed
	if s.kind != runs.StepCold {
		out.Warm.ColdSeconds = s.coldSeconds
	}
	for _, e := range expected {
		out.Warm.LiveBytes += e.LiveBytes
	}
	verified, err := fleet.VerifyInto(&out, fleet.Target{Expected: expected}, states)
	return &verified, err
}
