package agent

func init() {
	registerOp(opDef{name: OpStop, scope: scopeProcess, run: func(a *Agent, _ *Message, p *agentProc) (*Message, error) {
		err := p.inst.Stop(a.procCtx)
		<-p.forwarded
		return nil, err
	}})
}
