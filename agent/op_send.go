package agent

import (
	"fmt"
)

func init() {
	registerOp(opDef{name: OpSend, scope: scopeProcess, check: checkSend,
		run: func(_ *Agent, m *Message, p *agentProc) (*Message, error) { return nil, p.inst.Send(m.Line) }})
}

// sendLines are the driver commands a send may carry: the file commands
// (balances, entries) go by fetch, whose path the agent chooses, and
// nothing else reaches a driver's standard input.
var sendLines = map[string]bool{"stop": true, "digest": true, "digest all": true}

// checkSend allows only the driver commands of sendLines.
func checkSend(m *Message) error {
	if !sendLines[m.Line] {
		return fmt.Errorf("send %.40q: a driver command line is one of stop, digest, digest all", m.Line)
	}
	return nil
}
