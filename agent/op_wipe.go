package agent

import (
	"context"
	"fmt"
)

func init() {
	opWipe.register()
}

// opWipe deletes an instance's state directory.
var opWipe = op[none, none]{name: OpWipe, scope: scopeInstance,
	run: func(a *Agent, m *Message, _ *none, _ *agentProc) (*none, error) { return nil, a.wipe(m) }}

// wipe deletes an instance's state directory; none of its processes may run
// or be starting.
func (a *Agent) wipe(m *Message) error {
	a.mu.Lock()
	for k := range a.procs {
		if k.run == m.Run && k.fleet == m.Fleet && k.instance == m.Instance {
			a.mu.Unlock()
			return fmt.Errorf("instance %s still runs (process %d): its state directory is in use", m.Instance, k.n)
		}
	}
	for k := range a.starting {
		if k.run == m.Run && k.fleet == m.Fleet && k.instance == m.Instance {
			a.mu.Unlock()
			return fmt.Errorf("instance %s is starting (process %d): its state directory is about to be in use", m.Instance, k.n)
		}
	}
	a.mu.Unlock()
	return a.removeOwn(m.Run, m.Fleet, m.Instance, "state")
}

// Wipe deletes an instance's state directory on agent.
func (c *Coordinator) Wipe(ctx context.Context, agent, fleet, instance string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	_, err := opWipe.call(ctx, c, agent, &Message{Fleet: fleet, Instance: instance}, none{})
	return err
}
