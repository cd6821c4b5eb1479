package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// Options configure an Env.
type Options struct {
	// Brokers, if set, is the cluster to use; otherwise an embedded broker
	// starts with its log under DataDir/broker.
	Brokers []string
	// Security is how every client of Brokers authenticates and encrypts
	// (TLS, SASL): restorebench's own and the Kafka Streams JVMs'. Nil
	// connects in plaintext.
	Security *cluster.Security
	// DataDir holds the embedded broker's log and the fill manifests.
	// Default ".restorebench".
	DataDir string
	// StateDir is Kafka Streams' state.dir for restored stores.
	// Default DataDir/state.
	StateDir string
	// InMemoryBroker keeps the embedded broker's log in memory (tests).
	InMemoryBroker bool
	// ConnectTimeout bounds reaching the brokers. Default
	// cluster.DefaultConnectTimeout (15 s).
	ConnectTimeout time.Duration
	// StallTimeout fails a restore when no record arrives for this long
	// while records are still owed. Default engine.DefaultStallTimeout (60 s).
	StallTimeout time.Duration
	// Log receives progress lines and bars; default os.Stderr.
	Log io.Writer
	// Quiet turns progress bars off (lines are still logged).
	Quiet bool
	// OnRestoreProgress, if set, is told the records restored as every
	// restore goes (tests use it to act mid-restore).
	OnRestoreProgress func(records int64)
	// Agents names the agents (`restorebench agent --name`) the
	// kafka-streams engine's fleet instances run on, round robin; none (the
	// default) runs them on this machine.
	Agents []string
	// AnyAgents, instead of Agents, takes this many agents from those heard
	// on the control topic (`--agents any:N`, agent.CoordinatorConfig.Any).
	// Default 0.
	AnyAgents int
	// AgentWait bounds the wait for every agent to be heard from. Default
	// agent.DefaultAgentWait (30 s).
	AgentWait time.Duration
	// AgentHeartbeatTimeout: an agent silent this long is lost and the run
	// stops. Default agent.DefaultHeartbeatTimeout (5 s).
	AgentHeartbeatTimeout time.Duration
	// AgentKey signs the commands to the agents and verifies what they
	// send (agent.CoordinatorConfig.Key); required with Agents unless
	// InsecureAgents.
	AgentKey *agent.Key
	// InsecureAgents commands agents without a key (they run --insecure).
	// Default false.
	InsecureAgents bool
	// Watch, if set, follows the run as the terminal does: told of every
	// progress task (the fill's, each restore's) and its figures, and of
	// each case × repeat as it starts (the metrics of `run --metrics-addr`).
	Watch Watcher
}

// Watcher follows a run (Options.Watch).
type Watcher interface {
	progress.Observer
	// Case is told that a case's repeat begins, as the "restore: case"
	// line says.
	Case(name, scenario string, repeat int)
}

// Env is a connected benchmark environment.
type Env struct {
	Opts      Options
	Cluster   cluster.Config
	Embedded  *cluster.Embedded
	ClusterID string
	Broker    runs.Broker
	// Agents commands the run's agents; nil without Options.Agents.
	Agents *agent.Coordinator
	// producer is where fills are written from: this process, or an
	// agent when the run has agents (chosen in Connect).
	producer producer
	log      io.Writer
	progress *progress.Reporter
	// admin is the run's one admin client (Admin), opened on first use and
	// closed by Close; adminMu guards it.
	adminMu     sync.Mutex
	admin       *kadm.Client
	adminClient *kgo.Client
}

// Connect starts the embedded broker or reaches the given one, failing
// within the connect timeout when it does not answer.
func Connect(ctx context.Context, o Options) (*Env, error) {
	if o.DataDir == "" {
		o.DataDir = ".restorebench"
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(o.DataDir, "state")
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = cluster.DefaultConnectTimeout
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = engine.DefaultStallTimeout
	}
	e := &Env{Opts: o, log: o.Log, progress: progress.New(o.Log, o.Quiet), producer: localProducer{}}
	if o.Watch != nil {
		e.progress.Observer = o.Watch
	}
	if len(o.Brokers) == 0 {
		dir := filepath.Join(o.DataDir, "broker")
		if o.InMemoryBroker {
			dir = ""
		}
		emb, err := cluster.StartEmbedded(dir)
		if err != nil {
			return nil, err
		}
		e.Embedded = emb
		e.Cluster = cluster.Config{Brokers: emb.Addrs(), ConnectTimeout: o.ConnectTimeout}
		e.Broker = runs.Broker{Kind: "embedded", Bootstrap: emb.Addrs(), DataDir: dir, Version: embeddedBrokerVersion()}
		if dir != "" {
			e.Broker.LogDisk = DiskOf(dir)
		}
	} else {
		e.Cluster = cluster.Config{Brokers: o.Brokers, ConnectTimeout: o.ConnectTimeout}
		e.Broker = runs.Broker{Kind: "external", Bootstrap: o.Brokers}
		if err := e.secure(o.Security); err != nil {
			return nil, err
		}
	}
	if _, err := cluster.Ping(ctx, e.Cluster); err != nil {
		e.Close()
		return nil, err
	}
	adm, closeAdm, err := e.Admin()
	if err != nil {
		e.Close()
		return nil, err
	}
	defer closeAdm()
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("brokers %s: metadata: %w", strings.Join(e.Cluster.Brokers, ","), err)
	}
	e.ClusterID = md.Cluster
	if e.ClusterID == "" {
		e.ClusterID = "unknown"
	}
	if e.Embedded == nil {
		e.Broker.Version = externalBrokerVersion(ctx, adm)
	}
	if err := e.openAgents(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// openAgents reaches the agents Options.Agents names (or AnyAgents of
// those heard): every one must answer, and each one's clock is estimated.
func (e *Env) openAgents(ctx context.Context) error {
	if len(e.Opts.Agents) == 0 && e.Opts.AnyAgents == 0 {
		return nil
	}
	co, err := agent.Open(ctx, agent.CoordinatorConfig{Cluster: e.Cluster, Agents: e.Opts.Agents, Any: e.Opts.AnyAgents, Wait: e.Opts.AgentWait,
		HeartbeatTimeout: e.Opts.AgentHeartbeatTimeout, Logf: e.Logf, Key: e.Opts.AgentKey, Insecure: e.Opts.InsecureAgents})
	if err != nil {
		return fmt.Errorf("--agents: %w", err)
	}
	e.Agents = co
	e.producer = agentProducer{co}
	return nil
}

// secure applies sec (nil: plaintext) to the cluster's clients and says
// how they log in, without secrets, in the run's broker record.
func (e *Env) secure(sec *cluster.Security) error {
	if sec == nil {
		return nil
	}
	opts, err := sec.Opts()
	if err != nil {
		return err
	}
	e.Cluster.Security, e.Cluster.Login, e.Cluster.Settings = opts, sec.Login(), sec
	e.Broker.Security = sec.Describe()
	return nil
}

// embeddedBrokerVersion names the embedded broker by the kfake module this
// binary was built with, e.g. "kfake v0.0.0-20260918054303-01f206a7e32c",
// so a report can say its figures come from kfake, not Apache Kafka.
func embeddedBrokerVersion() string {
	const kfake = "github.com/twmb/franz-go/pkg/kfake"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == kfake {
				return "kfake " + m.Version
			}
		}
	}
	return "kfake (version unknown)"
}

// externalBrokerVersion is franz-go's guess of the Kafka version from the
// first answering broker's ApiVersions (Kafka has no request that returns
// its version string), e.g. "v3.9" or "at least v4.1"; "unknown" when no
// broker answers in time. Brokers that guess differently are listed.
func externalBrokerVersion(ctx context.Context, adm *kadm.Client) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return "unknown"
	}
	seen := map[string]bool{}
	var guesses []string
	for _, v := range vs.Sorted() {
		if v.Err != nil {
			continue
		}
		if g := v.VersionGuess(); !seen[g] {
			seen[g] = true
			guesses = append(guesses, g)
		}
	}
	if len(guesses) == 0 {
		return "unknown"
	}
	return "Apache Kafka " + strings.Join(guesses, " / ") + " (guessed from ApiVersions)"
}

// Close stops the embedded broker, if any.
func (e *Env) Close() {
	e.adminMu.Lock()
	if e.adminClient != nil {
		e.adminClient.Close()
		e.admin, e.adminClient = nil, nil
	}
	e.adminMu.Unlock()
	if e.Agents != nil {
		e.Agents.Close()
		e.Agents = nil
	}
	if e.Embedded != nil {
		e.Embedded.Close()
		e.Embedded = nil
	}
}

// Admin returns the run's one admin client, shared by everything the run
// asks of the cluster (offsets, topics, groups, configs) and opened on
// first use, and a function its callers call when done, which keeps it
// open: Close closes it with the environment.
func (e *Env) Admin() (*kadm.Client, func(), error) {
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	if e.admin == nil {
		adm, cl, err := cluster.NewAdmin(e.Cluster)
		if err != nil {
			return nil, nil, err
		}
		e.admin, e.adminClient = adm, cl
	}
	return e.admin, func() {}, nil
}

// sharedAdmin is Admin for fleet.Env.Admin.
func (e *Env) sharedAdmin() (*kadm.Client, error) {
	adm, _, err := e.Admin()
	return adm, err
}

// Offsets lists topic's start and end offsets with a short-lived admin client.
func (e *Env) Offsets(ctx context.Context, topic string) (cluster.TopicOffsets, error) {
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return cluster.TopicOffsets{}, err
	}
	defer closeAdm()
	return cluster.Offsets(ctx, adm, topic)
}

// newResults starts the results of a run on this environment.
func (e *Env) newResults(runID string) *runs.Results {
	return &runs.Results{
		SchemaVersion: runs.SchemaVersion,
		RunID:         runID,
		ToolVersion:   ToolVersion,
		StartedAt:     time.Now().UTC(),
		Host:          e.hostInfo(),
		Broker:        e.Broker,
		Restores:      []runs.Restore{},
		Agents:        e.agentRecords(),
	}
}

// agentRecords are the run's agents for results.json; nil without agents.
func (e *Env) agentRecords() []runs.Agent {
	if e.Agents == nil {
		return nil
	}
	return e.Agents.Agents()
}

// Logf writes one progress line.
func (e *Env) Logf(format string, args ...any) {
	fmt.Fprintf(e.log, format+"\n", args...)
}

// scenarioEnv is what scenarios need from this environment.
func (e *Env) scenarioEnv() *fleet.Env {
	env := &fleet.Env{Cluster: e.Cluster, Admin: e.sharedAdmin, Offsets: e.Offsets, Logf: e.Logf, Progress: e.progress,
		StallTimeout: e.Opts.StallTimeout, OnProgress: e.Opts.OnRestoreProgress, Queries: queryload.QueriesAt}
	if e.Embedded != nil {
		env.CompactNow = e.Embedded.Compact
	}
	env.Agents = e.Agents
	return env
}

// hostInfo is HostInfo with the disk under this environment's state.dir,
// where restored stores are written.
func (e *Env) hostInfo() runs.Host {
	h := HostInfo()
	h.Disk = DiskOf(e.Opts.StateDir)
	return h
}

// HostInfo describes this machine for results.json (without a disk: see
// DiskOf).
func HostInfo() runs.Host {
	h, _ := os.Hostname()
	return runs.Host{
		Hostname:       h,
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH,
		CPUs:           runtime.NumCPU(),
		MemoryBytes:    totalMemory(),
		GoVersion:      runtime.Version(),
		RocksDBVersion: engine.RocksDBVersion(),
		RocksDBLinkage: engine.RocksDBLinkage(),
		CPUModel:       cpuModel(),
	}
}

// cpuModel is the first processor's model name in /proc/cpuinfo ("model
// name" on x86, "Model" or "Hardware" on ARM), or "" when there is none.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, key := range []string{"model name", "Model", "Hardware"} {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == key {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}

// DiskOf describes the filesystem and block device holding dir (or its
// nearest existing parent): the mount from /proc/self/mountinfo, the
// device's model and rotational flag from sysfs, size and free space from
// statfs. It returns what it finds; nil only for an empty dir.
func DiskOf(dir string) *runs.Disk {
	if dir == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	d := &runs.Disk{Path: abs}
	p := existingParent(abs)
	var st syscall.Statfs_t
	if syscall.Statfs(p, &st) == nil {
		d.SizeBytes = int64(st.Blocks) * int64(st.Bsize)
		d.FreeBytes = int64(st.Bavail) * int64(st.Bsize)
	}
	if m, ok := mountOf(p); ok {
		d.MountPoint, d.Device, d.Filesystem = m.point, m.source, m.fstype
		d.Model, d.Rotational = blockDevice(m.majorMinor)
	}
	return d
}

// existingParent returns p or its nearest ancestor that exists.
func existingParent(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// mount is one line of /proc/self/mountinfo.
type mount struct{ majorMinor, point, fstype, source string }

// mountOf finds the mount holding path: the longest mount point that is
// path or one of its parents.
func mountOf(path string) (mount, bool) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return mount{}, false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	var best mount
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 2 {
			continue
		}
		m := mount{majorMinor: f[2], point: unescapeMount(f[4]), fstype: g[0], source: g[1]}
		if within(path, m.point) && (!found || len(m.point) >= len(best.point)) {
			best, found = m, true
		}
	}
	return best, found
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &c); err == nil {
				out.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		out.WriteByte(s[i])
	}
	return out.String()
}

// blockDevice reads the model and rotational flag of the disk behind the
// device major:minor (the whole disk for a partition); zero values for a
// device sysfs does not know (overlay, tmpfs, network filesystems).
func blockDevice(majorMinor string) (model string, rotational *bool) {
	dev, err := filepath.EvalSymlinks(filepath.Join("/sys/dev/block", majorMinor))
	if err != nil {
		return "", nil
	}
	if _, err := os.Stat(filepath.Join(dev, "partition")); err == nil {
		dev = filepath.Dir(dev)
	}
	if b, err := os.ReadFile(filepath.Join(dev, "device", "model")); err == nil {
		model = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dev, "queue", "rotational")); err == nil {
		r := strings.TrimSpace(string(b)) == "1"
		rotational = &r
	}
	return model, rotational
}

func totalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%d", &kb)
		}
	}
	return kb * 1024
}
