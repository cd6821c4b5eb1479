package scenario

import (
	"context"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/runs"
)

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
