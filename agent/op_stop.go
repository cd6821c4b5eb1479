package agent

// opStop stops a process cleanly and replies once it ended.
var opStop = op[none, none]{name: OpStop, scope: scopeProcess,
	run: func(a *Agent, _ *Message, _ *none, p *agentProc) (*none, error) {
		err := p.inst.Stop(a.procCtx)
		<-p.forwarded
		return nil, err
	}}

func init() { opStop.register() }
