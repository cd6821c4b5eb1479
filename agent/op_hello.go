package agent

func init() {
	registerOp(opDef{name: OpHello, scope: scopeAgent, run: (*Agent).hello})
}

// hello answers the agent's facts (read once, at the start: java -version
// is a JVM of its own; the free space is read again) and labels.
func (a *Agent) hello(*Message, *agentProc) (*Message, error) {
	f := a.facts
	f.StateDirBytes, f.StateDirFree = diskSpace(a.cfg.StateDir)
	return &Message{Facts: &f, Labels: a.cfg.Labels}, nil
}
