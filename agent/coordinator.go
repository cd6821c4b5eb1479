package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// Defaults of CoordinatorConfig.
const (
	// DefaultAgentWait bounds the wait for every named agent to be heard.
	DefaultAgentWait = 30 * time.Second
	// DefaultHeartbeatTimeout: an agent not heard from for this long is
	// lost (it heartbeats every second).
	DefaultHeartbeatTimeout = 5 * time.Second
	// DefaultClockRounds is how many clock round trips an estimate is the
	// best of.
	DefaultClockRounds = 8
	// resendEvery is how long a command waits for its reply before it is
	// sent again, with the same id (the agent executes it once).
	resendEvery = 5 * time.Second
)

// ErrAgentLost is what every error about a lost agent wraps.
var ErrAgentLost = errors.New("agent lost")

// LostError says which agent was lost and how.
type LostError struct {
	Agent string
	Why   string
}

func (e *LostError) Error() string { return fmt.Sprintf("agent %s lost: %s", e.Agent, e.Why) }

// Unwrap makes errors.Is(err, ErrAgentLost) hold.
func (e *LostError) Unwrap() error { return ErrAgentLost }

// CoordinatorConfig configures the coordinator's side.
type CoordinatorConfig struct {
	// Cluster is how the coordinator reaches the brokers. Required.
	Cluster cluster.Config
	// Agents are the agents' names, in placement order. Required unless
	// Any is set.
	Agents []string
	// Any, instead of Agents, takes Any agents from those on the control
	// topic (`run --agents any:N`): once Any have been heard (within Wait),
	// it listens 2 s more and takes the first Any by name of all heard,
	// placed in that order. Default 0: Agents names them.
	Any int
	// Run is the run id every command carries. Default NewRunID().
	Run string
	// Wait bounds the wait for every agent to be heard. Default 30 s.
	Wait time.Duration
	// HeartbeatTimeout: an agent silent this long is lost. Default 5 s.
	HeartbeatTimeout time.Duration
	// LeaseTTL is the run's lease: agents stop its processes when no lease
	// or command from it came for this long. Default DefaultLeaseTTL (10 s).
	LeaseTTL time.Duration
	// ClockRounds is how many round trips each clock estimate is the best
	// of. Default 8.
	ClockRounds int
	// Logf writes one progress line. Default: nothing.
	Logf func(format string, args ...any)
	// Key signs every command and lease and verifies every agent record
	// acted on (sign.go); the agents must hold the same key. Required
	// unless Insecure.
	Key *Key
	// Insecure sends unsigned commands and accepts unsigned agent records
	// (agents run with --insecure). Default false.
	Insecure bool
	// MaxSkew is how far a signed record's timestamp may lie from this
	// host's clock. Default DefaultMaxSkew (2 min).
	MaxSkew time.Duration
}

// NewRunID is a run id unique enough for runs sharing a cluster.
func NewRunID() string {
	return "rb-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// Coordinator commands agents and reads their processes' events.
type Coordinator struct {
	cfg    CoordinatorConfig
	bus    *bus
	cancel context.CancelFunc
	loops  sync.WaitGroup
	seq    atomic.Int64

	// verify checks every agent record the coordinator acts on.
	verify *verifier
	// opened is when Open began.
	opened time.Time

	mu sync.Mutex
	// choosing is set while an any:N coordinator gathers the agents it
	// hears, until awaitAgents picks N of them.
	choosing bool
	enough   time.Time // when an any:N coordinator had heard N agents
	agents   map[string]*agentState
	pending  map[string]*pending
	procs    map[procKey]*Process
	// placement are the rules instances are placed by (SetPlacement).
	placement []config.PlacementRule
}

// agentState is what the coordinator knows of one agent.
type agentState struct {
	info  runs.Agent
	clock ClockEstimate
	heard int64 // the coordinator's clock when last heard from (0: never)
	lost  *LostError
	// started is when the agent's process started, by its hello (0 before).
	started int64
	// leased is when the last lease was sent to it (zero: none yet).
	leased time.Time
}

// pending is a command waiting for its reply.
type pending struct {
	agent string
	ch    chan reply // buffered 1
	// parts are the reply's parts received, when it comes in parts; have
	// counts them.
	parts [][]byte
	have  int
}

type reply struct {
	m    *Message
	recv int64 // the coordinator's clock when it was read
	err  error
}

// Open connects, waits until every agent is heard, learns their facts,
// estimates their clocks and starts the run's lease.
func Open(ctx context.Context, cfg CoordinatorConfig) (*Coordinator, error) {
	opened := time.Now()
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	b, err := openBus(ctx, cfg.Cluster, cfg.Key, ControlTopic, EventsTopic)
	if err != nil {
		return nil, err
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	c := &Coordinator{cfg: cfg, bus: b, cancel: cancel, opened: opened,
		agents: map[string]*agentState{}, pending: map[string]*pending{}, procs: map[procKey]*Process{},
		verify: newVerifier(cfg.Key, cfg.MaxSkew, "coordinator of run "+cfg.Run, cfg.Logf)}
	for _, name := range cfg.Agents {
		c.agents[name] = &agentState{info: runs.Agent{Name: name}}
	}
	c.choosing = cfg.Any > 0
	c.loops.Add(1)
	go func() { defer c.loops.Done(); c.read(loopCtx) }()
	if err := c.awaitAgents(ctx); err != nil {
		c.Close()
		return nil, err
	}
	c.loops.Add(2)
	go func() { defer c.loops.Done(); c.watch(loopCtx) }()
	go func() { defer c.loops.Done(); c.leases(loopCtx) }()
	for _, name := range c.Names() {
		if err := c.introduce(ctx, name); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func (cfg *CoordinatorConfig) defaults() error {
	switch {
	case cfg.Any < 0:
		return fmt.Errorf("any:%d agents: the count must be positive", cfg.Any)
	case cfg.Any > 0 && len(cfg.Agents) > 0:
		return errors.New("name the agents or ask for any N of them, not both")
	case cfg.Any == 0 && len(cfg.Agents) == 0:
		return errors.New("no agents named")
	}
	seen := map[string]bool{}
	for _, a := range cfg.Agents {
		if err := checkName("agent name", a); err != nil {
			return err
		}
		if seen[a] {
			return fmt.Errorf("agent %s named twice", a)
		}
		seen[a] = true
	}
	if cfg.Run == "" {
		cfg.Run = NewRunID()
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultAgentWait
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.ClockRounds <= 0 {
		cfg.ClockRounds = DefaultClockRounds
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Key == nil && !cfg.Insecure {
		return errors.New("a signing key is required to command agents (--control-key-file, the key the agents were started with); " +
			"or run this coordinator with --insecure-agents and the agents with `agent --insecure`, where the cluster's ACLs let only you write to " + ControlTopic)
	}
	return checkName("run", cfg.Run)
}

// Run is the run id its commands carry.
func (c *Coordinator) Run() string { return c.cfg.Run }

// Names are the agents, in placement order.
func (c *Coordinator) Names() []string { return append([]string(nil), c.cfg.Agents...) }

// Agents describe every agent: facts, labels, clock.
func (c *Coordinator) Agents() []runs.Agent {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]runs.Agent, 0, len(c.cfg.Agents))
	for _, name := range c.cfg.Agents {
		out = append(out, c.agents[name].info)
	}
	return out
}

// Hostname is the host agent runs on, as it said in its hello ("" for
// an agent not of this run).
func (c *Coordinator) Hostname(agent string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.agents[agent]; a != nil {
		return a.info.Facts.Hostname
	}
	return ""
}

// Clock is agent's clock estimate.
func (c *Coordinator) Clock(agent string) ClockEstimate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.agents[agent]; a != nil {
		return a.clock
	}
	return ClockEstimate{}
}

// Close stops reading and leasing. Agents stop whatever of this run still
// runs once the lease expires.
func (c *Coordinator) Close() {
	c.cancel()
	c.bus.close()
	c.loops.Wait()
}

// awaitAgents waits until every agent has been heard from (with Any,
// until Any agents have been, and then keeps those).
func (c *Coordinator) awaitAgents(ctx context.Context) error {
	err := poll.Until(ctx, 100*time.Millisecond, c.cfg.Wait, "", func(context.Context) (bool, error) { return c.heardEnough() })
	if errors.Is(err, poll.ErrTimeout) {
		return c.notHeard()
	}
	return err
}

// heardEnough says whether every named agent has been heard, or for Any,
// picks the Any first by name once that many have been.
func (c *Coordinator) heardEnough() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.choosing {
		for _, name := range c.cfg.Agents {
			if c.agents[name].heard == 0 {
				return false, nil
			}
		}
		return true, nil
	}
	names := slices.Sorted(maps.Keys(c.agents))
	if len(names) < c.cfg.Any {
		return false, nil
	}
	// Every live agent heartbeats about once a second: wait a little after
	// the Any-th is heard, so the choice by name is among all of them and
	// the same on every run.
	if c.enough.IsZero() {
		c.enough = time.Now()
	}
	if time.Since(c.enough) < anySettle {
		return false, nil
	}
	c.cfg.Agents, c.choosing = names[:c.cfg.Any], false
	for _, name := range names[c.cfg.Any:] {
		delete(c.agents, name)
	}
	c.cfg.Logf("agents: any:%d took %s of the %d heard on %s", c.cfg.Any, strings.Join(c.cfg.Agents, ", "), len(names), ControlTopic)
	return true, nil
}

// notHeard is the error for the agents not heard from within Wait.
func (c *Coordinator) notHeard() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.choosing {
		heard := slices.Sorted(maps.Keys(c.agents))
		return fmt.Errorf("any:%d agents: only %d heard from on %s within %s (%s): "+
			"start more `restorebench agent --name NAME` against these brokers, or ask for fewer",
			c.cfg.Any, len(heard), ControlTopic, c.cfg.Wait, orNone(heard))
	}
	var missing []string
	for _, name := range c.cfg.Agents {
		if c.agents[name].heard == 0 {
			missing = append(missing, name)
		}
	}
	return fmt.Errorf("agent(s) %s not heard from on %s within %s: is `restorebench agent --name NAME` running against these brokers?",
		strings.Join(missing, ", "), ControlTopic, c.cfg.Wait)
}

// anySettle is how long an any:N coordinator goes on listening once it has
// heard N agents before it picks N of them by name: two of the agents'
// default heartbeats.
const anySettle = 2 * time.Second

// orNone lists names, or says none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// introduce asks an agent for its facts and estimates its clock.
func (c *Coordinator) introduce(ctx context.Context, name string) error {
	r, _, err := c.do(ctx, name, opHello.command(&Message{}, none{}))
	if err != nil {
		return err
	}
	if r.Protocol != ProtocolVersion {
		return fmt.Errorf("agent %s: %w", name, versionErr(r.Protocol))
	}
	hello, err := opHello.result(name, r)
	if err != nil {
		return err
	}
	var samples []ClockSample
	for range c.cfg.ClockRounds {
		t0 := ksdriver.NowMonoNs()
		r, t3, err := c.do(ctx, name, opClock.command(&Message{}, none{}))
		if err != nil {
			return err
		}
		clocked, err := opClock.result(name, r)
		if err != nil {
			return err
		}
		samples = append(samples, ClockSample{T0: t0, T1: clocked.RecvMonoNs, T2: r.MonoNs, T3: t3})
	}
	est, err := EstimateClock(samples)
	if err != nil {
		return fmt.Errorf("agent %s: %w", name, err)
	}
	c.mu.Lock()
	a := c.agents[name]
	a.clock = est
	a.info.Facts = hello.Facts
	a.started = hello.Facts.StartedWallMs
	a.info.Labels = hello.Labels
	a.info.ClockOffsetNs, a.info.ClockBoundNs, a.info.ClockRoundTrips = est.OffsetNs, est.BoundNs, est.Samples
	c.mu.Unlock()
	c.cfg.Logf("agent %s: %s, %d CPUs, %d MiB; clock offset %.3f ms ± %.3f ms (best of %d round trips)", name, a.info.Facts.Hostname,
		a.info.Facts.CPUs, a.info.Facts.MemoryBytes>>20, float64(est.OffsetNs)/1e6, float64(est.BoundNs)/1e6, est.Samples)
	return nil
}

// Do sends a command to an agent and returns its reply; a reply that
// says the command failed is an error naming the agent.
func (c *Coordinator) Do(ctx context.Context, agent string, m *Message) (*Message, error) {
	r, _, err := c.do(ctx, agent, m)
	return r, err
}

// do is Do, also returning when the reply was read. It resends the command
// (same id) every resendEvery until the reply, the agent's loss or ctx.
func (c *Coordinator) do(ctx context.Context, agent string, m *Message) (*Message, int64, error) {
	m.Type, m.Agent, m.Run, m.Protocol = TypeCommand, agent, c.cfg.Run, ProtocolVersion
	m.ID = "c" + strconv.FormatInt(c.seq.Add(1), 10)
	p := &pending{agent: agent, ch: make(chan reply, 1)}
	c.mu.Lock()
	a := c.agents[agent]
	switch {
	case a == nil:
		c.mu.Unlock()
		return nil, 0, fmt.Errorf("agent %s is not one of this run's (%s)", agent, strings.Join(c.cfg.Agents, ", "))
	case a.lost != nil:
		c.mu.Unlock()
		return nil, 0, a.lost
	}
	c.pending[m.ID] = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, m.ID)
		c.mu.Unlock()
	}()
	t := time.NewTicker(resendEvery)
	defer t.Stop()
	for {
		m.MonoNs = ksdriver.NowMonoNs()
		if err := c.bus.send(ctx, ControlTopic, agent, m.Encode()); err != nil {
			return nil, 0, fmt.Errorf("agent %s: %s: %w", agent, m.Op, err)
		}
		select {
		case r := <-p.ch:
			if r.err != nil {
				return nil, 0, r.err
			}
			if !r.m.OK {
				return r.m, r.recv, fmt.Errorf("agent %s: %s%s: %s", agent, m.Op, describe(m), r.m.Error)
			}
			return r.m, r.recv, nil
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("agent %s: %s%s: no reply: %w", agent, m.Op, describe(m), ctx.Err())
		case <-t.C:
		}
	}
}

// describe names the process or instance a command is about.
func describe(m *Message) string {
	switch {
	case m.Op == OpStart || m.Op == OpSend || m.Op == OpStop || m.Op == OpKill || m.Op == OpFetch:
		return fmt.Sprintf(" of %s process %d", m.Instance, m.N)
	case m.Instance != "":
		return " of " + m.Instance
	}
	return ""
}

// read routes what the topics carry until ctx ends.
func (c *Coordinator) read(ctx context.Context) {
	for {
		recs, err := c.bus.poll(ctx)
		if ctx.Err() != nil || errors.Is(err, errClosed) {
			return
		}
		if err != nil {
			c.cfg.Logf("agents: %v", err)
			pause(ctx, pollErrorPause)
		}
		recv := ksdriver.NowMonoNs()
		for _, r := range recs {
			if !c.concerns(r) || c.bus.sig.own(r) || !c.verify.accept(r) {
				continue
			}
			switch r.Topic {
			case ControlTopic:
				if m, err := DecodeMessage(r.Value); err == nil {
					if m.Type == TypeBye && signedBefore(r, c.opened) {
						// Of a process that stopped before this run began
						// (read from the end then, this coordinator sees
						// it only replayed): it says nothing of the agent
						// this run talks to, which a silence would lose.
						continue
					}
					c.control(m, recv)
				}
			case EventsTopic:
				c.event(r.Value)
			}
		}
	}
}

// concerns says whether a record is one the coordinator would act on,
// before it is verified: a control record keyed by one of its agents (or
// by any agent while an any:N coordinator chooses), an events record keyed
// by its run. Other runs' and other deployments' records, signed with
// other keys, are passed over without counting them as refused.
func (c *Coordinator) concerns(r *kgo.Record) bool {
	if r.Topic == EventsTopic {
		return strings.HasPrefix(string(r.Key), c.cfg.Run+"/")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agents[string(r.Key)] != nil || c.choosing
}

// Refused are the agent records the coordinator refused, by reason.
func (c *Coordinator) Refused() map[string]int64 { return c.verify.counts() }

// control notes an agent's message: any is a sign of life; a bye loses
// it; a reply goes to its command.
func (c *Coordinator) control(m *Message, recv int64) {
	c.mu.Lock()
	a := c.agents[m.Agent]
	if a == nil && c.choosing && (m.Type == TypeAnnounce || m.Type == TypeHeartbeat) && checkName("agent name", m.Agent) == nil {
		a = &agentState{info: runs.Agent{Name: m.Agent}}
		c.agents[m.Agent] = a
	}
	if a == nil {
		c.mu.Unlock()
		return
	}
	if m.Type != TypeCommand && m.Type != TypeLease {
		a.heard = recv
	}
	var p *pending
	if m.Type == TypeReply && m.Run == c.cfg.Run {
		p = c.pending[m.ID]
	}
	var partErr error
	if m.Type == TypeReplyPart {
		var whole *Message
		if whole, partErr = c.replyPart(m); whole != nil || partErr != nil {
			p = c.pending[m.ID]
		}
		if whole != nil {
			m = whole
		}
	}
	// A restart is a process that started after the one that answered
	// the hello: an earlier one's announce is a replay (its replay state
	// is the coordinator's, which is new with each run).
	restarted := m.Type == TypeAnnounce && a.started != 0 && m.Facts != nil && m.Facts.StartedWallMs > a.started
	c.mu.Unlock()
	switch {
	case m.Type == TypeBye:
		c.lose(m.Agent, "it shut down (it said bye)")
	case restarted:
		// A new agent process under the name: the old one's instances
		// died with it, without a word.
		c.lose(m.Agent, "it restarted (a new agent process announced itself under its name): its instances are gone")
	case p != nil && p.agent == m.Agent:
		select {
		case p.ch <- reply{m: m, recv: recv, err: partErr}:
		default:
		}
	}
}

// watch loses every agent not heard from within HeartbeatTimeout.
func (c *Coordinator) watch(ctx context.Context) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := ksdriver.NowMonoNs()
		var silent []string
		var gaps []time.Duration
		c.mu.Lock()
		for _, name := range c.cfg.Agents {
			a := c.agents[name]
			if gap := time.Duration(now - a.heard); a.lost == nil && gap > c.cfg.HeartbeatTimeout {
				silent, gaps = append(silent, name), append(gaps, gap)
			}
		}
		c.mu.Unlock()
		for i, name := range silent {
			c.lose(name, fmt.Sprintf("it stopped heartbeating: nothing from it on %s for %.1f s (limit %s)", ControlTopic, gaps[i].Seconds(), c.cfg.HeartbeatTimeout))
		}
	}
}

// lose marks an agent lost: its commands fail and its processes end, each
// with the one error that names it.
func (c *Coordinator) lose(name, why string) {
	c.mu.Lock()
	a := c.agents[name]
	if a == nil || a.lost != nil {
		c.mu.Unlock()
		return
	}
	a.lost = &LostError{Agent: name, Why: why}
	var waiting []*pending
	for _, p := range c.pending {
		if p.agent == name {
			waiting = append(waiting, p)
		}
	}
	var procs []*Process
	for _, p := range c.procs {
		if p.agent == name {
			procs = append(procs, p)
		}
	}
	err := a.lost
	c.mu.Unlock()
	c.cfg.Logf("agents: %v", err)
	for _, p := range waiting {
		select {
		case p.ch <- reply{err: err}:
		default:
		}
	}
	for _, p := range procs {
		p.end(err)
	}
}

// Lost is the error of a lost agent, nil while it is up.
func (c *Coordinator) Lost(agent string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.agents[agent]; a != nil && a.lost != nil {
		return a.lost
	}
	return nil
}

// leases tells every agent up that the run is alive, every second.
func (c *Coordinator) leases(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		for _, name := range c.cfg.Agents {
			if c.Lost(name) != nil {
				continue
			}
			m := &Message{Type: TypeLease, Agent: name, Run: c.cfg.Run, TTLMs: c.cfg.LeaseTTL.Milliseconds(), MonoNs: ksdriver.NowMonoNs()}
			c.bus.sendAsync(ctx, ControlTopic, name, m.Encode(), nil)
			c.mu.Lock()
			c.agents[name].leased = time.Now()
			c.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
