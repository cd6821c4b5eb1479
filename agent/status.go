package agent

import (
	"maps"
	"slices"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
)

// AgentStatus is what a coordinator knows of one of its agents now (the
// figures its metrics serve).
type AgentStatus struct {
	Name string
	// Heard says the agent was heard from; SinceHeard is how long ago.
	Heard      bool
	SinceHeard time.Duration
	// Lost says the coordinator gave the agent up (LostError).
	Lost bool
	// Clock is the agent's clock estimate (zero before its hello).
	Clock ClockEstimate
	// LeaseExpires is when the run's lease on the agent runs out unless
	// renewed: the last lease sent plus its TTL (zero: none sent).
	LeaseExpires time.Time
}

// Status is every agent's status, in placement order.
func (c *Coordinator) Status() []AgentStatus {
	now := ksdriver.NowMonoNs()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]AgentStatus, 0, len(c.cfg.Agents))
	for _, name := range c.cfg.Agents {
		a := c.agents[name]
		s := AgentStatus{Name: name, Heard: a.heard != 0, Lost: a.lost != nil, Clock: a.clock}
		if s.Heard {
			s.SinceHeard = time.Duration(now - a.heard)
		}
		if !a.leased.IsZero() {
			s.LeaseExpires = a.leased.Add(c.cfg.LeaseTTL)
		}
		out = append(out, s)
	}
	return out
}

// SelfStatus is an agent's own state now (the figures its metrics serve).
type SelfStatus struct {
	Name string
	// Processes are the driver processes it runs, Starting those whose
	// start is under way.
	Processes, Starting int
	// InFlight counts the commands executing.
	InFlight int
	// Leases are the runs it follows, by run id.
	Leases []RunLease
	// Refused counts the records and commands refused since it started,
	// by reason.
	Refused map[string]int64
}

// RunLease is one run an agent follows.
type RunLease struct {
	Run string
	// Expires is when its lease runs out unless renewed.
	Expires time.Time
	// Expired: it ran out and the run's processes were stopped.
	Expired bool
}

// Status is the agent's own state.
func (a *Agent) Status() SelfStatus {
	refused := a.refused()
	a.mu.Lock()
	defer a.mu.Unlock()
	s := SelfStatus{Name: a.cfg.Name, Processes: len(a.procs), Starting: len(a.starting), InFlight: a.inFlight, Refused: refused}
	for _, run := range slices.Sorted(maps.Keys(a.leases)) {
		l := a.leases[run]
		s.Leases = append(s.Leases, RunLease{Run: run, Expires: l.seen.Add(l.ttl), Expired: l.expired})
	}
	return s
}
