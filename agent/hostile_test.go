package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// forger writes records to the control topic as an attacker would: with
// no key, another key, a stale timestamp, a tampered value, or a copy of a
// record the coordinator signed.
type forger struct {
	t  *testing.T
	cl *kgo.Client
	n  int
}

func newForger(t *testing.T, cfg cluster.Config) *forger {
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &forger{t: t, cl: cl}
}

// produce writes value keyed agent with headers.
func (f *forger) produce(agent string, value []byte, headers []kgo.RecordHeader) {
	f.t.Helper()
	r := &kgo.Record{Topic: ControlTopic, Key: []byte(agent), Value: value, Headers: headers}
	if err := f.cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
}

// signed is r's headers under key k at time at, with a fresh nonce.
func (f *forger) signed(k *Key, at time.Time, agent string, value []byte) []kgo.RecordHeader {
	f.n++
	ts := strconv.FormatInt(at.UnixMilli(), 10)
	nonce := "forger-" + strconv.Itoa(f.n)
	mac := k.mac(k.id, ts, nonce, ControlTopic, []byte(agent), value)
	return []kgo.RecordHeader{{Key: headerKeyID, Value: []byte(k.id)}, {Key: headerTime, Value: []byte(ts)},
		{Key: headerNonce, Value: []byte(nonce)}, {Key: headerMAC, Value: []byte(hex.EncodeToString(mac))}}
}

// hostileCommands are one command of every operation, each of which would
// do something if it ran: start a process, write a file, delete the
// victim's state, fill a topic, restore, query.
func hostileCommands(run string) []*Message {
	job := modelJob()
	spec := loadgen.DefaultSpec()
	spec.Records = 500
	qj := queryJob()
	args := map[string]any{OpStart: StartArgs{Properties: map[string]string{"application.id": "app"}}, OpSend: SendArgs{Line: "digest"},
		OpFetch: FetchArgs{Line: "balances"}, OpModelRestore: job, OpFill: FillJob{Topic: "user-orders", Spec: spec}, OpQueries: qj, OpQueriesStop: QueryStop{}}
	var out []*Message
	// Every registered operation: one added later is forged too.
	for i, op := range Ops() {
		m := &Message{Type: TypeCommand, Protocol: ProtocolVersion, Agent: "victim", Run: run, ID: "forged" + strconv.Itoa(i), Op: op,
			Fleet: "app", Instance: "i1"}
		if a := args[op]; a != nil {
			withArgs(m, a)
		}
		out = append(out, m)
	}
	return out
}

// TestForgedCommandsDoNothing forges every operation unsigned, signed with
// another key, with a tampered value, stale and replayed, and a bye from
// the agent: none runs (no process, no restore, no fill, no query load,
// the state directory kept, no reply), each is counted under its reason,
// the coordinator keeps the agent, and signed commands still work.
func TestForgedCommandsDoNothing(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	model, loads := &fakeModel{}, &fakeLoads{}
	var fills atomic.Int32
	ta := startAgentConfig(t, cfg, "victim", time.Second, func(c *Config) {
		c.ModelRestore, c.Queries = model.restore, loads.start
		c.Fill = func(context.Context, cluster.Config, FillJob, func(string, ...any)) (*Filled, error) {
			fills.Add(1)
			return &Filled{}, nil
		}
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"victim"}, Run: "legit"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The legitimate run's instance, whose state a forged wipe or remove
	// would delete.
	p, err := co.Start(ctx, "victim", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	state := ta.a.stateDir("legit", "app", "i1")
	if _, err := os.Stat(state); err != nil {
		t.Fatal(err)
	}

	f := newForger(t, cfg)
	other, err := NewKey([]byte("an attacker's own key, 32 bytes or more......"))
	if err != nil {
		t.Fatal(err)
	}
	key := testKey(t)
	forged := 0
	for _, run := range []string{"legit", "forged-run"} {
		lease := (&Message{Type: TypeLease, Agent: "victim", Run: run, TTLMs: 1}).Encode()
		f.produce("victim", lease, nil)
		for _, m := range hostileCommands(run) {
			v := m.Encode()
			f.produce("victim", v, nil)                                             // unsigned
			f.produce("victim", v, f.signed(other, time.Now(), "victim", v))        // another key
			tampered := f.signed(key, time.Now(), "victim", []byte(`{"type":"x"}`)) // the MAC of another value
			f.produce("victim", v, tampered)
			f.produce("victim", v, f.signed(key, time.Now().Add(-10*time.Minute), "victim", v)) // stale
			f.produce("victim", v, f.signed(key, time.Now().Add(10*time.Minute), "victim", v))  // from the future
			forged += 5
		}
	}
	// A record the coordinator signed, written again by someone who read
	// it off the topic: a kill of the legitimate process, replayed after
	// the process was started again would kill it; here it is replayed at
	// once, and must be refused as a replay.
	replay := captureSigned(t, co, &Message{Type: TypeCommand, Agent: "victim", Run: "legit", ID: "r1", Op: OpDiskUsage, Fleet: "app", Instance: "i1"})
	f.produce("victim", replay.Value, replay.Headers)
	f.produce("victim", replay.Value, replay.Headers)
	// A forged bye would end the coordinator's run; a forged exit record
	// would end the legitimate process with the forger's error.
	f.produce("victim", (&Message{Type: TypeBye, Agent: "victim"}).Encode(), nil)
	exit := mustJSON(Record{Run: "legit", Fleet: "app", Agent: "victim", Instance: "i1", N: 0, Seq: int64(p.Len()), Exit: &Exit{Error: "forged"}})
	if err := f.cl.ProduceSync(ctx, &kgo.Record{Topic: EventsTopic, Key: []byte(EventKey("legit", "app", "i1")), Value: exit}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// The control topic has one partition, read in order: once a signed
	// command after all of these is answered, every forged one was read.
	if _, err := co.DiskUsage(ctx, "victim", "app", "i1"); err != nil {
		t.Fatal(err)
	}
	if err := co.Lost("victim"); err != nil {
		t.Fatalf("a forged bye lost the agent: %v", err)
	}
	if model.calls.Load() != 0 || fills.Load() != 0 || len(loads.jobs) != 0 {
		t.Fatalf("forged commands ran: %d restores, %d fills, %d query loads", model.calls.Load(), fills.Load(), len(loads.jobs))
	}
	if n := ta.a.Processes(); n != 1 {
		t.Fatalf("%d processes: want the legitimate one alone", n)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the legitimate instance's state directory is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ta.dir, "forged-run")); !os.IsNotExist(err) {
		t.Fatalf("a forged run left %s: %v", filepath.Join(ta.dir, "forged-run"), err)
	}
	got := ta.a.refused()
	// Per run: a lease and every command unsigned, then each command
	// under another key, tampered, stale and from the future.
	n := int64(len(Ops()))
	if n != 15 {
		t.Fatalf("%d operations registered (%v): want the protocol's 15", n, Ops())
	}
	want := map[string]int64{RefusedUnsigned: 2 * (n + 1), RefusedUnknownKey: 2 * n, RefusedBadMAC: 2 * n, RefusedStale: 4 * n, RefusedReplayed: 1}
	for reason, n := range want {
		if got[reason] < n {
			t.Errorf("refused %s: %d, want at least %d (all: %v)", reason, got[reason], n, got)
		}
	}
	// The coordinator reads its agents' key on the control topic (the
	// forged commands too) and its run's events.
	wantCo := want[RefusedUnsigned] + 2
	for co.Refused()[RefusedUnsigned] < wantCo && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	if n := co.Refused()[RefusedUnsigned]; n != wantCo {
		t.Errorf("the coordinator refused %d unsigned records, want %d: the forged commands, bye and exit: %v", n, wantCo, co.Refused())
	}
	select {
	case <-p.Done():
		t.Fatal("a forged exit record ended the legitimate process")
	default:
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// captureSigned signs m as the coordinator's bus would and returns the
// record, without sending it.
func captureSigned(t *testing.T, co *Coordinator, m *Message) *kgo.Record {
	t.Helper()
	m.Protocol = ProtocolVersion
	r := &kgo.Record{Topic: ControlTopic, Key: []byte(m.Agent), Value: m.Encode()}
	co.bus.sig.mu.Lock()
	co.bus.sig.sign(r)
	co.bus.sig.mu.Unlock()
	return r
}

// TestSignedButInvalidCommandsRefused: a coordinator's command that
// verifies is still checked field by field: each hostile payload of the
// hardening round is refused with an error naming what is wrong, and none
// of them starts a process, writes outside the state directory, deletes a
// directory, writes a topic or crashes the agent.
func TestSignedButInvalidCommandsRefused(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	model, loads := &fakeModel{}, &fakeLoads{}
	var fills atomic.Int32
	ta := startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) {
		c.ModelRestore, c.Queries = model.restore, loads.start
		c.Fill = func(context.Context, cluster.Config, FillJob, func(string, ...any)) (*Filled, error) {
			fills.Add(1)
			return &Filled{}, nil
		}
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runv"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	outside := t.TempDir()
	marker := filepath.Join(outside, "keep")
	if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A user's topic holding records.
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "user-orders"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "user-orders", Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p, err := co.Start(ctx, "a1", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := loadgen.DefaultSpec()
	spec.Records = 500
	job := modelJob()
	job.AppID = "../../../../" + strings.TrimPrefix(outside, "/")
	zipf := queryJob()
	zipf.Load.Keys, zipf.Load.ZipfS = config.KeysZipf, 1.0
	huge := spec
	huge.Records = 1 << 50
	for _, tc := range []struct {
		name string
		m    *Message
		want string
	}{
		{"a JVM flag that runs a command", withArgs(&Message{Op: OpStart, Fleet: "app", Instance: "i2", N: 0}, StartArgs{Properties: map[string]string{"application.id": "app"},
			JVMFlags: []string{"-XX:OnOutOfMemoryError=touch " + marker, "-XX:MaxMetaspaceSize=12m"}}), "jvm_flags[0]: -XX:OnOutOfMemoryError is not one of the memory and garbage-collector flags"},
		{"a heap dump holding the password", withArgs(&Message{Op: OpStart, Fleet: "app", Instance: "i2"}, StartArgs{Properties: map[string]string{"application.id": "app"},
			JVMFlags: []string{"-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + marker}}), "jvm_flags[0]: -XX:+HeapDumpOnOutOfMemoryError is not one of"},
		{"a config provider reading files", withArgs(&Message{Op: OpStart, Fleet: "app", Instance: "i2"}, StartArgs{Properties: map[string]string{"application.id": "app", "client.id": "${file:/etc/hostname:x}"}}),
			"client.id: the value references a config provider"},
		{"another application's group", withArgs(&Message{Op: OpStart, Fleet: "app", Instance: "i2"}, StartArgs{Properties: map[string]string{"application.id": "user-app"}}),
			"application.id \"user-app\" is not the fleet's (app)"},
		{"a driver line writing any file", withArgs(&Message{Op: OpSend, Fleet: "app", Instance: "i1"}, SendArgs{Line: "balances " + marker}), "a driver command line is one of stop, digest, digest all"},
		{"a second command on one line", withArgs(&Message{Op: OpSend, Fleet: "app", Instance: "i1"}, SendArgs{Line: "digest\nbalances " + marker}), "a driver command line is one of"},
		{"an application id that climbs out", withArgs(&Message{Op: OpModelRestore, Fleet: "app", Instance: "i1"}, job), "application id \"../../"},
		{"a fill into a user's topic", withArgs(&Message{Op: OpFill}, FillJob{Topic: "user-orders", Spec: func() loadgen.Spec { s := spec; s.Partitions = 1; return s }()}),
			"topic user-orders is not empty (partition 0 ends at offset 1)"},
		{"a fill of a petabyte", withArgs(&Message{Op: OpFill}, FillJob{Topic: "any", Spec: huge}), "more than the 1099511627776 an agent writes for one fill"},
		{"a Zipf exponent of 1", withArgs(&Message{Op: OpQueries, Fleet: "app", Instance: "i1"}, zipf), "queries.zipf_s: 1 must be in (1, 10]"},
		{"a path as the fleet", &Message{Op: OpWipe, Fleet: "..", Instance: "i1"}, "fleet \"..\" is not a plain name"},
		{"an unknown operation", &Message{Op: "exec", Fleet: "app", Instance: "i1"}, "unknown command \"exec\""},
	} {
		_, err := co.Do(ctx, "a1", tc.m)
		if err == nil || !strings.Contains(err.Error(), "agent a1 refused it") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it refused with %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("a file outside the state directory is gone or was never there: %v", err)
	}
	if b, _ := os.ReadFile(marker); string(b) != "x" {
		t.Fatalf("a file outside the state directory was overwritten: %q", b)
	}
	if model.calls.Load() != 0 || fills.Load() != 0 || len(loads.jobs) != 0 || ta.a.Processes() != 1 {
		t.Fatalf("refused commands ran: %d restores, %d fills, %d query loads, %d processes", model.calls.Load(), fills.Load(), len(loads.jobs), ta.a.Processes())
	}
	if n := ta.a.refused()["invalid"]; n < 12 {
		t.Errorf("%d commands counted as invalid, want 12", n)
	}
	// The agent still works.
	if _, err := p.Request(ctx, "digest", ksdriver.EvDigest); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAgentWithoutKeyRefusesToStart: an agent with no signing key does not
// start unless told it may run insecure, and says why.
func TestAgentWithoutKeyRefusesToStart(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	_, err := New(context.Background(), Config{Cluster: cfg, Name: "a1", StateDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--control-key-file") || !strings.Contains(err.Error(), "--insecure") || !strings.Contains(err.Error(), "anyone who can write to "+ControlTopic) {
		t.Fatalf("an agent without a key: %v", err)
	}
	_, err = Open(context.Background(), CoordinatorConfig{Cluster: cfg, Agents: []string{"a1"}})
	if err == nil || !strings.Contains(err.Error(), "--control-key-file") {
		t.Fatalf("a coordinator without a key: %v", err)
	}
}

// TestProtocolVersionMismatch: a command of another protocol version is
// refused with both versions named.
func TestProtocolVersionMismatch(t *testing.T) {
	err := validate(&Message{Type: TypeCommand, Protocol: 1, Run: "r", ID: "c1", Op: OpHello})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("protocol version 1, and this restorebench speaks version %d", ProtocolVersion)) {
		t.Fatalf("a version-1 command: %v", err)
	}
}

// TestKeyFile: keygen writes a key that loads, owner-readable, never over
// an existing file; a short key is refused; the key prints as its id only.
func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "control.key")
	if err := WriteKeyFile(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v: want 0600", st.Mode(), err)
	}
	k, err := LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteKeyFile(path); err == nil || !strings.Contains(err.Error(), "never overwritten") {
		t.Fatalf("a second keygen over the file: %v", err)
	}
	if k2, _ := LoadKey(path); k2 == nil || k2.ID() != k.ID() {
		t.Fatal("the key changed")
	}
	if s := k.String(); strings.Contains(s, string(k.secret)) || !strings.Contains(s, k.ID()) {
		t.Fatalf("a key prints as %q", s)
	}
	// The deploy Secret's placeholder is refused, so an agent deployed
	// without a real key does not start.
	short := filepath.Join(t.TempDir(), "short.key")
	os.WriteFile(short, []byte("REPLACE: agent keygen FILE\n"), 0o600)
	if _, err := LoadKey(short); err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
		t.Fatalf("a 26-byte key: %v", err)
	}
}

// TestKeyFileHostile: a key file others may read is refused naming the
// file, its mode and chmod 600 (group read only on a root-owned file, as a
// Kubernetes Secret mounts it); a device, a FIFO or a huge file is one
// error at once, not an endless read or a blocked open; a key that is not
// random (one byte repeated, a short pattern, a sequence, a small
// alphabet) is refused naming why and keygen, while keygen's keys and hex
// keys load.
func TestKeyFileHostile(t *testing.T) {
	dir := t.TempDir()
	good := string(KeyFileContents())
	for _, c := range []struct {
		name string
		mode os.FileMode
		want string
	}{
		{"world.key", 0o644, "mode 0644 lets others read or write it"},
		{"group.key", 0o640, "mode 0640 lets its group read or write it"},
		{"groupw.key", 0o620, "chmod 600"},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(good), 0o600)
		os.Chmod(p, c.mode)
		_, err := LoadKey(p)
		if os.Getuid() == 0 && c.mode == 0o640 {
			// root owns it: group read is the Kubernetes Secret's way.
			if err != nil {
				t.Errorf("a root-owned 0640 key: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) ||
			!strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("a %#o key file: %v, want %q naming it", c.mode, err, c.want)
		}
	}
	fifo := filepath.Join(dir, "fifo.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.key")
	os.WriteFile(big, nil, 0o600)
	os.Truncate(big, 8<<20)
	for path, want := range map[string]string{"/dev/zero": "character device", fifo: "named pipe (FIFO)", big: "over the 64 KiB"} {
		done := make(chan error, 1)
		go func() { _, err := LoadKey(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: %v, want %q naming it", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadKey(%s) blocked", path)
		}
	}
	for _, c := range []struct{ key, want string }{
		{strings.Repeat("a", 32), "made of 1 distinct bytes"},
		{strings.Repeat("0123456789abcdef", 4), "a pattern of 16 bytes repeated"},
		{"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "a sequence"},
		{"abbabaabbaababbacdefghabbaababba", "about 64 bits by its bytes' frequencies"},
	} {
		_, err := NewKey([]byte(c.key))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "restorebench agent keygen") || strings.Contains(err.Error(), c.key) {
			t.Errorf("key %q: %v, want %q and keygen, without the key", c.key, err, c.want)
		}
	}
	for i := 0; i < 200; i++ {
		hexKey := hex.EncodeToString([]byte(KeyFileContents()[:32]))
		for _, k := range []string{strings.TrimSpace(string(KeyFileContents())), hexKey} {
			if _, err := NewKey([]byte(k)); err != nil {
				t.Fatalf("a random key %q: %v", k, err)
			}
		}
	}
}

// TestReplayWindow: within a stream, each counter is accepted once, late
// ones within the window too, and one further back than the window is
// refused.
func TestReplayWindow(t *testing.T) {
	v := newVerifier(testKey(t), 0, "test", t.Logf)
	id := streamID{"s", ControlTopic, "a1"}
	now := time.Now()
	for _, step := range []struct {
		n    uint64
		want bool
	}{{1, true}, {3, true}, {2, true}, {3, false}, {2, false}, {2000, true}, {1500, true}, {900, false}, {1500, false}, {2001, true}} {
		if got := v.fresh(id, step.n, now) == nil; got != step.want {
			t.Errorf("counter %d accepted %v, want %v", step.n, got, step.want)
		}
	}
}

// TestAgentStopsPromptlyWithoutBroker: an agent whose broker has gone away
// still stops on its signal within seconds (a Kubernetes pod within its
// grace period), instead of waiting on writes nobody will take.
func TestAgentStopsPromptlyWithoutBroker(t *testing.T) {
	cfg, e := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", 100*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // a few heartbeats
	e.Close()
	time.Sleep(500 * time.Millisecond) // writes pile up
	start := time.Now()
	ta.cancel()
	select {
	case <-ta.done:
		ta.done <- nil
	case <-time.After(60 * time.Second):
		t.Fatal("the agent did not stop within 60 s of its signal")
	}
	// Bounded by the bye's wait, not by the client's retries.
	if d := time.Since(start); d > 4*byeWait {
		t.Fatalf("the agent took %s to stop without its broker: want it within the bye's %s", d.Round(time.Millisecond), byeWait)
	}
}

// TestAgentStateIsBounded: an agent follows at most maxRuns runs (a new one
// beyond them is refused until expired ones are forgotten), refuses a lease
// out of bounds, and forgets a run's replies when it forgets the run.
func TestAgentStateIsBounded(t *testing.T) {
	a := &Agent{leases: map[string]leaseInfo{}, replies: map[string]*Message{}, bound: map[string]map[uint64]context.CancelCauseFunc{}}
	for i := range maxRuns {
		if err := a.lease("run"+strconv.Itoa(i), time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.lease("one-more", time.Second); err == nil || !strings.Contains(err.Error(), "already follows 64 runs") {
		t.Fatalf("run %d: %v", maxRuns+1, err)
	}
	// Expired long ago: forgotten to make room.
	a.mu.Lock()
	for run, l := range a.leases {
		l.expired, l.seen = true, time.Now().Add(-forgetAfter-time.Minute)
		a.leases[run] = l
	}
	a.mu.Unlock()
	if err := a.lease("one-more", time.Second); err != nil {
		t.Fatalf("after the others expired: %v", err)
	}
	if len(a.leases) != 1 {
		t.Fatalf("%d runs kept, want the new one", len(a.leases))
	}
	for _, ms := range []int64{1, 99, 3_600_001, -5} {
		if _, err := validLeaseTTL(ms); err == nil {
			t.Errorf("a lease of %d ms was taken", ms)
		}
	}
}

// TestHelloRunsNoJVM: hellos, however many, are answered from the facts
// read at the start: the agent runs java -version once, not once a hello
// (40 hellos once made 15 JVMs at a time).
func TestHelloRunsNoJVM(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runh"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 40 {
		r, err := opHello.call(ctx, co, "a1", &Message{}, none{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Facts.JavaVersion != `openjdk version "17.0.0-fake"` {
			t.Fatalf("hello facts %+v", r.Facts)
		}
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(ta.dir), "java-version-runs"))
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Fatalf("java -version ran %d times for 41 hellos, want once", n)
	}
}

// TestHostileStateDirLinks: remove and wipe never delete through a
// symbolic link in the agent's state dir (a run's, fleet's, instance's or
// state directory made a link to elsewhere): they refuse, naming it, and
// what the link points to is left whole.
func TestHostileStateDirLinks(t *testing.T) {
	for _, link := range []string{"run", "run/app", "run/app/i1", "run/app/i1/state"} {
		t.Run(strings.ReplaceAll(link, "/", "-"), func(t *testing.T) {
			state, elsewhere := t.TempDir(), t.TempDir()
			for _, d := range []string{"app/i1/state", "i1/state", "state", ""} {
				os.MkdirAll(filepath.Join(elsewhere, d), 0o755)
				os.WriteFile(filepath.Join(elsewhere, d, "theirs"), []byte("theirs"), 0o644)
			}
			os.MkdirAll(filepath.Join(state, filepath.Dir(link)), 0o755)
			if err := os.Symlink(elsewhere, filepath.Join(state, link)); err != nil {
				t.Fatal(err)
			}
			a := &Agent{cfg: Config{StateDir: state, Name: "a1"}}
			if err := a.wipe(&Message{Run: "run", Fleet: "app", Instance: "i1"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("wipe with %s a link: %v, want a refusal naming it", link, err)
			}
			// remove: a link inside the fleet's directory is one of its
			// entries, removed as such (not followed).
			if err := a.remove("run", "app"); strings.Count(link, "/") < 2 && (err == nil || !strings.Contains(err.Error(), "symbolic link")) {
				t.Errorf("remove with %s a link: %v, want a refusal naming it", link, err)
			}
			for _, d := range []string{"app/i1/state", "i1/state", "state", ""} {
				if b, _ := os.ReadFile(filepath.Join(elsewhere, d, "theirs")); string(b) != "theirs" {
					t.Errorf("%s: what the link points to was removed: %s", link, filepath.Join(d, "theirs"))
				}
			}
		})
	}
}
