package fleet

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/config"
)

// AgentHost runs a fleet's instances on agents (`run --agents`), which it
// commands and hears through Kafka topics (package agent). Each instance
// is placed, when it first starts, by the coordinator (Coordinator.Place:
// the profile's placement rules by the instance's id and its role in the
// case's scenario, else round robin) and stays there, so its state
// directory outlives its processes there as on the local host. The fleet
// is the application.id: agents keep its instances under <agent state
// dir>/<run>/<fleet>/<instance>.
type AgentHost struct {
	co    *agent.Coordinator
	fleet string
	c     config.Case // whose scenario gives each instance its role

	mu       sync.Mutex
	placed   map[string]string    // instance → agent
	pidAsked map[string]time.Time // instance → when its process id was last asked for
}

// pidEvery is how often an instance's process id is asked for while it is
// unknown (the fleet asks at every look at the events).
const pidEvery = time.Second

func NewAgentHost(co *agent.Coordinator, appID string, c config.Case) *AgentHost {
	return &AgentHost{co: co, fleet: appID, c: c, placed: map[string]string{}, pidAsked: map[string]time.Time{}}
}

// Place is the agent instance id runs on, placing it when it has none yet.
func (h *AgentHost) Place(id string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a, ok := h.placed[id]; ok {
		return a, nil
	}
	load := map[string]int{}
	for _, a := range h.placed {
		load[a]++
	}
	a, err := h.co.Place(id, config.RoleOf(h.c, id), load)
	if err != nil {
		return "", err
	}
	h.placed[id] = a
	return a, nil
}

// AgentOf is the agent instance id runs on, placing it when it has none
// yet ("" when it cannot be placed: Start says why).
func (h *AgentHost) AgentOf(id string) string {
	a, _ := h.Place(id)
	return a
}

// Start starts the process on its instance's agent; the agent sets
// state.dir and the client's connection settings.
// The agent checks spec.NeedBytes free in the instance's state directory.
func (h *AgentHost) Start(ctx context.Context, spec ProcessSpec) (Process, error) {
	on, err := h.Place(spec.ID)
	if err != nil {
		return nil, err
	}
	props := maps.Clone(spec.Properties)
	delete(props, "state.dir")
	p, err := h.co.Start(ctx, on, agent.ProcessSpec{Fleet: h.fleet, Instance: spec.ID, N: spec.N, Properties: props, JVMFlags: spec.JVMFlags,
		KafkaStreamsVersion: spec.KafkaStreamsVersion, NeedBytes: spec.NeedBytes})
	if err != nil {
		return nil, err
	}
	return &agentProcess{Process: p}, nil
}

// Fresh wipes the instance's state directory on its agent: only
// restorebench keeps state there (an earlier repeat of this run's).
func (h *AgentHost) Fresh(id string) error { return h.WipeState(id) }

// DiskBytes asks the instance's agent.
func (h *AgentHost) DiskBytes(ctx context.Context, id string) (int64, error) {
	return h.co.DiskUsage(ctx, h.AgentOf(id), h.fleet, id)
}

// LocalAppDir is "": the instance's files are on its agent's disk.
func (h *AgentHost) LocalAppDir(string) string { return "" }

// Where is the instance's agent.
func (h *AgentHost) Where(id string) string { return h.AgentOf(id) }

// ClockBoundNs is the bound of the instance's agent's clock offset.
func (h *AgentHost) ClockBoundNs(id string) int64 { return h.co.Clock(h.AgentOf(id)).BoundNs }

// WipeState deletes the instance's state directory on its agent.
func (h *AgentHost) WipeState(id string) error {
	return h.co.Wipe(context.Background(), h.AgentOf(id), h.fleet, id)
}

// ProcessID asks the instance's agent for its process id, at most once a
// pidEvery while it is unknown ("" in between, or when the agent cannot
// say).
func (h *AgentHost) ProcessID(id string) string {
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
func (h *AgentHost) Remove() {
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

// agentProcess is a process on an agent; the files of its file commands
// come in the fetch reply (agent.Process.Fetch).
type agentProcess struct {
	*agent.Process
}

// PID is 0: the JVM's pid is the agent host's.
func (*agentProcess) PID() int { return 0 }

func init() {
	RegisterHostKind(HostKind{Name: "agents", For: func(env *Env, req Request, _, appID string, _ Layout) (Host, bool, error) {
		if env.Agents == nil {
			return nil, false, nil
		}
		return NewAgentHost(env.Agents, appID, req.Case), true, nil
	}})
}

// ClockBound is the uncertainty, in seconds, of a time span from instance
// a's events to instance b's: the sum of their clocks' bounds when they
// run in different places, 0 in one.
func (f *Fleet) ClockBound(a, b string) float64 {
	if f.Host.Where(a) == f.Host.Where(b) {
		return 0
	}
	return float64(f.Host.ClockBoundNs(a)+f.Host.ClockBoundNs(b)) / 1e9
}

// Placement names the agent of every instance the fleet started, nil on
// this machine.
func (f *Fleet) Placement() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, p := range f.Procs {
		if where := f.Host.Where(p.ID); where != "" {
			out[p.ID] = where
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
