package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
)

// Options configure an Env.
type Options struct {
	// Brokers, if set, is the cluster to use; otherwise an embedded broker
	// starts with its log under DataDir/broker.
	Brokers []string
	// Security are TLS/SASL client options for Brokers.
	Security []kgo.Opt
	// SecurityDescription says how the client authenticates, without secrets.
	SecurityDescription string
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
	// OnRestoreProgress, if set, is told the records restored so far during
	// every restore (tests use it to act mid-restore).
	OnRestoreProgress func(records int64)
}

// Env is a connected benchmark environment.
type Env struct {
	Opts      Options
	Cluster   cluster.Config
	Embedded  *cluster.Embedded
	ClusterID string
	Broker    runs.Broker
	log       io.Writer
	progress  *progress.Reporter
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
	e := &Env{Opts: o, log: o.Log, progress: progress.New(o.Log, o.Quiet)}
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
		e.Broker = runs.Broker{Kind: "embedded", Bootstrap: emb.Addrs(), DataDir: dir}
	} else {
		e.Cluster = cluster.Config{Brokers: o.Brokers, ConnectTimeout: o.ConnectTimeout, Security: o.Security}
		e.Broker = runs.Broker{Kind: "external", Bootstrap: o.Brokers, Security: o.SecurityDescription}
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
	return e, nil
}

// Close stops the embedded broker, if any.
func (e *Env) Close() {
	if e.Embedded != nil {
		e.Embedded.Close()
		e.Embedded = nil
	}
}

// Admin returns an admin client and a function to close it.
func (e *Env) Admin() (*kadm.Client, func(), error) {
	cl, err := cluster.NewClient(e.Cluster)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl.Close, nil
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
		Host:          HostInfo(),
		Broker:        e.Broker,
		Restores:      []runs.Restore{},
	}
}

// Logf writes one progress line.
func (e *Env) Logf(format string, args ...any) {
	fmt.Fprintf(e.log, format+"\n", args...)
}

// scenarioEnv is what scenarios need from this environment.
func (e *Env) scenarioEnv() *scenario.Env {
	return &scenario.Env{Cluster: e.Cluster, Offsets: e.Offsets, Logf: e.Logf, Progress: e.progress,
		StallTimeout: e.Opts.StallTimeout, OnProgress: e.Opts.OnRestoreProgress}
}

// HostInfo describes this machine for results.json.
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
	}
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
