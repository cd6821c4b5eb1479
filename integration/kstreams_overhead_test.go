package integration

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// overheadModes are the driver settings the overhead benchmark compares.
var overheadModes = map[string]map[string]string{
	// bare: no listeners, no pollers: a plain Kafka Streams app.
	"bare": {"restorebench.bare": "true"},
	// listeners: restore and standby listeners only, no pollers.
	"listeners": {"restorebench.tasks.interval.ms": "0", "restorebench.processed.interval.ms": "0",
		"restorebench.lags.interval.ms": "0", "restorebench.process.interval.ms": "0"},
	// cold: what the cold scenario runs: listeners and the process poller.
	"cold": fleet.ColdDriverProperties,
	// nolags: everything but the lags poller (allLocalStorePartitionLags).
	"nolags": {"restorebench.lags.interval.ms": "0"},
	// full: every event, as the kafka-streams engine runs it.
	"full": {},
}

// TestKafkaStreamsDriverOverhead is a benchmark, not a pass/fail test (it
// runs only with RESTOREBENCH_KS_OVERHEAD_ROUNDS=N): does the driver's event
// reporting slow Kafka Streams' restore down? It fills a changelog
// (RESTOREBENCH_KS_OVERHEAD_SIZE, default 256MB; 4 partitions, values
// 200-800 B), then restores it N times in each mode of
// RESTOREBENCH_KS_OVERHEAD_MODES (default "bare,full"; see overheadModes),
// rotating the order every round, and logs the time from the client's
// REBALANCING to RUNNING, which every mode reports and which ends when the
// last task restored. RESTOREBENCH_KS_OVERHEAD_DATA keeps the fill manifest
// between runs (the topic is then kept too).
func TestKafkaStreamsDriverOverhead(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("RESTOREBENCH_KS_OVERHEAD_ROUNDS"))
	if rounds <= 0 {
		t.Skip("a benchmark: set RESTOREBENCH_KS_OVERHEAD_ROUNDS=N to run it")
	}
	needDriver(t)
	modes := strings.Split(cmpOr(os.Getenv("RESTOREBENCH_KS_OVERHEAD_MODES"), "bare,full"), ",")
	for _, m := range modes {
		if _, ok := overheadModes[m]; !ok {
			t.Fatalf("unknown mode %q", m)
		}
	}
	size := int64(256e6)
	if s := os.Getenv("RESTOREBENCH_KS_OVERHEAD_SIZE"); s != "" {
		n, err := config.ParseSize(s)
		if err != nil {
			t.Fatal(err)
		}
		size = n
	}
	data := os.Getenv("RESTOREBENCH_KS_OVERHEAD_DATA")
	env := connect(t, bench.Options{DataDir: data})
	app := "rbbench-overhead"
	if data == "" {
		app = ksApp(t, env)
	}
	spec := loadgen.DefaultSpec()
	spec.TargetBytes, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = size, 2_000_000, 200, 800, 4
	topic := config.ChangelogTopic(app, ksStore)
	if _, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: topic, Spec: spec, Compression: "lz4"}); err != nil {
		t.Fatal(err)
	}
	c := ksCase("overhead", 1)
	running, cpu := map[string][]float64{}, map[string][]float64{}
	for i := 0; i < rounds; i++ {
		for j := range modes {
			m := modes[(i+j)%len(modes)]
			r := restoreUntilRunning(t, env, app, c, overheadModes[m])
			running[m], cpu[m] = append(running[m], r.running), append(cpu[m], r.cpu)
			t.Logf("round %d %s: REBALANCING->RUNNING %.2fs, restore_start->restore_end %.2fs, JVM CPU until RUNNING %.2fs", i+1, m, r.running, r.restore, r.cpu)
		}
	}
	base, baseCPU := runs.Median(running[modes[0]]), runs.Median(cpu[modes[0]])
	for _, m := range modes {
		med, mc := runs.Median(running[m]), runs.Median(cpu[m])
		t.Logf("%s: median REBALANCING->RUNNING %.2fs over %d rounds (%.3f of %s, min %.2f max %.2f); median JVM CPU %.2fs (%.3f of %s)",
			m, med, rounds, med/base, modes[0], runs.Min(running[m]), runs.Max(running[m]), mc, mc/baseCPU, modes[0])
	}
}

// overheadRun is one restore's figures.
type overheadRun struct {
	// running is REBALANCING to RUNNING, restore the restore span (0 when
	// bare), cpu the JVM's CPU seconds from launch to RUNNING.
	running, restore, cpu float64
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// restoreUntilRunning starts one instance on a fresh state dir and waits
// until it is RUNNING.
func restoreUntilRunning(t *testing.T, env *bench.Env, app string, c config.Case, mode map[string]string) (out overheadRun) {
	t.Helper()
	dir := t.TempDir()
	props := c.KafkaStreamsProperties()
	props["application.id"], props["bootstrap.servers"], props["state.dir"] = app, env.Cluster.Brokers[0], dir
	props["restorebench.store"], props["restorebench.input.topic"] = ksStore, fleet.InputTopic(app, ksStore)
	maps.Copy(props, mode)
	ensureInput(t, env, app)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	in, err := ksdriver.Start(ctx, ksdriver.Options{ID: "o", Dir: filepath.Join(dir, "instance"), Properties: props, JVMFlags: fleet.JVMFlags(c)})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Kill()
	var rebalancing int64
	var r ksdriver.Restores
	for i := 0; ; i++ {
		e, err := in.Next(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		r.Add(e)
		s, ok := e.(*ksdriver.StateChange)
		if !ok {
			continue
		}
		if s.To == ksdriver.StateRebalancing && rebalancing == 0 {
			rebalancing = s.MonoNs
		}
		if s.To == ksdriver.StateRunning {
			out.running = float64(s.MonoNs-rebalancing) / 1e9
			cpu, _ := ksdriver.ProcCPU(in.PID())
			out.cpu = cpu.Seconds()
			break
		}
	}
	if first, last, ok := r.Span(); ok {
		out.restore = float64(last-first) / 1e9
	}
	if err := in.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// ensureInput creates the kv topology's input topic once.
func ensureInput(t *testing.T, env *bench.Env, app string) {
	t.Helper()
	adm := testAdmin(t, env)
	adm.CreateTopic(context.Background(), 4, -1, nil, fleet.InputTopic(app, ksStore))
}
