package scenario

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/ledger"
)

// agentHost runs a fleet's instances on agents (`run --agents`), which it
// commands and hears through Kafka topics (package agent). Each instance
// is placed, when it first starts, on the next agent in turn (round
// robin) and stays there, so its state directory outlives its processes
// there as on the local host. The fleet is the application.id: agents
// keep its instances under <agent state dir>/<run>/<fleet>/<instance>.
type agentHost struct {
	co    *agent.Coordinator
	fleet string

	mu       sync.Mutex
	placed   map[string]string    // instance → agent
	order    []string             // instances in placement order
	pidAsked map[string]time.Time // instance → when its process id was last asked for
}

// pidEvery is how often an instance's process id is asked for while it is
// unknown (the fleet asks at every look at the events).
const pidEvery = time.Second

func newAgentHost(co *agent.Coordinator, appID string) *agentHost {
	return &agentHost{co: co, fleet: appID, placed: map[string]string{}, pidAsked: map[string]time.Time{}}
}

// AgentOf is the agent instance id runs on, placing it on the next agent
// in turn when it has none yet.
func (h *agentHost) AgentOf(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a, ok := h.placed[id]; ok {
		return a
	}
	names := h.co.Names()
	a := names[len(h.order)%len(names)]
	h.placed[id] = a
	h.order = append(h.order, id)
	return a
}

// Start starts the process on its instance's agent; the agent sets
// state.dir and the client's connection settings.
func (h *agentHost) Start(ctx context.Context, spec ProcessSpec) (Process, error) {
	props := maps.Clone(spec.Properties)
	delete(props, "state.dir")
	p, err := h.co.Start(ctx, h.AgentOf(spec.ID), agent.ProcessSpec{Fleet: h.fleet, Instance: spec.ID, N: spec.N, Properties: props, JVMFlags: spec.JVMFlags, KafkaStreamsVersion: spec.KafkaStreamsVersion})
	if err != nil {
		return nil, err
	}
	return &agentProcess{Process: p}, nil
}

// WipeState deletes the instance's state directory on its agent.
func (h *agentHost) WipeState(id string) error {
	return h.co.Wipe(context.Background(), h.AgentOf(id), h.fleet, id)
}

// ProcessID asks the instance's agent for its process id, at most once a
// pidEvery while it is unknown ("" in between, or when the agent cannot
// say).
func (h *agentHost) ProcessID(id string) string {
	h.mu.Lock()
	if time.Since(h.pidAsked[id]) < pidEvery {
		h.mu.Unlock()
		return ""
	}
	h.pidAsked[id] = time.Now()
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pid, _ := h.co.ProcessID(ctx, h.AgentOf(id), h.fleet, id)
	return pid
}

// Remove deletes the fleet's directories on every agent it used (a lost
// agent's are left where they are).
func (h *agentHost) Remove() {
	h.mu.Lock()
	used := map[string]bool{}
	for _, a := range h.placed {
		used[a] = true
	}
	h.mu.Unlock()
	for a := range used {
		h.co.Remove(context.Background(), a, h.fleet)
	}
}

// agentProcess is a process on an agent; its balances come in the reply.
type agentProcess struct {
	*agent.Process
}

// Balances has the agent read the driver's balances and parses them.
func (p *agentProcess) Balances(ctx context.Context) (map[string]ledger.Sum, error) {
	tsv, err := p.BalancesTSV(ctx)
	if err != nil {
		return nil, err
	}
	return parseBalances(strings.NewReader(tsv), "balances of "+p.Hello().Instance+" on agent "+p.Agent())
}

// placer is a Host that runs instances elsewhere and says where.
type placer interface {
	AgentOf(id string) string
}

// newHost is the host a scenario's fleet runs on: the run's agents when
// it has them (env.Agents), else this machine, each instance under root
// (flat, or nested with nest, as newNestedLocalHost).
func newHost(env *Env, root, appID, nest string) (Host, error) {
	if env.Agents != nil {
		return newAgentHost(env.Agents, appID), nil
	}
	if nest != "" {
		return newNestedLocalHost(env, root, appID, nest)
	}
	return newLocalHost(env, root, appID)
}

// clockBound is the uncertainty, in seconds, of a time span from instance
// a's events to instance b's: the sum of their agents' clock bounds when
// they run on different agents, 0 on one host.
func (f *fleet) clockBound(a, b string) float64 {
	h, ok := f.host.(*agentHost)
	if !ok {
		return 0
	}
	ha, hb := h.AgentOf(a), h.AgentOf(b)
	if ha == hb {
		return 0
	}
	return float64(h.co.Clock(ha).BoundNs+h.co.Clock(hb).BoundNs) / 1e9
}

// placement names the agent of every instance the fleet started, nil on
// this machine.
func (f *fleet) placement() map[string]string {
	pl, ok := f.host.(placer)
	if !ok {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, p := range f.procs {
		out[p.id] = pl.AgentOf(p.id)
	}
	return out
}
