package agent

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
)

func init() { opStart.register() }

// opStart starts a driver process and replies once it said hello.
var opStart = op[StartArgs, Started]{name: OpStart, scope: scopeInstance, check: validateStart,
	run: func(a *Agent, m *Message, args *StartArgs, _ *agentProc) (*Started, error) { return a.start(m, args) }}

// StartArgs are a start's arguments: a ProcessSpec's, without the names
// the envelope carries.
type StartArgs struct {
	// Properties and JVMFlags are the process's (no state.dir, no client
	// security: the agent sets both).
	Properties map[string]string `json:"properties"`
	JVMFlags   []string          `json:"jvm_flags,omitempty"`
	// KafkaStreamsVersion is the driver's Kafka Streams version ("" the
	// default).
	KafkaStreamsVersion string `json:"kafka_streams_version,omitempty"`
	// NeedBytes is the free space the instance needs in the agent's state
	// directory (0: not checked): the agent refuses a start on a disk with
	// less, with a DiskFullError.
	NeedBytes int64 `json:"need_bytes,omitempty"`
}

// Started is a start reply's result.
type Started struct {
	// AtMonoNs is when the agent launched the JVM, in its CLOCK_MONOTONIC.
	AtMonoNs int64 `json:"at_mono_ns"`
	// PID is the process's OS pid on the agent's host.
	PID int `json:"pid"`
}

// versionPattern is a Kafka Streams version as the driver builds are named.
var versionPattern = regexp.MustCompile(`^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$`)

// driverKeys are the driver's restorebench.* properties a coordinator may
// set (the secrets file and connection check are the agent's own).
var driverKeys = map[string]bool{
	ksdriver.PropInstanceID: true, ksdriver.PropTopology: true, ksdriver.PropStore: true, ksdriver.PropStoreType: true,
	ksdriver.PropStoreKind: true, ksdriver.PropStoreRetentionMs: true, ksdriver.PropStoreWindowSizeMs: true,
	ksdriver.PropStoreSegmentIntervalMs: true, ksdriver.PropStoreKeys: true, ksdriver.PropInputTopic: true,
	ksdriver.PropOutputTopic: true, ksdriver.PropTasksIntervalMs: true, ksdriver.PropProcessedIntervalMs: true,
	ksdriver.PropLagsIntervalMs: true, ksdriver.PropProcessIntervalMs: true, ksdriver.PropCloseLeaveGroup: true,
	ksdriver.PropMetrics: true, ksdriver.PropBare: true, ksdriver.PropAPIPort: true, ksdriver.PropAPIHost: true,
	ksdriver.PropAPIRetryMs: true, ksdriver.PropAPIPartitions: true,
}

// validateStart checks a start's process spec: its properties (no secret,
// no config provider, no connection setting that is not dropped, only the
// driver keys the coordinator sets, the application.id its fleet), its
// JVM flags (config.CheckJVMFlag) and its Kafka Streams version.
func validateStart(m *Message, args *StartArgs) error {
	if len(args.Properties) > maxProperties {
		return fmt.Errorf("start: %d properties, more than %d", len(args.Properties), maxProperties)
	}
	if err := refuseSecrets(args.Properties); err != nil {
		return err
	}
	for k, v := range args.Properties {
		if k == "" || len(k)+len(v) > maxPropertyBytes || strings.ContainsAny(k, "\x00\r\n=:") || strings.ContainsAny(v, "\x00") {
			return fmt.Errorf("start: property %.60q is not a plain key with a value of at most %d bytes", k, maxPropertyBytes)
		}
		if err := config.CheckConfigProviders(k, v); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		if base := config.ClientBaseName(k); strings.HasPrefix(k, ksdriver.PropPrefix) || strings.HasPrefix(base, ksdriver.PropPrefix) {
			if !driverKeys[k] && !strings.HasPrefix(k, ksdriver.PropRocksDBPrefix) && !isClientKey(k) {
				return fmt.Errorf("start: %s is not a driver setting a coordinator sets", k)
			}
		}
	}
	if app := args.Properties["application.id"]; app != m.Fleet {
		return fmt.Errorf("start: application.id %.60q is not the fleet's (%s): an agent's directories and groups are named by it", app, m.Fleet)
	}
	for _, key := range []string{ksdriver.PropInputTopic, ksdriver.PropOutputTopic} {
		if t, ok := args.Properties[key]; ok && !strings.HasPrefix(t, m.Fleet+"-") {
			return fmt.Errorf("start: %s %.100q is not a topic of the run's application (%s-…)", key, t, m.Fleet)
		}
	}
	if h, ok := args.Properties[ksdriver.PropAPIHost]; ok {
		// The agent's query load reaches the API layer on this host; no
		// other host may (docs/many-hosts.md: a port agents never open to others).
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("start: %s %.60q is not a loopback address: an agent's API layer listens on this host only", ksdriver.PropAPIHost, h)
		}
	}
	if len(args.JVMFlags) > maxJVMFlags {
		return fmt.Errorf("start: %d JVM flags, more than %d", len(args.JVMFlags), maxJVMFlags)
	}
	for i, f := range args.JVMFlags {
		if err := config.CheckJVMFlag(f); err != nil {
			return fmt.Errorf("start: jvm_flags[%d]: %w", i, err)
		}
	}
	if v := args.KafkaStreamsVersion; v != "" && !versionPattern.MatchString(v) {
		return fmt.Errorf("start: Kafka Streams version %.40q is not MAJOR.MINOR.PATCH", v)
	}
	if args.NeedBytes < 0 {
		return fmt.Errorf("start: needs %d bytes, a negative amount", args.NeedBytes)
	}
	return nil
}

// start launches a driver process with the coordinator's properties, the
// agent's own state.dir and client settings, and starts forwarding its
// events; it returns once the process said hello.
func (a *Agent) start(m *Message, args *StartArgs) (*Started, error) {
	key := procKey{m.Run, m.Fleet, m.Instance, m.N}
	a.mu.Lock()
	_, dup := a.procs[key]
	dup = dup || a.starting[key]
	if !dup {
		// Reserved until it runs (or failed): a second start of the same
		// process, under another command id, is refused meanwhile rather
		// than launch a second JVM on the same state directory.
		if a.starting == nil {
			a.starting = map[procKey]bool{}
		}
		a.starting[key] = true
	}
	a.mu.Unlock()
	if dup {
		return nil, fmt.Errorf("process %d of instance %s already runs on agent %s", m.N, m.Instance, a.cfg.Name)
	}
	defer func() {
		a.mu.Lock()
		delete(a.starting, key)
		a.mu.Unlock()
	}()
	if err := a.checkFree(m.Instance, args.NeedBytes); err != nil {
		return nil, err
	}
	dir := a.instDir(m.Run, m.Fleet, m.Instance)
	props := a.processProperties(args.Properties)
	props["state.dir"] = filepath.Join(dir, "state")
	procDir := filepath.Join(dir, "run-"+strconv.Itoa(m.N+1))
	inst, err := ksdriver.Start(a.procCtx, ksdriver.Options{ID: m.Instance, Dir: procDir, Properties: props,
		Secrets: a.client.Secret, JVMFlags: args.JVMFlags, Lib: a.cfg.Lib, Java: a.cfg.Java, KafkaStreamsVersion: args.KafkaStreamsVersion})
	if err != nil {
		return nil, err
	}
	p := &agentProc{key: key, inst: inst, dir: procDir, forwarded: make(chan struct{})}
	a.mu.Lock()
	a.procs[key] = p
	a.mu.Unlock()
	go a.forward(p)
	a.cfg.Logf("agent %s: run %s: started %s process %d of %s (pid %d)", a.cfg.Name, m.Run, m.Fleet, m.N, m.Instance, inst.PID())
	return &Started{AtMonoNs: inst.LaunchMonoNs(), PID: inst.PID()}, nil
}
