package agent

import (
	"context"
	"os"
	"path/filepath"
)

func init() {
	opRemove.register()
}

// opRemove deletes a fleet's directories.
var opRemove = op[none, none]{name: OpRemove, scope: scopeFleet,
	run: func(a *Agent, m *Message, _ *none, _ *agentProc) (*none, error) { return nil, a.remove(m.Run, m.Fleet) }}

// remove deletes a fleet's directories (and the run's, once empty).
func (a *Agent) remove(run, fleet string) error {
	if err := a.removeOwn(run, fleet); err != nil {
		return err // a link among them is left as it is, the run's too
	}
	os.Remove(filepath.Join(a.cfg.StateDir, run)) // only when empty
	return nil
}

// Remove deletes a fleet's directories on agent.
func (c *Coordinator) Remove(ctx context.Context, agent, fleet string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	_, err := opRemove.call(ctx, c, agent, &Message{Fleet: fleet}, none{})
	return err
}
