package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

const ksStore = "store"

// needDriver skips without a built driver and java, except under CI=true,
// where it fails: CI must run the kafka-streams engine (make test builds it).
func needDriver(t *testing.T) {
	t.Helper()
	_, err := ksdriver.FindLib()
	if err == nil {
		_, err = ksdriver.FindJava()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the kafka-streams engine cannot run under CI=true: %v", err)
		}
		t.Skipf("kafka-streams engine not available: %v", err)
	}
}

// ksApp returns an application id unique to the test; its changelog, its
// input topic and its consumer group are deleted when the test ends.
func ksApp(t *testing.T, env *bench.Env) string {
	app := testkafka.TopicName(t)
	t.Cleanup(func() {
		adm, closeAdm, err := env.Admin()
		if err != nil {
			return
		}
		defer closeAdm()
		ctx := context.Background()
		for _, topic := range []string{config.ChangelogTopic(app, ksStore), fleet.InputTopic(app, ksStore)} {
			cluster.DeleteTopic(ctx, adm, topic)
		}
		adm.DeleteGroup(ctx, app)
	})
	return app
}

// runKSCase runs case c on fill in a state dir of its own, for timeout at
// most, and fails the test on an error or on a JVM left running under the
// dir; it returns the case's records and how long the run took.
func runKSCase(t *testing.T, env *bench.Env, fill bench.FillOutcome, app string, c config.Case, timeout time.Duration) ([]runs.Restore, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	recs, err := env.RunCaseAll(ctx, fill, app, ksStore, c, dir)
	took := time.Since(start)
	noJVMUnder(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	return recs, took
}

// ksFill fills app's changelog (store ksStore) with spec, the fill a
// kafka-streams case of app restores.
func ksFill(t *testing.T, env *bench.Env, app string, spec loadgen.Spec, compression string) bench.FillOutcome {
	t.Helper()
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: config.ChangelogTopic(app, ksStore), Spec: spec, Compression: compression})
	if err != nil {
		t.Fatal(err)
	}
	return fill
}

func ksCase(name string, threads int) config.Case {
	c := config.DefaultCase()
	c.Name, c.Engine, c.Threads = name, config.EngineKafkaStreams, threads
	return c
}

// checkRecords fails unless the records pass the checks a results file
// must (runs.Results.Check): their steps among them, as they are saved.
func checkRecords(t *testing.T, recs ...runs.Restore) {
	t.Helper()
	if err := (&runs.Results{Restores: recs}).Check(); err != nil {
		t.Fatalf("the records would not be saved: %v", err)
	}
}

// noJVMUnder fails if a driver JVM whose config lies under dir still runs.
func noJVMUnder(t *testing.T, dir string) {
	t.Helper()
	if out, _ := exec.Command("pgrep", "-f", "restorebench.kstreams.Driver "+dir).Output(); len(out) > 0 {
		t.Fatalf("a Kafka Streams driver JVM under %s is still running: pid %s", dir, out)
	}
}

// TestRealKafkaStreamsRestoreVerifiesLikeTheModel fills changelogs of
// several shapes, restores each with the model and with a real Kafka Streams
// instance, and checks that both verify with the same record count and, per
// partition, the same key count, live bytes and digest.
func TestRealKafkaStreamsRestoreVerifiesLikeTheModel(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	shapes := []struct {
		name    string
		edit    func(*loadgen.Spec)
		threads int
	}{
		{"uniform-tombstones-empty-values", func(s *loadgen.Spec) {
			s.ValueMin, s.ValueMax, s.TombstoneRatio = 0, 300, 0.05
		}, 1},
		{"zipf", func(s *loadgen.Spec) {
			s.KeyOrder, s.TombstoneRatio, s.ValueMin, s.ValueMax = loadgen.KeysZipf, 0.1, 50, 500
		}, 2},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			app := ksApp(t, env)
			spec := loadgen.DefaultSpec()
			spec.Records, spec.Keys, spec.Partitions = 60_000, 15_000, 3
			sh.edit(&spec)
			fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: config.ChangelogTopic(app, ksStore), Spec: spec, Compression: "lz4"})
			if err != nil {
				t.Fatal(err)
			}
			model := config.DefaultCase()
			model.Name, model.Threads = "model", sh.threads
			m, err := env.RunCase(context.Background(), fill, app, ksStore, model, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			stateDir := t.TempDir()
			k, err := env.RunCase(context.Background(), fill, app, ksStore, ksCase("ks", sh.threads), stateDir)
			if err != nil {
				t.Fatal(err)
			}
			noJVMUnder(t, stateDir)
			assertSameRestore(t, m, k, spec.Records)
		})
	}
}

func assertSameRestore(t *testing.T, m, k runs.Restore, records int64) {
	t.Helper()
	if !m.Verified || !k.Verified {
		t.Fatalf("verified: model %v (%s), kafka-streams %v (%s)", m.Verified, m.Error, k.Verified, k.Error)
	}
	if m.Records != records || k.Records != records || k.Bytes != m.Bytes {
		t.Fatalf("records model %d kafka-streams %d (want %d); bytes model %d kafka-streams %d", m.Records, k.Records, records, m.Bytes, k.Bytes)
	}
	assertSameStates(t, m, k)
}

// assertSameStates fails unless both restores verified and hold, per
// partition, the same keys, live bytes and digest, and k's Kafka Streams
// record holds what every kafka-streams restore's must.
func assertSameStates(t *testing.T, m, k runs.Restore) {
	t.Helper()
	if !m.Verified || !k.Verified {
		t.Fatalf("verified: model %v (%s), kafka-streams %v (%s)", m.Verified, m.Error, k.Verified, k.Error)
	}
	mp, kp := m.Verification.Partitions, k.Verification.Partitions
	if len(mp) != len(kp) {
		t.Fatalf("partitions: model %d, kafka-streams %d", len(mp), len(kp))
	}
	for i := range mp {
		if mp[i].ActualDigest != kp[i].ActualDigest || mp[i].ActualKeys != kp[i].ActualKeys || mp[i].LiveBytes != kp[i].LiveBytes {
			t.Fatalf("partition %d: model %+v, kafka-streams %+v", mp[i].Partition, mp[i], kp[i])
		}
	}
	ks := k.KafkaStreams
	if ks == nil || ks.Version != "4.4.0" || ks.RestoreBatches == 0 || k.Phase.Seconds <= 0 || len(k.Series) == 0 || k.Phase.CPUSeconds <= 0 || k.Phase.PeakRSSBytes <= 0 {
		t.Fatalf("kafka-streams record: %+v / %+v", k, ks)
	}
	if ks.Properties["application.id"] == "" || ks.Properties["num.stream.threads"] != "1" && ks.Properties["num.stream.threads"] != "2" {
		t.Fatalf("properties %v", ks.Properties)
	}
}

// TestRealKafkaStreamsRefusedPropertyIsOneClearError gives Kafka Streams a
// property value it refuses: the restore fails with one error naming it,
// is not verified, and leaves no JVM behind.
func TestRealKafkaStreamsRefusedPropertyIsOneClearError(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 1000, 100, 1
	fill, err := env.EnsureFill(context.Background(), bench.FillRequest{Topic: config.ChangelogTopic(app, ksStore), Spec: spec, Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	c := ksCase("bad", 1)
	c.Streams = map[string]string{"processing.guarantee": "maybe_once"}
	stateDir := t.TempDir()
	rec, err := env.RunCase(context.Background(), fill, app, ksStore, c, stateDir)
	if err == nil || rec.Verified {
		t.Fatalf("restore with a refused property: verified=%v err=%v", rec.Verified, err)
	}
	for _, want := range []string{"processing.guarantee", "exit status 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	noJVMUnder(t, stateDir)
}

// TestRealKafkaCalibrateProfileShape runs the built-in calibrate profile on
// a small fill: every case verifies on both engines and every setting pairs.
func TestRealKafkaCalibrateProfileShape(t *testing.T) {
	t.Parallel()
	needDriver(t)
	plan, err := profiles.Load("calibrate")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, bench.Options{})
	plan.AppID, plan.StoreName = ksApp(t, env), ksStore
	plan.Topic = config.ChangelogTopic(plan.AppID, plan.StoreName)
	plan.Spec.TargetBytes, plan.Spec.Keys = 4<<20, 5000
	plan.Repeats = 1
	res, err := env.Run(context.Background(), plan, bench.RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s did not verify: %s", r.Case, r.Error)
		}
		// Kafka Streams' own store metrics: one store a partition, each
		// with its default 50 MiB block cache.
		if ks := r.KafkaStreams; ks != nil {
			m := ks.RocksDBMemory
			if m == nil || m.AtEnd.Stores != int(plan.Spec.Partitions) || m.AtEnd.BlockCacheCapacityBytes != int64(plan.Spec.Partitions)*50<<20 || m.Peak.MemTablesBytes <= 0 {
				t.Fatalf("%s: RocksDB memory %+v, want %d stores of a 50 MiB cache each and memtables", r.Case, m, plan.Spec.Partitions)
			}
		}
	}
	pairs := compare.EnginePairs(res.Restores)
	if len(pairs) != 4 {
		t.Fatalf("%d engine pairs, want 4", len(pairs))
	}
	for _, p := range pairs {
		if p.Ratio.N != 1 || p.Ratio.Median <= 0 {
			t.Fatalf("pair %s: ratio %+v", p.Setting, p.Ratio)
		}
	}
	// The profile held the log cleaner for the run, and put it back.
	if h := res.Fill.CleanerHold; h == nil || h.Previous != "" {
		t.Fatalf("fill's cleaner hold %+v, want one over no setting of the topic's own", h)
	}
	awaitLag(t, env, plan.Topic, "", "after the run")
	noJVMUnder(t, filepath.Join(env.Opts.StateDir))
}

// awaitLag waits until topic's own min.compaction.lag.ms is want (""
// for none), failing after 15 s with what it last read: a broker applies
// an altered setting a moment after the controller took it, so a describe
// right after an alter can still read the old value.
func awaitLag(t *testing.T, env *bench.Env, topic, want, what string) {
	t.Helper()
	adm := testAdmin(t, env)
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := cluster.TopicOverride(context.Background(), adm, topic, "min.compaction.lag.ms")
		if err != nil {
			t.Fatal(err)
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: min.compaction.lag.ms %q after 15 s, want %q", what, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCleanerHoldRestoresTheTopicsSetting: a hold sets the largest lag
// and its release puts the topic's own setting back; two overlapping
// holds (two runs of one data directory) keep the topic held until the
// last is released, which puts the topic's own setting back.
func TestCleanerHoldRestoresTheTopicsSetting(t *testing.T) {
	t.Parallel()
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	ctx := context.Background()
	topic := ksApp(t, env) + "-hold-changelog"
	if err := cluster.CreateChangelog(ctx, adm, topic, 1, map[string]string{"min.compaction.lag.ms": "60000"}); err != nil {
		t.Fatal(err)
	}
	defer adm.DeleteTopics(ctx, topic)
	awaitLag(t, env, topic, "60000", "created")
	held := cluster.HoldLag
	book := cluster.HoldBookIn(t.TempDir())
	h, err := cluster.HoldCleaner(ctx, adm, topic, book, false)
	if err != nil {
		t.Fatal(err)
	}
	if h.Previous != "60000" {
		t.Fatalf("hold's previous %q, want the topic's 60000", h.Previous)
	}
	awaitLag(t, env, topic, held, "held")
	if _, err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	awaitLag(t, env, topic, "60000", "released")
	first, err := cluster.HoldCleaner(ctx, adm, topic, book, false)
	if err != nil {
		t.Fatal(err)
	}
	awaitLag(t, env, topic, held, "held by the first")
	second, err := cluster.HoldCleaner(ctx, adm, topic, book, false)
	if err != nil {
		t.Fatal(err)
	}
	if second.Previous != "60000" || second.Joined != 1 {
		t.Fatalf("the second hold: previous %q, joined %d; want the topic's 60000, joining one", second.Previous, second.Joined)
	}
	if others, err := first.Release(ctx); err != nil || others != 1 {
		t.Fatalf("the first release: %d others, %v; want the second still holding", others, err)
	}
	if got, err := cluster.TopicOverride(ctx, adm, topic, "min.compaction.lag.ms"); err != nil || got != held {
		t.Fatalf("the first released, the second still holding: min.compaction.lag.ms %q (%v), want held", got, err)
	}
	if _, err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
	awaitLag(t, env, topic, "60000", "both released")
}
