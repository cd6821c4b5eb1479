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

func init() {
	registerOp(opDef{name: OpStart, scope: scopeInstance, check: validateStart,
		run: func(a *Agent, m *Message, _ *agentProc) (*Message, error) { return a.start(m) }})
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
func validateStart(m *Message) error {
	if len(m.Properties) > maxProperties {
		return fmt.Errorf("start: %d properties, more than %d", len(m.Properties), maxProperties)
	}
	if err := refuseSecrets(m.Properties); err != nil {
		return err
	}
	for k, v := range m.Properties {
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
	if app := m.Properties["application.id"]; app != m.Fleet {
		return fmt.Errorf("start: application.id %.60q is not the fleet's (%s): an agent's directories and groups are named by it", app, m.Fleet)
	}
	for _, key := range []string{ksdriver.PropInputTopic, ksdriver.PropOutputTopic} {
		if t, ok := m.Properties[key]; ok && !strings.HasPrefix(t, m.Fleet+"-") {
			return fmt.Errorf("start: %s %.100q is not a topic of the run's application (%s-…)", key, t, m.Fleet)
		}
	}
	if h, ok := m.Properties[ksdriver.PropAPIHost]; ok {
		// The agent's query load reaches the API layer on this host; no
		// other host may (docs/many-hosts.md: a port agents never open to others).
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("start: %s %.60q is not a loopback address: an agent's API layer listens on this host only", ksdriver.PropAPIHost, h)
		}
	}
	if len(m.JVMFlags) > maxJVMFlags {
		return fmt.Errorf("start: %d JVM flags, more than %d", len(m.JVMFlags), maxJVMFlags)
	}
	for i, f := range m.JVMFlags {
		if err := config.CheckJVMFlag(f); err != nil {
			return fmt.Errorf("start: jvm_flags[%d]: %w", i, err)
		}
	}
	if v := m.KafkaStreamsVersion; v != "" && !versionPattern.MatchString(v) {
		return fmt.Errorf("start: Kafka Streams version %.40q is not MAJOR.MINOR.PATCH", v)
	}
	if m.NeedBytes < 0 {
		return fmt.Errorf("start: needs %d bytes, a negative amount", m.NeedBytes)
	}
	return nil
}

// start launches a driver process with the coordinator's properties, the
// agent's own state.dir and client settings, and starts forwarding its
// events; it returns once the process said hello.
func (a *Agent) start(m *Message) (*Message, error) {
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
	if err := a.checkFree(m); err != nil {
		return nil, err
	}
	dir := a.instDir(m.Run, m.Fleet, m.Instance)
	props := a.processProperties(m.Properties)
	props["state.dir"] = filepath.Join(dir, "state")
	procDir := filepath.Join(dir, "run-"+strconv.Itoa(m.N+1))
	inst, err := ksdriver.Start(a.procCtx, ksdriver.Options{ID: m.Instance, Dir: procDir, Properties: props,
		Secrets: a.client.Secret, JVMFlags: m.JVMFlags, Lib: a.cfg.Lib, Java: a.cfg.Java, KafkaStreamsVersion: m.KafkaStreamsVersion})
	if err != nil {
		return nil, err
	}
	p := &agentProc{key: key, inst: inst, dir: procDir, forwarded: make(chan struct{})}
	a.mu.Lock()
	a.procs[key] = p
	a.mu.Unlock()
	go a.forward(p)
	a.cfg.Logf("agent %s: run %s: started %s process %d of %s (pid %d)", a.cfg.Name, m.Run, m.Fleet, m.N, m.Instance, inst.PID())
	return &Message{AtMonoNs: inst.LaunchMonoNs(), PID: inst.PID()}, nil
}
