package agent

func init() {
	// Answered by the read loop itself, at once (Agent.command), so that
	// its times are the agent's at receipt and at reply with nothing in
	// between.
	registerOp(opDef{name: OpClock, scope: scopeAgent})
}
