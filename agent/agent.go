package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// Defaults of Config.
const (
	// DefaultHeartbeat is how often an agent says it is up.
	DefaultHeartbeat = time.Second
	// DefaultLeaseTTL is a run's lease when its leases name none.
	DefaultLeaseTTL = 10 * time.Second
	// DefaultStopTimeout bounds a clean stop of the processes of a run
	// whose lease expired, or of every process when the agent shuts down,
	// before they are killed.
	DefaultStopTimeout = 15 * time.Second
)

// Config configures an agent.
type Config struct {
	// Cluster is how the agent, and every Kafka Streams process it starts,
	// reach the brokers: its own --brokers and security settings. Secrets
	// (the SASL password, keys) stay on the agent's host: a coordinator
	// never sends any, and the agent hands them to its processes through
	// ksdriver's secrets file. Required.
	Cluster cluster.Config
	// Name is the agent's name: commands are addressed to it, so it must be
	// unique among the agents on the cluster. Required.
	Name string
	// StateDir holds every process's state.dir and own directory, under
	// <StateDir>/<run>/<fleet>/<instance>. Required.
	StateDir string
	// Labels are free key=value facts recorded with the agent (zone=a).
	Labels map[string]string
	// ToolVersion is the restorebench version it announces.
	ToolVersion string
	// Heartbeat is how often it heartbeats. Default 1 s.
	Heartbeat time.Duration
	// StopTimeout bounds the clean stops of a shutdown or an expired
	// lease before a kill. Default 15 s.
	StopTimeout time.Duration
	// Lib and Java are the driver's lib directory and the java binary.
	// Default ksdriver.FindLib() and FindJava().
	Lib, Java string
	// Logf writes one progress line. Default: nothing.
	Logf func(format string, args ...any)
	// ModelRestore runs the model-engine restores coordinators ask for
	// (OpModelRestore); `restorebench agent` sets the model engine's.
	// Default nil: such commands fail, saying so.
	ModelRestore ModelRestorer
	// Fill runs the fills coordinators ask for (OpFill); `restorebench
	// agent` sets the fill producer's. Default nil: such commands fail,
	// saying so.
	Fill Filler
	// Queries runs the query loads coordinators ask for (OpQueries);
	// `restorebench agent` sets the kafka-streams query load's. Default
	// nil: such commands fail, saying so.
	Queries QueryStarter
	// Key signs what the agent writes and verifies what it reads: only a
	// holder of the same key (the coordinator) can command it. Required
	// unless Insecure (`--control-key-file`).
	Key *Key
	// Insecure runs the agent without a key: it then executes whatever
	// any producer to ControlTopic asks (`--insecure`). Default false.
	Insecure bool
	// MaxSkew is how far a signed record's timestamp may lie from this
	// host's clock. Default DefaultMaxSkew (2 min).
	MaxSkew time.Duration
}

func (c *Config) defaults() error {
	if err := checkName("agent name", c.Name); err != nil {
		return err
	}
	if err := CheckLabels(c.Labels); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if c.StateDir == "" {
		return errors.New("agent: a state directory is required (--state-dir)")
	}
	if len(c.Cluster.Brokers) == 0 {
		return errors.New("agent: brokers are required (--brokers)")
	}
	if c.Key == nil && !c.Insecure {
		return errors.New("agent: a signing key is required (--control-key-file, the key its coordinators sign with): " +
			"without one, anyone who can write to " + ControlTopic + " could command this host; " +
			"--insecure runs without, for a cluster whose ACLs let only you write there")
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return os.MkdirAll(c.StateDir, 0o755)
}

// Agent is a running `restorebench agent`.
type Agent struct {
	cfg     Config
	bus     *bus
	client  cluster.JavaClient // its processes' client properties
	facts   runs.AgentFacts
	procCtx context.Context // its processes live while it does
	stopAll context.CancelFunc

	// verify checks every record addressed to the agent (sign.go).
	verify *verifier

	mu    sync.Mutex
	procs map[procKey]*agentProc
	// starting are the processes whose start is under way.
	starting map[procKey]bool
	loads    map[procKey]*agentLoad // query loads, by the process they query
	replies  map[string]*Message    // run/id → reply (nil while running): idempotency
	// done are the keys of replies, oldest first, with their sizes: past
	// maxReplies of them or maxReplyBytes the oldest are forgotten (a
	// coordinator repeats a command within seconds, never thousands of
	// commands later).
	done      []keptReply
	doneBytes int
	leases    map[string]leaseInfo // run → its lease
	// inFlight counts the commands executing (their replies nil).
	inFlight int
	// invalid counts the commands refused by validate (and the records
	// that were no message), for the heartbeat's Refused.
	invalid int64
	// bound cancels, by run, the work an expired lease stops (a model
	// restore, a fill, a query load: see leaseContext).
	bound  map[string]map[uint64]context.CancelCauseFunc
	boundN uint64
	wg     sync.WaitGroup // commands under way
}

// procKey names one process of an agent.
type procKey struct {
	run, fleet, instance string
	n                    int
}

// leaseInfo is when a run was last heard from, and for how long that holds.
type leaseInfo struct {
	seen time.Time
	ttl  time.Duration
	// expired: the lease ran out and the run's processes were stopped;
	// the run's later commands are refused.
	expired bool
}

// Run runs an agent until ctx ends: New, then Serve.
func Run(ctx context.Context, cfg Config) error {
	a, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	return a.Serve(ctx)
}

// Serve announces the agent, heartbeats and executes the commands
// addressed to it until ctx ends. Then it stops its processes (killing
// those that do not stop within StopTimeout), says bye and returns nil;
// an error means it could not announce itself.
func (a *Agent) Serve(ctx context.Context) error {
	defer a.bus.close()
	if err := a.announce(ctx); err != nil {
		return err
	}
	cfg := a.cfg
	cfg.Logf("agent %s: up (%d CPUs, %d MiB, state dir %s, %d MiB free), reading %s", cfg.Name, a.facts.CPUs, a.facts.MemoryBytes>>20,
		cfg.StateDir, a.facts.StateDirFree>>20, ControlTopic)
	var loops sync.WaitGroup
	loops.Add(2)
	go func() { defer loops.Done(); a.heartbeat(ctx) }()
	go func() { defer loops.Done(); a.watchLeases(ctx) }()
	a.read(ctx)
	loops.Wait()
	a.shutdown()
	return nil
}

// Processes is how many driver processes the agent runs now.
func (a *Agent) Processes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.procs)
}

// New connects an agent to the brokers and its topics (creating them when
// missing) and works out its processes' client settings.
func New(ctx context.Context, cfg Config) (*Agent, error) {
	started := time.Now()
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	jc, err := processClient(cfg.Cluster)
	if err != nil {
		return nil, err
	}
	if _, err := cluster.Ping(ctx, cfg.Cluster); err != nil {
		return nil, fmt.Errorf("agent %s: %w", cfg.Name, err)
	}
	b, err := openBus(ctx, cfg.Cluster, cfg.Key, ControlTopic, EventsTopic)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", cfg.Name, err)
	}
	procCtx, stopAll := context.WithCancel(context.WithoutCancel(ctx))
	if cfg.Insecure {
		cfg.Logf("agent %s: INSECURE: no signing key; every producer to %s can start processes, with this agent's credentials, on this host", cfg.Name, ControlTopic)
	}
	verify := newVerifier(cfg.Key, cfg.MaxSkew, "agent "+cfg.Name, cfg.Logf)
	// A command captured before this process started, replayed to it, is
	// not executed again (its replay state is this process's own).
	verify.notBefore = started
	return &Agent{cfg: cfg, bus: b, client: jc, facts: HostFacts(cfg.StateDir, cfg.ToolVersion, cfg.Java), procCtx: procCtx, stopAll: stopAll,
		verify: verify,
		procs:  map[procKey]*agentProc{}, replies: map[string]*Message{}, leases: map[string]leaseInfo{}, loads: map[procKey]*agentLoad{},
		bound: map[string]map[uint64]context.CancelCauseFunc{}}, nil
}

// send writes a control message from this agent.
func (a *Agent) send(ctx context.Context, m *Message) error {
	m.Agent = a.cfg.Name
	if m.MonoNs == 0 {
		m.MonoNs = ksdriver.NowMonoNs()
	}
	return a.bus.send(ctx, ControlTopic, a.cfg.Name, m.Encode())
}

func (a *Agent) announce(ctx context.Context) error {
	f := a.facts
	return a.send(ctx, &Message{Type: TypeAnnounce, Facts: &f, Labels: a.cfg.Labels})
}

// heartbeat says the agent is up every cfg.Heartbeat until ctx ends.
func (a *Agent) heartbeat(ctx context.Context) {
	t := time.NewTicker(a.cfg.Heartbeat)
	defer t.Stop()
	for {
		a.mu.Lock()
		n := len(a.procs)
		a.mu.Unlock()
		if err := a.send(ctx, &Message{Type: TypeHeartbeat, Processes: n, Refused: a.refused()}); err != nil && ctx.Err() == nil {
			a.cfg.Logf("agent %s: heartbeat: %v", a.cfg.Name, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// read executes the commands and notes the leases addressed to the agent
// until ctx ends.
func (a *Agent) read(ctx context.Context) {
	for {
		recs, err := a.bus.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			a.cfg.Logf("agent %s: %v", a.cfg.Name, err)
			pause(ctx, pollErrorPause)
		}
		recv := ksdriver.NowMonoNs()
		for _, r := range recs {
			if r.Topic != ControlTopic || string(r.Key) != a.cfg.Name || a.bus.sig.own(r) || !a.verify.accept(r) {
				continue
			}
			m, err := DecodeMessage(r.Value)
			if err != nil || m.Agent != a.cfg.Name {
				a.refuse("a control record that is no message to it", err)
				continue
			}
			switch m.Type {
			case TypeLease:
				ttl, err := validLeaseTTL(m.TTLMs)
				if err == nil {
					err = checkName("run", m.Run)
				}
				if err == nil {
					err = a.lease(m.Run, ttl)
				}
				if err != nil {
					a.refuse("a lease", err)
				}
			case TypeCommand:
				a.command(ctx, m, recv)
			}
		}
	}
}

// refuse counts a record or command refused as invalid, and logs the first
// and then every 1000th.
func (a *Agent) refuse(what string, err error) {
	a.mu.Lock()
	a.invalid++
	n := a.invalid
	a.mu.Unlock()
	if n == 1 || n%1000 == 0 {
		a.cfg.Logf("agent %s: refused %s: %v (%d refused as invalid since it started)", a.cfg.Name, what, err, n)
	}
}

// refused are the records and commands refused since the agent started,
// by reason.
func (a *Agent) refused() map[string]int64 {
	out := a.verify.counts()
	a.mu.Lock()
	if a.invalid > 0 {
		out["invalid"] = a.invalid
	}
	a.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	return out
}

// lease notes that run is alive, for ttl (0: as before, or the default).
// A run the agent has not heard of is refused past maxRuns runs.
func (a *Agent) lease(run string, ttl time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, known := a.leases[run]
	if !known && len(a.leases) >= maxRuns {
		a.forgetRuns()
		if len(a.leases) >= maxRuns {
			return fmt.Errorf("run %s: this agent already follows %d runs", run, maxRuns)
		}
	}
	if ttl > 0 {
		l.ttl = ttl
	} else if l.ttl == 0 {
		l.ttl = DefaultLeaseTTL
	}
	l.seen = time.Now()
	a.leases[run] = l
	return nil
}

// Bounds of what an agent remembers.
const (
	// maxRuns bounds the runs an agent follows at once (live leases, and
	// expired ones until forgotten).
	maxRuns = 64
	// forgetAfter is how long an expired run is remembered, so that its
	// late commands are refused rather than run.
	forgetAfter = 10 * time.Minute
	// maxReplies bounds the replies kept for repeated commands, and
	// maxReplyBytes their bytes (a fetch reply is up to 64 MiB, a
	// model restore's several MiB).
	maxReplies    = 4096
	maxReplyBytes = 64 << 20
	// maxInFlight bounds the commands executing at once.
	maxInFlight = 256
)

// forgetRuns drops the runs whose lease expired more than forgetAfter ago,
// with their replies. The caller holds a.mu.
func (a *Agent) forgetRuns() {
	for run, l := range a.leases {
		if l.expired && time.Since(l.seen) > l.ttl+forgetAfter {
			delete(a.leases, run)
			delete(a.bound, run)
		}
	}
}
