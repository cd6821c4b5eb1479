package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
)

// fakeJava stands in for `java ... Driver CONFIG` so the agent protocol is
// tested without a JVM: it says hello, writes a process id into its
// state.dir, appends a line to <instance dir>/starts, emits an api event
// (127.0.0.1:4242) when its API layer is asked for, one processed
// event with clock readings, answers digest, balances and entries (1.2 MB
// of them, more than one control record), and stops on
// `stop` or the end of stdin.
const fakeJava = `#!/bin/bash
if [ "$1" = -version ]; then echo run >> "$(dirname "$0")/java-version-runs"; echo 'openjdk version "17.0.0-fake"' >&2; exit 0; fi
config="${@: -1}"
get() { sed -n "s/^$1=//p" "$config" | sed 's/\\:/:/g'; }
id=$(get restorebench.instance.id)
state=$(get state.dir)
app=$(get application.id)
echo start >> "$(dirname "$(dirname "$config")")/starts"
get bootstrap.servers > "$(dirname "$config")/bootstrap"
mkdir -p "$state/$app"
printf '{"processId":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"}' > "$state/$app/kafka-streams-process-metadata"
now() { cut -d' ' -f1 /proc/uptime | tr -d .; }
ev() { printf '{"ev":"%s","instance":"%s","mono_ns":%s,"wall_ms":1%s}\n' "$1" "$id" "$2" "$3"; }
ev hello 1000 ',"pid":'$$',"kafka_streams_version":"fake","java_version":"0","jvm_args":[],"max_heap_bytes":1,"gc":[],"topology":"ledger","store":"s","bare":false'
[ -n "$(get restorebench.api.port)" ] && ev api 1500 ',"host":"127.0.0.1","port":4242'
ev processed 2000 ',"partitions":[{"topic":"t","partition":0,"records":1,"last_offset":0,"first_mono_ns":3000,"last_mono_ns":4000}]'
while read -r cmd arg; do
	case "$cmd" in
	digest) ev digest 5000 ',"store":"s","scope":"active","seconds":0.1,"partitions":[{"partition":0,"keys":1,"live_bytes":2,"digest":"0000000000000003"}]' ;;
	balances) printf 'acct-1\t5\t1\nacct-2\t-3\t2\n' > "$arg"; ev balances 6000 ',"path":"'"$arg"'","accounts":2,"transactions":3,"seconds":0.01' ;;
	entries) set -- $arg; head -c 1200000 /dev/zero | tr '\0' k > "$2"; ev entries 6500 ',"path":"'"$2"'","partition":'"$1"',"keys":1,"seconds":0.01' ;;
	stop) break ;;
	*) ev error 7000 ',"message":"unknown command: '"$cmd"'","where":"command","stack":""' ;;
	esac
done
ev stopped 8000 ',"clean":true,"seconds":0.01'
exit 0
`

// testAgent is an agent on the embedded broker running fakeJava.
type testAgent struct {
	a      *Agent
	dir    string
	cancel context.CancelFunc
	done   chan error
}

func startAgent(t *testing.T, cfg cluster.Config, name string, heartbeat time.Duration) *testAgent {
	t.Helper()
	return startAgentWith(t, cfg, name, heartbeat, nil)
}

// startAgentWith is startAgent with the model restorer model (nil: none).
func startAgentWith(t *testing.T, cfg cluster.Config, name string, heartbeat time.Duration, model ModelRestorer) *testAgent {
	t.Helper()
	return startAgentConfig(t, cfg, name, heartbeat, func(c *Config) { c.ModelRestore = model })
}

// startAgentConfig is startAgent with its Config changed by set.
func startAgentConfig(t *testing.T, cfg cluster.Config, name string, heartbeat time.Duration, set func(*Config)) *testAgent {
	t.Helper()
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	if err := os.WriteFile(java, []byte(fakeJava), 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	ctx, cancel := context.WithCancel(context.Background())
	c := Config{Cluster: cfg, Name: name, StateDir: state, Labels: map[string]string{"zone": "a"},
		ToolVersion: "test", Heartbeat: heartbeat, StopTimeout: 2 * time.Second, Java: java, Lib: dir, Logf: t.Logf, Key: testKey(t)}
	set(&c)
	a, err := New(ctx, c)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ta := &testAgent{a: a, dir: state, cancel: cancel, done: make(chan error, 1)}
	go func() { ta.done <- a.Serve(ctx) }()
	t.Cleanup(ta.stop)
	return ta
}

// stop ends the agent and waits until it has.
func (ta *testAgent) stop() {
	ta.cancel()
	<-ta.done
	ta.done <- nil // for a second stop
}

func openCoordinator(t *testing.T, cfg cluster.Config, c CoordinatorConfig) *Coordinator {
	t.Helper()
	c.Cluster, c.Logf = cfg, t.Logf
	// A test about losing an agent sets its own short timeout; the others
	// must not lose one to a starved CPU (make test runs them beside the
	// integration tests, and an agent once went 8 s without a heartbeat).
	if c.HeartbeatTimeout == 0 {
		c.HeartbeatTimeout = 30 * time.Second
	}
	if c.Key == nil && !c.Insecure {
		c.Key = testKey(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	co, err := Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(co.Close)
	return co
}

// testKey is the key every test agent and coordinator share (a fixed one,
// so a test can forge with another).
func testKey(t *testing.T) *Key {
	t.Helper()
	k, err := NewKey([]byte("restorebench test key: 32 bytes or more, never used outside tests"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestCommandsAndEvents runs a process on an agent through the topics:
// facts and clock are known, events arrive in order on the coordinator's
// clock, commands get their replies, stop is clean, and wipe and remove
// delete what the agent kept.
func TestCommandsAndEvents(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "run1"})
	ag := co.Agents()[0]
	if ag.Name != "a1" || ag.Facts.CPUs <= 0 || ag.Facts.ToolVersion != "test" || ag.Labels["zone"] != "a" || ag.Facts.StateDirFree <= 0 {
		t.Fatalf("agent record %+v", ag)
	}
	if ag.ClockBoundNs <= 0 || abs(ag.ClockOffsetNs) > ag.ClockBoundNs || ag.ClockRoundTrips != DefaultClockRounds {
		t.Fatalf("one host, one clock: offset %d ns must lie within its bound %d ns (%d round trips)", ag.ClockOffsetNs, ag.ClockBoundNs, ag.ClockRoundTrips)
	}
	t.Logf("clock offset %.3f ms ± %.3f ms", float64(ag.ClockOffsetNs)/1e6, float64(ag.ClockBoundNs)/1e6)
	ctx := context.Background()
	spec := ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app",
		"bootstrap.servers": "coordinator:1", "security.protocol": "PLAINTEXT"}}
	p, err := co.Start(ctx, "a1", spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hello().KafkaStreamsVersion != "fake" || p.LaunchMonoNs() == 0 {
		t.Fatalf("hello %+v, launch %d", p.Hello(), p.LaunchMonoNs())
	}
	e, err := p.Next(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	pr := e.(*ksdriver.Processed)
	off := co.Clock("a1").OffsetNs
	if pr.MonoNs != 2000-off || pr.Partitions[0].FirstMonoNs != 3000-off || pr.Partitions[0].LastMonoNs != 4000-off {
		t.Fatalf("processed not moved by the offset %d: %+v", off, pr)
	}
	if _, err := p.Request(ctx, "digest", ksdriver.EvDigest); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Request(ctx, "bogus", ksdriver.EvDigest); err == nil || !strings.Contains(err.Error(), "agent a1 refused it: send \"bogus\": a driver command line is one of stop, digest, digest all") {
		t.Fatalf("a driver command the agent does not pass on: %v", err)
	}
	tsv, err := p.Fetch(ctx, "balances")
	if err != nil || string(tsv) != "acct-1\t5\t1\nacct-2\t-3\t2\n" {
		t.Fatalf("balances %q, %v", tsv, err)
	}
	// A file larger than one control record comes back whole, in parts.
	if b, err := p.Fetch(ctx, "entries 3"); err != nil || len(b) != 1200000 || strings.Trim(string(b), "k") != "" {
		t.Fatalf("entries of partition 3: %d bytes, %v", len(b), err)
	}
	if _, err := p.Fetch(ctx, "entries 3 /etc/passwd"); err == nil || !strings.Contains(err.Error(), "takes 1 argument(s) before its path") {
		t.Fatalf("a fetch naming its own path: %v", err)
	}
	inst := filepath.Join(ta.dir, "run1", "app", "i1")
	if b, _ := os.ReadFile(filepath.Join(inst, "run-1", "bootstrap")); strings.TrimSpace(string(b)) != strings.Join(cfg.Brokers, ",") {
		t.Fatalf("the process reached %q, not the agent's brokers %v", b, cfg.Brokers)
	}
	if pid, err := co.ProcessID(ctx, "a1", "app", "i1"); err != nil || pid != "1b4e28ba-2fa1-11d2-883f-0016d3cca427" {
		t.Fatalf("process id %q, %v", pid, err)
	}
	if err := co.Wipe(ctx, "a1", "app", "i1"); err == nil {
		t.Fatal("wiped the state of a running instance")
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Next(ctx, p.Len()); err == nil || !strings.Contains(err.Error(), "exit status 0") {
		t.Fatalf("past the last event: %v", err)
	}
	if err := co.Wipe(ctx, "a1", "app", "i1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(inst, "state")); !os.IsNotExist(err) {
		t.Fatalf("state dir after wipe: %v", err)
	}
	if err := co.Remove(ctx, "a1", "app"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ta.dir, "run1")); !os.IsNotExist(err) {
		t.Fatalf("run dir after remove: %v", err)
	}
}

// TestCommandIdempotent sends one start command three times with one id:
// one process starts, and the repeat after it finished gets the same reply.
func TestCommandIdempotent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "run2"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := withArgs(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Agent: "a1", Run: "run2", ID: "dup", Op: OpStart, Fleet: "app", Instance: "i1"},
		StartArgs{Properties: map[string]string{"application.id": "app"}})
	ch := make(chan reply, 4)
	co.mu.Lock()
	co.pending["dup"] = &pending{agent: "a1", ch: ch}
	co.mu.Unlock()
	for range 2 {
		if err := co.bus.send(ctx, ControlTopic, "a1", m.Encode()); err != nil {
			t.Fatal(err)
		}
	}
	first := <-ch
	co.mu.Lock()
	co.pending["dup"] = &pending{agent: "a1", ch: ch}
	co.mu.Unlock()
	if err := co.bus.send(ctx, ControlTopic, "a1", m.Encode()); err != nil {
		t.Fatal(err)
	}
	var again reply
	select {
	case again = <-ch:
	case <-ctx.Done():
		t.Fatal("no reply to the repeated command")
	}
	if !first.m.OK || resultOf[Started](t, first.m).PID == 0 || resultOf[Started](t, again.m).PID != resultOf[Started](t, first.m).PID {
		t.Fatalf("first reply %+v, repeat %+v", first.m, again.m)
	}
	b, _ := os.ReadFile(filepath.Join(ta.dir, "run2", "app", "i1", "starts"))
	if n := strings.Count(string(b), "start"); n != 1 || ta.a.Processes() != 1 {
		t.Fatalf("%d starts, %d processes: want 1", n, ta.a.Processes())
	}
}

// TestAgentLost: an agent that stops heartbeating, and one that shuts
// down, each end their processes on the coordinator with one error naming
// the agent.
func TestAgentLost(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	startAgent(t, cfg, "quiet", 4*time.Second) // heartbeats slower than the coordinator allows
	gone := startAgent(t, cfg, "gone", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"quiet", "gone"}, Run: "run3", HeartbeatTimeout: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := co.Start(ctx, "gone", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); gone.stop() }()
	_, err = p.Next(ctx, 1<<20)
	wg.Wait()
	var le *LostError
	if !errors.As(err, &le) && !strings.Contains(err.Error(), "agent gone") {
		t.Fatalf("the process of an agent that shut down ended with %v", err)
	}
	t.Logf("shut down: %v", err)
	for co.Lost("quiet") == nil {
		select {
		case <-ctx.Done():
			t.Fatal("the silent agent was never lost")
		case <-time.After(100 * time.Millisecond):
		}
	}
	err = co.Lost("quiet")
	if !errors.Is(err, ErrAgentLost) || !strings.Contains(err.Error(), "agent quiet lost: it stopped heartbeating") {
		t.Fatalf("silent agent: %v", err)
	}
	if _, err := co.Do(ctx, "quiet", &Message{Op: OpHello}); !errors.Is(err, ErrAgentLost) {
		t.Fatalf("a command to a lost agent: %v", err)
	}
}

// TestAgentRestarted: a new agent process under a name in use (systemd
// restarted it within the heartbeat timeout) loses the agent: its
// instances died with the old process.
func TestAgentRestarted(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "run5"})
	time.Sleep(5 * time.Millisecond) // a new start time, in ms
	startAgent(t, cfg, "a1", time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for co.Lost("a1") == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := co.Lost("a1"); err == nil || !strings.Contains(err.Error(), "agent a1 lost: it restarted") {
		t.Fatalf("a restarted agent: %v", err)
	}
}

// TestLeaseExpiry: when the coordinator goes away, the agent stops its
// run's processes once the lease expires, and refuses the run's commands.
func TestLeaseExpiry(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "run4", LeaseTTL: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := co.Start(ctx, "a1", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}}); err != nil {
		t.Fatal(err)
	}
	co.Close()
	for ta.a.Processes() != 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the agent kept the process of a run whose lease expired")
		case <-time.After(100 * time.Millisecond):
		}
	}
	ta.a.mu.Lock()
	kept, counted, bytes := len(ta.a.replies), len(ta.a.done), ta.a.doneBytes
	ta.a.mu.Unlock()
	if kept != 0 || counted != 0 || bytes != 0 {
		t.Fatalf("%d replies of the expired run kept, %d of %d bytes still counted against the kept replies' bound", kept, counted, bytes)
	}
}

// TestEstimateClock picks the round trip with the least delay and bounds
// the offset by half of it.
func TestEstimateClock(t *testing.T) {
	const off = 5_000_000 // the agent is 5 ms ahead
	samples := []ClockSample{
		{T0: 0, T1: 9_000_000 + off, T2: 9_100_000 + off, T3: 10_000_000},            // slow out, fast back
		{T0: 20_000_000, T1: 20_600_000 + off, T2: 20_700_000 + off, T3: 21_000_000}, // the best: 0.9 ms delay
		{T0: 30_000_000, T1: 30_100_000 + off, T2: 30_200_000 + off, T3: 38_000_000}, // fast out, slow back
		{T0: 40_000_000, T1: 50_000_000, T2: 49_000_000, T3: 41_000_000},             // agent's times backwards: refused
	}
	est, err := EstimateClock(samples)
	if err != nil {
		t.Fatal(err)
	}
	if est.BoundNs != 450_000 || abs(est.OffsetNs-off) > est.BoundNs || est.Samples != 4 {
		t.Fatalf("estimate %+v, true offset %d", est, off)
	}
	if _, err := EstimateClock(samples[3:]); err == nil {
		t.Fatal("an estimate from no usable sample")
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestAnyAgentsTakesTheFirstHeardByName: a coordinator asking for any 2
// agents takes 2 of the 3 heartbeating, by name, learns their facts and
// commands them; asking for more than run names how many it heard.
func TestAnyAgentsTakesTheFirstHeardByName(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	for _, name := range []string{"c-host", "a-host", "b-host"} {
		startAgent(t, cfg, name, 300*time.Millisecond)
	}
	co := openCoordinator(t, cfg, CoordinatorConfig{Any: 2, Run: "run-any", Wait: 10 * time.Second})
	if got := strings.Join(co.Names(), ","); got != "a-host,b-host" {
		t.Fatalf("any:2 took %s, want a-host,b-host", got)
	}
	for _, a := range co.Agents() {
		if a.Labels["zone"] != "a" {
			t.Errorf("agent %s: facts %+v, want its labels", a.Name, a)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := co.Do(ctx, "b-host", &Message{Op: OpHello}); err != nil {
		t.Fatalf("a command to a chosen agent: %v", err)
	}
	if _, err := co.Do(ctx, "c-host", &Message{Op: OpHello}); err == nil {
		t.Fatal("a command to an agent any:2 did not take succeeded")
	}
	_, err := Open(ctx, CoordinatorConfig{Cluster: cfg, Any: 5, Run: "run-any5", Wait: 2 * time.Second, Key: testKey(t)})
	if err == nil || !strings.Contains(err.Error(), "any:5 agents: only 3 heard from on restorebench-control within 2s (a-host, b-host, c-host)") {
		t.Fatalf("any:5 with 3 agents: %v", err)
	}
}
