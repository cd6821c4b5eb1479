package scenario

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
)

func TestJVMFlagsPutHeapFirst(t *testing.T) {
	c := config.DefaultCase()
	c.JVMFlags = []string{"-XX:+UseParallelGC"}
	if got := fleet.JVMFlags(c); !slices.Equal(got, []string{"-Xmx1024m", fleet.ExitOnOOM, "-XX:+UseParallelGC"}) {
		t.Fatalf("flags %v", got)
	}
	c.JVMHeap = 1<<30 + 512
	if got := fleet.JVMFlags(c)[0]; got != "-Xmx1048577k" {
		t.Fatalf("odd heap: %s", got)
	}
}

func TestCPUSplitBracketsTheRestore(t *testing.T) {
	p := func(ns, stream, jit int64) *ksdriver.Process {
		return &ksdriver.Process{Meta: ksdriver.Meta{MonoNs: ns}, CPUSplitNs: ksdriver.CPUSplitNs{Stream: stream, JIT: jit}}
	}
	ps := []*ksdriver.Process{p(1e9, 1e9, 5e8), p(2e9, 2e9, 6e8), p(5e9, 5e9, 9e8), p(6e9, 6e9, 1e9)}
	s := fleet.CPUSplit(ps, 2e9+1, 4e9)
	if s == nil || s.Stream != 3 || s.JIT != 0.3 {
		t.Fatalf("split %+v", s)
	}
	if fleet.CPUSplit(ps, 5e8, 4e9) != nil {
		t.Fatal("a split without a process event before the restore")
	}
}

// TestRocksMemorySpansTheRestore: each figure's peak over the samples
// from the restore's start to the first after its end, each on its own,
// and the end's sample; samples before the start and after that first
// one after the end are left out, and no store, no record.
func TestRocksMemorySpansTheRestore(t *testing.T) {
	p := func(ns, mem, cache int64) *ksdriver.Process {
		return &ksdriver.Process{Meta: ksdriver.Meta{MonoNs: ns}, RocksDB: &ksdriver.RocksMemory{Stores: 4, MemTablesBytes: mem, BlockCacheUsageBytes: cache}}
	}
	ps := []*ksdriver.Process{p(1e9, 900, 900), p(2e9, 50, 10), p(3e9, 70, 5), p(4e9, 20, 30), p(5e9, 999, 999)}
	m := fleet.RocksMemory(ps, 2e9, 3.5e9)
	if m == nil || m.Peak.MemTablesBytes != 70 || m.Peak.BlockCacheUsageBytes != 30 || m.AtEnd.MemTablesBytes != 20 || m.Peak.Stores != 4 {
		t.Fatalf("memory %+v", m)
	}
	if fleet.RocksMemory([]*ksdriver.Process{{Meta: ksdriver.Meta{MonoNs: 3e9}}}, 2e9, 4e9) != nil {
		t.Fatal("a record without a store's sample")
	}
}

func TestKafkaStreamsNeedsTheChangelogNamedAfterTheStore(t *testing.T) {
	err := fleet.CheckKafkaStreamsTarget(&fleet.Env{}, fleet.Target{Topic: "copy-of-prod", AppID: "app", StoreName: "s"})
	if err == nil || !strings.Contains(err.Error(), "app-s-changelog") {
		t.Fatalf("err = %v", err)
	}
	if err := fleet.CheckKafkaStreamsTarget(&fleet.Env{}, fleet.Target{Topic: "app-s-changelog", AppID: "app", StoreName: "s"}); err != nil {
		t.Fatal(err)
	}
}

// resetCounter is a changer that only counts its resets.
type resetCounter struct {
	fleet.Changer
	resets int
}

func (c *resetCounter) Reset(context.Context) error { c.resets++; return nil }

// TestResetKafkaStreamsFillRefusesBeforeResetting: a warm or failover repeat
// on the kafka-streams engine refuses a topic it may not change and a
// changelog not named after the store, and resets the fill only when both
// are right, so a refused run leaves the topic as it was.
func TestResetKafkaStreamsFillRefusesBeforeResetting(t *testing.T) {
	ctx, good := context.Background(), fleet.Target{Topic: "app-s-changelog", AppID: "app", StoreName: "s"}
	if err := fleet.ResetKafkaStreamsFill(ctx, &fleet.Env{}, good, fleet.Request{}); err != fleet.ErrNoChanger {
		t.Fatalf("no changer: err = %v", err)
	}
	c := &resetCounter{}
	bad := fleet.Target{Topic: "copy-of-prod", AppID: "app", StoreName: "s"}
	if err := fleet.ResetKafkaStreamsFill(ctx, &fleet.Env{}, bad, fleet.Request{Changer: c}); err == nil || c.resets != 0 {
		t.Fatalf("wrong changelog: err = %v, %d resets", err, c.resets)
	}
	if err := fleet.ResetKafkaStreamsFill(ctx, &fleet.Env{}, good, fleet.Request{Changer: c}); err != nil || c.resets != 1 {
		t.Fatalf("right target: err = %v, %d resets", err, c.resets)
	}
}

// kfakeCluster starts an in-memory kfake with opts and a 2-partition topic.
func kfakeCluster(t *testing.T, topic string, opts ...kfake.Opt) cluster.Config {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := cluster.Config{Brokers: c.ListenAddrs(), ConnectTimeout: 10 * time.Second}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(context.Background(), 2, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// withoutDescribeTopicPartitions is kfake's API set minus KIP-966's
// DescribeTopicPartitions: what lets Kafka Streams run on it.
func withoutDescribeTopicPartitions() kfake.Opt {
	v := kversion.Stable()
	v.SetMaxKeyVersion(fleet.DescribeTopicPartitionsKey, -1)
	return kfake.MaxVersions(v)
}

// kfake answers DescribeTopicPartitions with null eligible leader replicas,
// which Kafka Streams 4.4 cannot read: the engine must say so rather than
// start a JVM that fails; without that API kfake passes.
func TestBrokerProbeRefusesKfakesDescribeTopicPartitions(t *testing.T) {
	cfg := kfakeCluster(t, "app-s-changelog")
	err := fleet.CheckBrokerForKafkaStreams(context.Background(), cfg, "app-s-changelog")
	if err == nil || !strings.Contains(err.Error(), "DescribeTopicPartitions") || !strings.Contains(err.Error(), "eligibleLeaderReplicas") {
		t.Fatalf("default kfake: err = %v", err)
	}
	fixed := kfakeCluster(t, "app-s-changelog", withoutDescribeTopicPartitions())
	if err := fleet.CheckBrokerForKafkaStreams(context.Background(), fixed, "app-s-changelog"); err != nil {
		t.Fatalf("kfake without DescribeTopicPartitions: %v", err)
	}
}

// fakeJava stands in for the JVM: it says hello, then behaves per mode.
const fakeJava = `#!/bin/bash
config="${@: -1}"
echo $$ > "$(dirname "$config")/pid"
ev() { printf '{"ev":"%s","instance":"i0","mono_ns":1,"wall_ms":1%s}\n' "$1" "$2"; }
ev hello ',"pid":'$$',"kafka_streams_version":"4.4.0","java_version":"0","jvm_args":[],"max_heap_bytes":1,"gc":[],"topology":"kv","store":"s","bare":false'
case "$FAKE_MODE" in
crash)
	echo "Exception in thread main: the store is on fire" >&2
	ev error ',"message":"StreamsException: the store is on fire","where":"uncaught","stack":""'
	ev stopped ',"clean":false,"seconds":0'
	exit 2 ;;
stall)
	ev state ',"from":"CREATED","to":"REBALANCING"'
	while true; do sleep 1; done ;;
esac
`

// runWithFakeJava runs a cold kafka-streams restore with the fake JVM.
func runWithFakeJava(t *testing.T, mode string, stall time.Duration) (error, string) {
	t.Helper()
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	if err := os.WriteFile(java, []byte(fakeJava), 0o755); err != nil {
		t.Fatal(err)
	}
	// A lib directory as built for the default version.
	for _, jar := range []string{ksdriver.DriverJar, "kafka-streams-" + ksdriver.DefaultKafkaStreamsVersion + ".jar"} {
		if err := os.WriteFile(filepath.Join(dir, jar), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(ksdriver.EnvJava, java)
	t.Setenv(ksdriver.EnvLib, dir)
	t.Setenv("FAKE_MODE", mode)
	cfg := kfakeCluster(t, "app-s-changelog", withoutDescribeTopicPartitions())
	env := &fleet.Env{Cluster: cfg, StallTimeout: stall, Logf: func(string, ...any) {},
		Offsets: func(ctx context.Context, topic string) (cluster.TopicOffsets, error) {
			cl, err := cluster.NewClient(cfg)
			if err != nil {
				return cluster.TopicOffsets{}, err
			}
			defer cl.Close()
			return cluster.Offsets(ctx, kadm.NewClient(cl), topic)
		}}
	c := config.DefaultCase()
	c.Name, c.Engine = "ks", config.EngineKafkaStreams
	stateDir := filepath.Join(dir, "state")
	rec, err := ColdKafkaStreams{}.Run(context.Background(), env, fleet.Target{Topic: "app-s-changelog", AppID: "app", StoreName: "s"},
		fleet.Request{Case: c, Repeat: 1, StateDir: stateDir})
	if rec.Verified || rec.Error == "" {
		t.Fatalf("a failed restore recorded as verified=%v error=%q", rec.Verified, rec.Error)
	}
	return err, filepath.Join(stateDir, "kstreams-"+fleet.KSInstanceID)
}

func assertNoProcess(t *testing.T, instDir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(instDir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("the instance process %d is still running", pid)
	}
}

func TestColdKafkaStreamsInstanceThatCrashesIsOneClearError(t *testing.T) {
	err, instDir := runWithFakeJava(t, "crash", time.Minute)
	for _, want := range []string{"the restore failed", "exit status 2", "the store is on fire", "last lines of"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	assertNoProcess(t, instDir)
}

func TestColdKafkaStreamsInstanceThatStallsIsKilled(t *testing.T) {
	start := time.Now()
	err, instDir := runWithFakeJava(t, "stall", 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "made no progress for 2s (state REBALANCING") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the stall took %s to notice", d)
	}
	assertNoProcess(t, instDir)
}
