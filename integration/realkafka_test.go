package integration

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

func connect(t *testing.T, opts bench.Options) *bench.Env {
	t.Helper()
	opts.Brokers = testkafka.RealBrokers(t)
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	opts.Log, opts.Quiet = io.Discard, true
	if (len(opts.Agents) > 0 || opts.AnyAgents > 0) && opts.AgentKey == nil && !opts.InsecureAgents {
		opts.AgentKey = controlKey(t)
	}
	env, err := bench.Connect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

// testAdmin is an admin client on env's cluster, closed when the test ends.
func testAdmin(t *testing.T, env *bench.Env) *kadm.Client {
	t.Helper()
	adm, closeAdm, err := env.Admin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeAdm)
	return adm
}

// topic returns a topic name unique to the test and deletes the topic when
// the test ends (registered after connect, so it runs before env.Close).
func topic(t *testing.T, env *bench.Env) string {
	name := testkafka.TopicName(t)
	t.Cleanup(func() {
		if adm, closeAdm, err := env.Admin(); err == nil {
			cluster.DeleteTopic(context.Background(), adm, name)
			closeAdm()
		}
	})
	return name
}

func defaultParams() config.Case {
	return config.DefaultCase()
}

func restore(t *testing.T, env *bench.Env, fill bench.FillOutcome, threads int) (runs.Restore, error) {
	t.Helper()
	p := defaultParams()
	p.Threads = threads
	p.Name = "it"
	return env.RunCase(context.Background(), fill, "it", "store", p, t.TempDir())
}

func TestRealKafkaFillThenColdRestoreVerifies(t *testing.T) {
	t.Parallel()
	env := connect(t, bench.Options{})
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.TombstoneRatio, spec.Partitions = 150_000, 30_000, 50, 500, 0.05, 4
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: topic(t, env), Spec: spec, Compression: "lz4"})
	if err != nil {
		t.Fatal(err)
	}
	if env.Broker.Kind != "external" {
		t.Fatalf("broker kind %q", env.Broker.Kind)
	}
	for _, threads := range []int{1, 2} {
		rec, err := restore(t, env, fill, threads)
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Verified || rec.Records != spec.Records {
			t.Fatalf("%d threads: verified=%v records=%d want %d", threads, rec.Verified, rec.Records, spec.Records)
		}
	}
	// The same fill again is reused, not rewritten.
	again, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: fill.Manifest.Topic, Spec: spec, Compression: "lz4"})
	if err != nil || !again.Reused {
		t.Fatalf("second fill: reused=%v err=%v", again.Reused, err)
	}
}

// TestRealKafkaCompactionShrinksTheLogAndStillVerifies fills a compacted
// topic with small segments and many overwrites, waits for Kafka's log
// cleaner, and checks that the log shrank, a restore reads fewer records
// than were written, and the restored state is still exactly right.
func TestRealKafkaCompactionShrinksTheLogAndStillVerifies(t *testing.T) {
	t.Parallel()
	env := connect(t, bench.Options{})
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.TombstoneRatio, spec.Partitions = 200_000, 1_000, 100, 100, 0.02, 2
	name := topic(t, env)
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: name, Spec: spec, Compression: "none",
		TopicConfigs: map[string]string{
			"segment.bytes":             "1048576",
			"min.cleanable.dirty.ratio": "0.01",
			"segment.ms":                "1000",
		}})
	if err != nil {
		t.Fatal(err)
	}
	// The log before compaction holds at least the key+value bytes written.
	before := fill.Derived.Totals.Bytes
	deadline := time.Now().Add(90 * time.Second)
	for {
		rec, err := restore(t, env, fill, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Verified {
			t.Fatalf("restore during compaction did not verify: %s", rec.Verification.Problem)
		}
		if rec.Records < spec.Records/2 {
			after := logBytes(t, env, name)
			if after >= before {
				t.Fatalf("restore read %d of %d records but the log did not shrink below the %d key+value bytes written: %d bytes", rec.Records, spec.Records, before, after)
			}
			t.Logf("compaction: %d key+value bytes written, log now %d bytes; restore read %d of %d records and verified", before, after, rec.Records, spec.Records)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log cleaner did not compact %s within 90 s (restore still reads %d of %d records)", name, rec.Records, spec.Records)
		}
		time.Sleep(2 * time.Second)
	}
}

func logBytes(t *testing.T, env *bench.Env, topic string) int64 {
	t.Helper()
	adm := testAdmin(t, env)
	dirs, err := adm.DescribeAllLogDirs(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, d := range dirs {
		for _, ld := range d {
			if tp, ok := ld.Topics[topic]; ok {
				for _, p := range tp {
					size += p.Size
				}
			}
		}
	}
	if size == 0 {
		t.Fatalf("no log bytes found for %s", topic)
	}
	return size
}

// TestRealKafkaBrokerStoppedMidRestoreIsAnErrorNotAResult freezes the broker
// (SIGSTOP) part-way through a restore: the restore must fail with a clear
// error and must not be reported as verified.
func TestRealKafkaBrokerStoppedMidRestoreIsAnErrorNotAResult(t *testing.T) {
	pid := brokerPID(t)
	env := connect(t, bench.Options{StallTimeout: 5 * time.Second})
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 400_000, 100_000, 200, 400, 2
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: topic(t, env), Spec: spec, Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	p := defaultParams()
	p.Name = "frozen"
	p.BatchRecords = 100 // slow the restore down so the freeze lands mid-way
	var once sync.Once
	resume := func() { syscall.Kill(pid, syscall.SIGCONT) }
	t.Cleanup(resume)
	env.Opts.OnRestoreProgress = func(records int64) {
		if records > 20_000 {
			once.Do(func() {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Errorf("SIGSTOP broker %d: %v", pid, err)
				}
			})
		}
	}
	rec, err := env.RunCase(context.Background(), fill, "it", "store", p, t.TempDir())
	resume()
	if err == nil {
		t.Fatalf("restore with a frozen broker succeeded: verified=%v records=%d of %d", rec.Verified, rec.Records, spec.Records)
	}
	if rec.Verified {
		t.Fatal("restore that failed is marked verified")
	}
	if !strings.Contains(err.Error(), "stalled") || !strings.Contains(err.Error(), "broker") {
		t.Fatalf("error %q does not say the restore stalled waiting for the broker", err)
	}
	if errors.Is(err, fleet.ErrUnverified) {
		t.Fatalf("error is a verification failure, want a stall: %v", err)
	}
	waitBrokerBack(t, env)
}

// brokerPID reads the pid of the local broker scripts/kafka.sh started.
func brokerPID(t *testing.T) int {
	t.Helper()
	// Where scripts/kafka.sh writes it: its KAFKA_RUN_DIR, else
	// KAFKA_CACHE_DIR's run directory, else the repository's cache.
	path := os.Getenv("RESTOREBENCH_KAFKA_PIDFILE")
	runDir := os.Getenv("KAFKA_RUN_DIR")
	if runDir == "" && os.Getenv("KAFKA_CACHE_DIR") != "" {
		runDir = filepath.Join(os.Getenv("KAFKA_CACHE_DIR"), "run")
	}
	if runDir == "" {
		runDir = filepath.Join("..", ".cache", "kafka", "run")
	}
	if path == "" {
		path = filepath.Join(runDir, "node-1", "kafka.pid")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("broker pid file: %v (make test starts the broker with scripts/kafka.sh)", err)
		}
		t.Skipf("no local broker pid file (%v): this test freezes the broker scripts/kafka.sh started", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

func waitBrokerBack(t *testing.T, env *bench.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if _, err := cluster.Ping(ctx, env.Cluster); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatal("broker did not answer within 60 s after SIGCONT")
}

func TestRealKafkaQuickProfileShape(t *testing.T) {
	t.Parallel()
	// The built-in quick profile must be runnable against a real broker too:
	// its fill spec and cases are valid there (a smaller copy keeps CI fast).
	plan, err := profiles.Load("quick")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, bench.Options{})
	plan.Spec.TargetBytes = 8 << 20
	plan.Topic = topic(t, env)
	plan.Repeats = 1
	res, err := env.Run(context.Background(), plan, bench.RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restores) != len(plan.Cases) {
		t.Fatalf("%d restores, want %d", len(res.Restores), len(plan.Cases))
	}
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s did not verify on real Kafka: %s", r.Case, r.Error)
		}
	}
}
