package agent

import (
	"context"

	"github.com/restorebench/restorebench/ksdriver"
)

func init() {
	opProcessID.register()
}

// opProcessID reads Kafka Streams' process id of an instance from its
// state directory.
var opProcessID = op[none, ProcessIDOf]{name: OpProcessID, scope: scopeInstance,
	run: func(a *Agent, m *Message, _ *none, _ *agentProc) (*ProcessIDOf, error) {
		pid, err := ksdriver.ReadProcessID(a.stateDir(m.Run, m.Fleet, m.Instance), m.Fleet)
		return &ProcessIDOf{ProcessID: pid}, err
	}}

// ProcessIDOf is a process_id reply's result.
type ProcessIDOf struct {
	ProcessID string `json:"process_id"`
}

// ProcessID is Kafka Streams' process id of an instance on agent.
func (c *Coordinator) ProcessID(ctx context.Context, agent, fleet, instance string) (string, error) {
	r, err := opProcessID.call(ctx, c, agent, &Message{Fleet: fleet, Instance: instance}, none{})
	if err != nil {
		return "", err
	}
	return r.ProcessID, nil
}
