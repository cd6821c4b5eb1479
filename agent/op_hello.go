package agent

import "github.com/restorebench/restorebench/runs"

// opHello asks an agent for its facts and labels (and, in the reply's
// Protocol, its protocol version).
var opHello = op[none, Hello]{name: OpHello, scope: scopeAgent,
	run: func(a *Agent, _ *Message, _ *none, _ *agentProc) (*Hello, error) { return a.hello(), nil }}

// Hello is a hello reply's result.
type Hello struct {
	Facts  runs.AgentFacts   `json:"facts"`
	Labels map[string]string `json:"labels,omitempty"`
}

func init() { opHello.register() }

// hello answers the agent's facts (read once, at the start: java -version
// is a JVM of its own; the free space is read again) and labels.
func (a *Agent) hello() *Hello {
	f := a.facts
	f.StateDirBytes, f.StateDirFree = diskSpace(a.cfg.StateDir)
	return &Hello{Facts: f, Labels: a.cfg.Labels}
}
