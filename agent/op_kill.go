package agent

func init() {
	registerOp(opDef{name: OpKill, scope: scopeProcess, run: func(_ *Agent, _ *Message, p *agentProc) (*Message, error) {
		at := p.inst.KillNow()
		<-p.forwarded
		return &Message{AtMonoNs: at}, nil
	}})
}
