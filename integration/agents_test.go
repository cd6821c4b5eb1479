package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain removes the binary restorebenchBinary built, if it did.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// restorebenchBinary builds the restorebench binary once per test process.
func restorebenchBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "restorebench-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "restorebench")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/restorebench/restorebench/cmd/restorebench").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// agentProc is a `restorebench agent` process the test started.
type agentProc struct {
	name, stateDir string
	cmd            *exec.Cmd
	log            *bytes.Buffer
	mu             *sync.Mutex
	exited         chan struct{}
}

// lockedWriter serialises the agent's log writes with the test's reads.
type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// startAgents starts one agent process per name, each with its own state
// directory, on the real broker, and stops them (SIGTERM, then SIGKILL)
// when the test ends. Names are unique to the test run.
func startAgents(t *testing.T, names ...string) []*agentProc {
	t.Helper()
	var out []*agentProc
	for _, name := range names {
		out = append(out, startAgent(t, name, "test="+t.Name(), t.TempDir()))
	}
	return out
}

// startAgent starts one agent with its --labels and --state-dir.
func startAgent(t *testing.T, name, labels, stateDir string) *agentProc {
	t.Helper()
	bin := restorebenchBinary(t)
	lib, err := ksdriver.FindLib()
	if err != nil {
		t.Fatal(err)
	}
	brokers := strings.Join(testkafka.RealBrokers(t), ",")
	a := &agentProc{name: name, stateDir: stateDir, log: &bytes.Buffer{}, mu: &sync.Mutex{}, exited: make(chan struct{})}
	a.cmd = exec.Command(bin, "agent", "--brokers", brokers, "--name", name, "--state-dir", a.stateDir, "--labels", labels,
		"--control-key-file", controlKeyFile(t))
	a.cmd.Dir = a.stateDir
	a.cmd.Env = append(os.Environ(), "RESTOREBENCH_KSTREAMS_LIB="+lib)
	a.cmd.Stdout, a.cmd.Stderr = lockedWriter{a.mu, a.log}, lockedWriter{a.mu, a.log}
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { a.cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() { a.stop(t) })
	return a
}

// controlKeyFile is the signing key file every agent and coordinator of
// the package's tests share, written once.
func controlKeyFile(t *testing.T) string {
	t.Helper()
	keyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "restorebench-control-key")
		if err != nil {
			keyErr = err
			return
		}
		keyPath = filepath.Join(dir, "control.key")
		keyErr = agent.WriteKeyFile(keyPath)
	})
	if keyErr != nil {
		t.Fatal(keyErr)
	}
	return keyPath
}

var (
	keyOnce sync.Once
	keyPath string
	keyErr  error
)

// controlKey is the key of controlKeyFile.
func controlKey(t *testing.T) *agent.Key {
	t.Helper()
	k, err := agent.LoadKey(controlKeyFile(t))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// stop ends the agent (SIGTERM: it stops its processes), then SIGKILL
// after 30 s, and logs what it said.
func (a *agentProc) stop(t *testing.T) {
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		a.cmd.Process.Kill()
		<-a.exited
	}
	a.mu.Lock()
	t.Logf("agent %s said:\n%s", a.name, a.log.String())
	a.mu.Unlock()
}

// agentNames are names unique to this test run: parallel tests asking
// within one millisecond get their own (an agent name shared by two
// tests' agents would take both tests' commands).
func agentNames(t *testing.T, n int) []string {
	stamp := time.Now().Format("150405.000")
	seq := agentNameSeq.Add(1)
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("it-%s-%d%c", stamp, seq, 'a'+i))
	}
	return out
}

// agentNameSeq numbers agentNames' calls.
var agentNameSeq atomic.Int64

// agentFailoverCase is a short failover: a standby, one kill.
func agentFailoverCase(run time.Duration) config.Case {
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario = "agents", config.EngineKafkaStreams, config.ScenarioFailover
	c.JVMHeap = 256 << 20
	c.Failover = &config.FailoverSettings{Rate: 200, Accounts: 100, Kills: 1, Standby: true, Persistent: true,
		Run: config.Duration(run), Partitions: 2, Seed: 1}
	return c
}

// runAgentFailover runs the failover case with env's instances.
func runAgentFailover(t *testing.T, env *bench.Env, c config.Case) ([]runs.Restore, error) {
	t.Helper()
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 100, 10, 1
	fill := ksFill(t, env, app, spec, "none")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return env.RunCaseAll(ctx, fill, app, ksStore, c, t.TempDir())
}

// TestAgentsFailoverAcrossTwoAgents runs the failover scenario with its two
// instances on two agents (separate processes, separate state dirs, only
// the broker between them and the coordinator): the ledger verifies, each
// instance ran on its own agent, the victim's tasks moved to the other
// agent's instance, both clocks are recorded with their bounds, and
// neither agent keeps a JVM or the run's directories.
func TestAgentsFailoverAcrossTwoAgents(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := startAgents(t, names...)
	env := connect(t, bench.Options{Agents: names})
	for _, a := range env.Agents.Agents() {
		if a.ClockBoundNs <= 0 || a.Facts.CPUs <= 0 || a.Facts.JavaVersion == "" || !a.Facts.DriverLib {
			t.Fatalf("agent record %+v", a)
		}
		t.Logf("agent %s: clock offset %.3f ms ± %.3f ms", a.Name, float64(a.ClockOffsetNs)/1e6, float64(a.ClockBoundNs)/1e6)
	}
	recs, err := runAgentFailover(t, env, agentFailoverCase(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	r := recs[0]
	f := r.Failover
	if !r.Verified || f == nil || f.Ledger == nil || f.Ledger.Lost != 0 || len(f.Tasks) == 0 {
		t.Fatalf("verified=%v error=%q failover %+v", r.Verified, r.Error, f)
	}
	pl := r.KafkaStreams.Placement
	if pl["i1"] == "" || pl["i2"] == "" || pl["i1"] == pl["i2"] || pl[f.Killed] == pl[f.Survivor] {
		t.Fatalf("placement %v: the two instances must run on the two agents", pl)
	}
	if f.ClockBoundSeconds <= 0 || f.ClockBoundSeconds > 0.1 {
		t.Errorf("clock bound %.4fs: want the two agents' bounds, each a round trip through the local broker", f.ClockBoundSeconds)
	}
	for _, task := range f.Tasks {
		if task.GapSeconds <= 0 || task.GapSeconds > 60 {
			t.Errorf("task %s: gap %.3fs", task.Task, task.GapSeconds)
		}
	}
	t.Logf("failover across agents: %s on %s killed, %s on %s took over (%s): max gap %.2fs ± %.4fs, detection %.2fs",
		f.Killed, pl[f.Killed], f.Survivor, pl[f.Survivor], f.Takeover, f.MaxGapSeconds, f.ClockBoundSeconds, f.DetectionSeconds)
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
		if left, _ := filepath.Glob(filepath.Join(a.stateDir, "rb-*")); len(left) > 0 {
			t.Errorf("agent %s kept %v", a.name, left)
		}
	}
}

// TestAgentKilledMidFailover kills one agent (SIGKILL, so it says nothing)
// while its instance runs: the run fails with one error naming the agent,
// within seconds, and no driver JVM is left on either agent.
func TestAgentKilledMidFailover(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := startAgents(t, names...)
	env := connect(t, bench.Options{Agents: names, AgentHeartbeatTimeout: 3 * time.Second})
	victim := agents[1]
	killed := make(chan time.Time, 1)
	go func() {
		// Once the victim runs its instance (a JVM under its state dir),
		// give it a moment and kill the agent.
		defer close(killed)
		for range 1200 {
			if out, _ := exec.Command("pgrep", "-f", "restorebench.kstreams.Driver "+victim.stateDir).Output(); len(out) > 0 {
				time.Sleep(3 * time.Second)
				killed <- time.Now()
				victim.cmd.Process.Kill()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	_, err := runAgentFailover(t, env, agentFailoverCase(60*time.Second))
	if err == nil || !errors.Is(err, agent.ErrAgentLost) || !strings.Contains(err.Error(), "agent "+victim.name+" lost: it stopped heartbeating") {
		t.Fatalf("a killed agent mid-failover: %v", err)
	}
	killedAt, ok := <-killed
	if !ok {
		t.Fatal("the agent was never killed")
	}
	if d := time.Since(killedAt); d > 30*time.Second {
		t.Errorf("the error came %s after the kill", d)
	}
	t.Logf("error %s after the kill: %v", time.Since(killedAt).Round(100*time.Millisecond), err)
	for _, a := range agents {
		deadline := time.Now().Add(15 * time.Second)
		for {
			out, _ := exec.Command("pgrep", "-f", "restorebench.kstreams.Driver "+a.stateDir).Output()
			if len(out) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("agent %s left a driver JVM: pid %s", a.name, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestAgentsScaleOutAcrossTwoAgents scales a streams-protocol group from
// one instance on one agent to two on two agents: balanced, every store
// verified, each instance named with its agent and Kafka Streams' process
// id (read through the agent).
func TestAgentsScaleOutAcrossTwoAgents(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := startAgents(t, names...)
	env := connect(t, bench.Options{Agents: names})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 20_000, 10_000, 100, 300, 4
	fill := ksFill(t, env, app, spec, "lz4")
	c := ksCase("scaleout", 1)
	c.Scenario, c.JVMHeap = config.ScenarioScaleOut, 256<<20
	c.ScaleOut = config.DefaultScaleOut()
	c.ScaleOut.Before, c.ScaleOut.After, c.ScaleOut.Rate = 1, 2, 300
	c.ScaleOut.Timeout, c.ScaleOut.Lead, c.ScaleOut.Settle = config.Duration(2*time.Minute), config.Duration(2*time.Second), config.Duration(3*time.Second)
	c.Streams = map[string]string{"group.protocol": "streams"}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	so := rec.ScaleOut
	if !rec.Verified || so == nil || !so.Balanced {
		t.Fatalf("verified %v (%s), record %+v", rec.Verified, rec.Verification.Problem, so)
	}
	on := map[string]string{}
	for _, in := range so.Instances {
		if in.Agent == "" || in.ProcessID == "" {
			t.Fatalf("instance %+v: no agent or process id", in)
		}
		on[in.ID] = in.Agent
	}
	if len(on) != 2 || on["i0"] != names[0] || on["i1"] != names[1] {
		t.Fatalf("instances on %v, want i0 on %s and i1 on %s", on, names[0], names[1])
	}
	t.Logf("scale-out across agents: balanced after %.1fs", so.WarmupAssignmentSeconds)
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
	}
}
