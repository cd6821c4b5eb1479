package agent

// opClock estimates an agent's clock (EstimateClock): its reply says when
// the command came, in the agent's CLOCK_MONOTONIC, and the reply's
// MonoNs when it left.
var opClock = op[none, Clocked]{name: OpClock, scope: scopeAgent}

// Clocked is a clock reply's result.
type Clocked struct {
	// RecvMonoNs is the agent's CLOCK_MONOTONIC when the command came.
	RecvMonoNs int64 `json:"recv_mono_ns"`
}

func init() {
	// Answered by the read loop itself, at once (Agent.command), so that
	// its times are the agent's at receipt and at reply with nothing in
	// between.
	opClock.register()
}
