package agent

import (
	"fmt"
)

func init() {
	opSend.register()
}

// opSend writes a command line to a process's standard input.
var opSend = op[SendArgs, none]{name: OpSend, scope: scopeProcess, check: checkSend,
	run: func(_ *Agent, _ *Message, args *SendArgs, p *agentProc) (*none, error) {
		return nil, p.inst.Send(args.Line)
	}}

// SendArgs are a send's arguments.
type SendArgs struct {
	// Line is the driver command, one of sendLines.
	Line string `json:"line"`
}

// sendLines are the driver commands a send may carry: the file commands
// (balances, entries) go by fetch, whose path the agent chooses, and
// nothing else reaches a driver's standard input.
var sendLines = map[string]bool{"stop": true, "digest": true, "digest all": true}

// checkSend allows only the driver commands of sendLines.
func checkSend(_ *Message, args *SendArgs) error {
	if !sendLines[args.Line] {
		return fmt.Errorf("send %.40q: a driver command line is one of stop, digest, digest all", args.Line)
	}
	return nil
}
