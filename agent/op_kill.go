package agent

// opKill SIGKILLs a process and replies once it ended.
var opKill = op[none, Killed]{name: OpKill, scope: scopeProcess,
	run: func(_ *Agent, _ *Message, _ *none, p *agentProc) (*Killed, error) {
		at := p.inst.KillNow()
		<-p.forwarded
		return &Killed{AtMonoNs: at}, nil
	}}

// Killed is a kill reply's result.
type Killed struct {
	// AtMonoNs is when the agent sent SIGKILL, in its CLOCK_MONOTONIC.
	AtMonoNs int64 `json:"at_mono_ns"`
}

func init() { opKill.register() }
