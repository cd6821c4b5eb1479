package fleet

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/internal/statedir"
	"github.com/restorebench/restorebench/ksdriver"
)

// Host runs a fleet's Kafka Streams instances: it starts their processes
// and keeps each instance's state directory, which outlives its processes.
// The fleet, the single instance of a cold restore or warm restart
// (KSSingle, a fleet of one) and the scenarios on them see an instance
// only through Host and Process, never where it runs: the local host
// (localHost) runs every process as a JVM on this machine; AgentHost runs
// them under agents on other hosts, commanded and heard through Kafka
// topics (package agent). A host is chosen once, by NewHost.
type Host interface {
	// Start starts process spec.N of instance spec.ID on the instance's
	// state directory (the host sets state.dir) and returns once it said
	// hello.
	Start(ctx context.Context, spec ProcessSpec) (Process, error)
	// Fresh makes sure instance id's next process starts with no state:
	// a host whose state directory may hold someone else's stores (the
	// local single instance's, the user's --state-dir) refuses one left
	// in place; one that keeps only restorebench's wipes it.
	Fresh(id string) error
	// WipeState deletes instance id's state directory: its next process
	// starts with no stores, checkpoints or process id.
	WipeState(id string) error
	// ProcessID is Kafka Streams' process id of instance id, which its
	// client keeps in its state directory ("" until it wrote one).
	ProcessID(id string) string
	// DiskBytes is what instance id's stores take on disk now.
	DiskBytes(ctx context.Context, id string) (int64, error)
	// LocalAppDir is instance id's application directory when it is on
	// this machine's disk, where its files can be counted; "" elsewhere.
	LocalAppDir(id string) string
	// Where names the agent instance id runs on, placing it at the first
	// ask; "" on this machine.
	Where(id string) string
	// ClockBoundNs bounds, in nanoseconds, how far instance id's event
	// times may be off this machine's clock (0 on this machine).
	ClockBoundNs(id string) int64
	// Remove deletes what the host keeps for the instances it started:
	// their state directories and every process's own (config, log).
	Remove()
}

// ProcessSpec is one process to start: the N-th (from 0) of instance ID,
// with its CONFIG.properties but state.dir, and its JVM's flags.
type ProcessSpec struct {
	ID         string
	N          int
	Properties map[string]string
	JVMFlags   []string
	// KafkaStreamsVersion is the Kafka Streams version the process runs
	// (the case's kafka_streams_version; "" is the default version).
	KafkaStreamsVersion string
	// NeedBytes is the free space the instance needs in its state
	// directory: an agent refuses a start on a disk with less (0:
	// unchecked).
	NeedBytes int64
}

// Driven is a Kafka Streams process restorebench drives, wherever it
// runs: the driver's events (kstreams/PROTOCOL.md), timed on this
// machine's CLOCK_MONOTONIC (ksdriver.NowMonoNs) wherever the process
// runs (an agent's are moved by its clock offset), and its commands. A
// fleet's Process and a single instance's ksInstance are both one.
type Driven interface {
	// Hello is what the process said about itself when it started.
	Hello() *ksdriver.Hello
	// LaunchMonoNs is when it was launched.
	LaunchMonoNs() int64
	// Events are the events it has sent, in its order; Len how many.
	Events() []ksdriver.Event
	Len() int
	// Next is event i, waiting for it; past the last, how the process
	// ended.
	Next(ctx context.Context, i int) (ksdriver.Event, error)
	// Done is closed once the process ended.
	Done() <-chan struct{}
	// Request sends a command and waits for its reply event.
	Request(ctx context.Context, command, reply string) (ksdriver.Event, error)
	// Stop closes Kafka Streams cleanly and waits for the process to end.
	Stop(ctx context.Context) error
	// Kill ends the process at once; KillNow too, and returns when.
	Kill()
	KillNow() int64
}

// Process is one process of an instance, wherever it runs: a JVM on
// this machine (localProcess, a *ksdriver.Instance) or under an agent
// (agentProcess, an *agent.Process).
type Process interface {
	KSInstance
	// Fetch has the process run one of the driver's file commands
	// (ksdriver.ParseFileCommand: "balances", "entries PARTITION"), which
	// write their answer to a file, into a file of its own where it runs,
	// and returns the file's bytes: Balances and StoreEntries read it.
	Fetch(ctx context.Context, line string) ([]byte, error)
	// StartQueries starts a query load (job) against the process's API
	// layer from where the process runs, once the layer listens.
	StartQueries(ctx context.Context, job agent.QueryJob) (QueryRun, error)
}

// localHost runs each process as a JVM on this machine (ksdriver.Start),
// with an instance's directories under root: flat,
// <root>/<id>-state and <root>/<id>-<n> per process; or, with a nest
// prefix, <root>/<nest><id>/state and <root>/<nest><id>/run-<n+1>.
// A file command's file is <root>/fetch-<id>.out while it is read.
type localHost struct {
	root, appID, nest string
	// single is the layout of a cold restore's or warm restart's one
	// instance: root itself is its state.dir (the run's --state-dir,
	// which may hold the user's stores: only the application's own
	// directory in it is restorebench's) and <root>/kstreams-<id> its
	// processes' directory.
	single  bool
	secrets map[string]string // every process's Options.Secrets
	// java is the java binary processes start with (empty: ksdriver's
	// FindJava).
	java string
	// queries starts its processes' query loads (Env.Queries).
	queries  agent.QueryStarter
	mu       sync.Mutex
	ids      []string // the instances started, in order
	procDirs []string
}

// newLocalHost is the flat local host of application appID under root,
// whose processes reach the cluster with env's client secrets (jvmSecrets).
func newLocalHost(env *Env, root, appID string) (*localHost, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	secrets, err := jvmSecrets(env)
	if err != nil {
		return nil, err
	}
	return &localHost{root: abs, appID: appID, secrets: secrets, queries: env.Queries}, nil
}

// home is the directory of instance id's own, or "" when flat.
func (h *localHost) home(id string) string {
	if h.nest == "" {
		return ""
	}
	return filepath.Join(h.root, h.nest+id)
}

func (h *localHost) stateDir(id string) string {
	if h.single {
		return h.root
	}
	if h.nest == "" {
		return filepath.Join(h.root, id+"-state")
	}
	return filepath.Join(h.home(id), "state")
}

func (h *localHost) procDir(id string, n int) string {
	if h.single {
		return filepath.Join(h.root, "kstreams-"+id)
	}
	if h.nest == "" {
		return filepath.Join(h.root, fmt.Sprintf("%s-%d", id, n))
	}
	return filepath.Join(h.home(id), "run-"+strconv.Itoa(n+1))
}

func (h *localHost) fetchPath(id string) string {
	return filepath.Join(h.root, "fetch-"+id+".out")
}

// Start launches the JVM. spec.Properties is the caller's: it is copied.
func (h *localHost) Start(ctx context.Context, spec ProcessSpec) (Process, error) {
	props := map[string]string{}
	maps.Copy(props, spec.Properties)
	props["state.dir"] = h.stateDir(spec.ID)
	dir := h.procDir(spec.ID, spec.N)
	h.mu.Lock()
	if spec.N == 0 {
		h.ids = append(h.ids, spec.ID)
	}
	h.procDirs = append(h.procDirs, dir)
	h.mu.Unlock()
	inst, err := ksdriver.Start(ctx, ksdriver.Options{ID: spec.ID, Dir: dir, Properties: props, Secrets: h.secrets,
		JVMFlags: spec.JVMFlags, KafkaStreamsVersion: spec.KafkaStreamsVersion, Java: h.java})
	if err != nil {
		return nil, err
	}
	return &localProcess{Instance: inst, fetchPath: h.fetchPath(spec.ID), queries: h.queries}, nil
}

func (h *localHost) WipeState(id string) error {
	if h.single {
		return os.RemoveAll(h.LocalAppDir(id))
	}
	return os.RemoveAll(h.stateDir(id))
}

func (h *localHost) Fresh(id string) error {
	if h.single {
		return (&engine.Instance{StateDir: h.root, AppID: h.appID}).CheckStateDirEmpty()
	}
	return h.WipeState(id)
}

func (h *localHost) DiskBytes(_ context.Context, id string) (int64, error) {
	return statedir.Bytes(h.LocalAppDir(id)), nil
}

func (h *localHost) LocalAppDir(id string) string { return filepath.Join(h.stateDir(id), h.appID) }

func (h *localHost) Where(string) string { return "" }

func (h *localHost) ClockBoundNs(string) int64 { return 0 }

func (h *localHost) ProcessID(id string) string {
	pid, _ := ksdriver.ReadProcessID(h.stateDir(id), h.appID)
	return pid
}

func (h *localHost) Remove() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range h.ids {
		h.WipeState(id)
	}
	for _, dir := range h.procDirs {
		os.RemoveAll(dir)
	}
	for _, id := range h.ids {
		if home := h.home(id); home != "" {
			os.RemoveAll(home)
		}
		os.Remove(h.fetchPath(id))
	}
}

// localProcess is a JVM on this machine; its file commands write to
// fetchPath.
type localProcess struct {
	*ksdriver.Instance
	fetchPath string
	// queries starts a query load from this machine (Env.Queries; nil:
	// none).
	queries agent.QueryStarter
}

// Fetch has the driver write the file command's answer to fetchPath and
// reads it.
func (p *localProcess) Fetch(ctx context.Context, line string) ([]byte, error) {
	return p.FileCommand(ctx, line, p.fetchPath)
}

// APIAddrOf is the address a process's API layer listens on ("" when it
// has none or has not said).
func APIAddrOf(p Process) string {
	for _, e := range p.Events() {
		if a, ok := e.(*ksdriver.API); ok {
			return a.Addr()
		}
	}
	return ""
}

// Layout is how this machine's host lays out its instances' directories
// under its root; a host elsewhere keeps its own.
type Layout struct {
	// Nest, when set, keeps each instance under <root>/<Nest><id>
	// (localHost.home); empty, flat: <root>/<id>-state.
	Nest string
	// Single is the one instance of a cold restore or warm restart: root
	// is its state.dir (localHost.single).
	Single bool
}

// HostKind is a kind of host other than this machine, registered once
// from its file's init (RegisterHostKind), as the agents' is below.
type HostKind struct {
	// Name names the kind in a clash of registrations.
	Name string
	// For is the host of the run's instances of application appID when
	// the run uses this kind (ok), nil and false when it does not; root
	// and layout are where this machine's host would keep them.
	For func(env *Env, req Request, root, appID string, layout Layout) (h Host, ok bool, err error)
}

// hostKinds are the registered kinds, asked in order; this machine's
// host serves a run none of them takes.
var hostKinds []HostKind

// RegisterHostKind adds a kind of host; a second of one name panics.
func RegisterHostKind(k HostKind) {
	for _, have := range hostKinds {
		if have.Name == k.Name {
			panic("fleet: host kind " + k.Name + " registered twice")
		}
	}
	hostKinds = append(hostKinds, k)
}

// NewHost is the host a scenario's instances run on, chosen here and
// nowhere else: the first registered kind the run uses (the run's agents
// when it has them, env.Agents; req's case gives the instances their
// roles for placement), else this machine, each instance under root as
// layout says.
func NewHost(env *Env, req Request, root, appID string, layout Layout) (Host, error) {
	for _, k := range hostKinds {
		if h, ok, err := k.For(env, req, root, appID, layout); ok || err != nil {
			return h, err
		}
	}
	return newLayoutHost(env, root, appID, layout)
}

// newLayoutHost is this machine's host of application appID, its
// instances under root as layout says.
func newLayoutHost(env *Env, root, appID string, layout Layout) (*localHost, error) {
	h, err := newLocalHost(env, root, appID)
	if err != nil {
		return nil, err
	}
	h.nest, h.single = layout.Nest, layout.Single
	return h, nil
}
