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

// coldModelOnAgent runs a model cold restore on an agent (`run
// --agents`): the instance is placed as a kafka-streams cold restore's
// one instance is (ksInstanceID, the profile's placement rules, else
// round robin), the agent restores into that instance's emptied state
// directory on its own disk and replies with the restore's record and
// what its stores hold, and this side verifies that against the fill's
// expected state. rec is the record begun for the restore (its partitions
// set).
func coldModelOnAgent(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, offsets cluster.TopicOffsets,
	rec runs.Restore) (runs.Restore, error) {
	host := fleet.NewAgentHost(env.Agents, t.AppID, req.Case)
	if !req.KeepState {
		defer host.Remove()
	}
	out, states, err := modelOnAgent(ctx, env, host, t, req, offsets, rec, false)
	if err != nil {
		return out, err
	}
	out.Warm = nil // the agent's figures for a warm sequence's cold step
	return fleet.VerifyInto(&out, t, states)
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
	job := agent.ModelRestore{Case: req.Case, Repeat: req.Repeat, Topic: t.Topic, AppID: t.AppID, StoreName: t.StoreName,
		Start: offsets.Start, End: offsets.End, Ready: req.Ready, KeepState: req.KeepState, Warm: warm, StallTimeoutMs: env.StallTimeout.Milliseconds()}
	started := time.Now()
	got, err := env.Agents.ModelRestore(ctx, on, t.AppID, fleet.KSInstanceID, job)
	if err != nil {
		return fail(err)
	}
	out := got.Record
	out.Case, out.Step, out.Repeat, out.Params, out.Topic, out.Partitions = rec.Case, rec.Step, rec.Repeat, rec.Params, rec.Topic, rec.Partitions
	out.OnAgent = &runs.AgentPlace{Agent: on, Hostname: env.Agents.Hostname(on), StateDir: got.StateDir}
	// Whatever the agent put there, only this side's check verifies.
	out.Verified, out.Error = false, ""
	if req.Limits != nil {
		out.Limits = req.Limits.For(out.MBPerSec)
	}
	env.Logf("restore: case %s #%d: agent %s restored %d records in %.2fs (%.1f s with the round trips)", req.Case.Name, req.Repeat, on,
		out.Records, out.DurationSeconds, time.Since(started).Seconds())
	return out, got.States, nil
}

// errModelQueriesOnAgent: the model engine's query load reads its stores
// in the restoring process, and a model restore on an agent runs in the
// agent's.
var errModelQueriesOnAgent = errors.New("a model-engine query load reads the stores in the restoring process, and " +
	"this restore runs on an agent: run it without --agents, or without queries")
