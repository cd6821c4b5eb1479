package agent

import (
	"context"

	"github.com/restorebench/restorebench/ksdriver"
)

func init() {
	registerOp(opDef{name: OpProcessID, scope: scopeInstance, run: func(a *Agent, m *Message, _ *agentProc) (*Message, error) {
		pid, err := ksdriver.ReadProcessID(a.stateDir(m.Run, m.Fleet, m.Instance), m.Fleet)
		return &Message{ProcessID: pid}, err
	}})
}

// ProcessID is Kafka Streams' process id of an instance on agent.
func (c *Coordinator) ProcessID(ctx context.Context, agent, fleet, instance string) (string, error) {
	r, err := c.Do(ctx, agent, &Message{Op: OpProcessID, Fleet: fleet, Instance: instance})
	if err != nil {
		return "", err
	}
	return r.ProcessID, nil
}
