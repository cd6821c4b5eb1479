package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

const smallProfile = `
name: small
fill:
  records: 60000
  keys: 8000
  value_size: 50-400
  tombstone_ratio: 0.05
  partitions: 3
  compression: lz4
cases:
  - name: one-thread
  - name: two-threads
    threads: 2
  - name: memory
    store: memory
repeats: 2
`

func connect(t *testing.T, dataDir string) *Env {
	t.Helper()
	env, err := Connect(context.Background(), Options{DataDir: dataDir, Log: io.Discard, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestRunWritesVerifiedResultsAndReusesFill runs a profile on an embedded
// broker whose log is on disk, then runs it again after a broker restart:
// the second run must reuse the fill and verify again.
func TestRunWritesVerifiedResultsAndReusesFill(t *testing.T) {
	plan, err := profiles.Parse([]byte(smallProfile), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	for round, wantReused := range []bool{false, true} {
		env := connect(t, dataDir)
		out := filepath.Join(t.TempDir(), "out")
		res, err := env.Run(context.Background(), plan, RunOptions{OutDir: out})
		env.Close()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		onDisk, err := runs.Load(filepath.Join(out, "results.json"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !onDisk.Complete || len(onDisk.Restores) != 6 {
			t.Fatalf("round %d: complete=%v with %d restores, want 6", round, onDisk.Complete, len(onDisk.Restores))
		}
		if onDisk.Fill.Reused != wantReused {
			t.Fatalf("round %d: fill reused=%v, want %v", round, onDisk.Fill.Reused, wantReused)
		}
		for _, r := range onDisk.Restores {
			if secs, ok := r.RestoreSeconds(); !r.Verified || r.Records != res.Fill.Records || !ok || secs <= 0 || r.Verification.Mode != "expected-state" {
				t.Fatalf("round %d: restore %s #%d: verified=%v records=%d (fill %d) restore phase %+v",
					round, r.Case, r.Repeat, r.Verified, r.Records, res.Fill.Records, r.Phase)
			}
		}
		if onDisk.Broker.Kind != "embedded" {
			t.Fatalf("broker kind %q", onDisk.Broker.Kind)
		}
		if ents, _ := os.ReadDir(filepath.Join(dataDir, "state")); len(ents) != 0 {
			t.Fatalf("round %d: restored stores left behind in state dir: %v", round, ents)
		}
	}
}

func TestFillRefusesToOverwriteADifferentTopic(t *testing.T) {
	plan, err := profiles.Parse([]byte(smallProfile), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	if _, err := env.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	other := plan.Spec
	other.Seed = 99
	_, err = env.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: other, Compression: "none"})
	if err == nil || !strings.Contains(err.Error(), "--refill") || !strings.Contains(err.Error(), plan.Topic) {
		t.Fatalf("got %v, want an error naming the topic and --refill", err)
	}
	out, err := env.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: other, Compression: "none", Refill: true})
	if err != nil || out.Reused || out.Manifest.Spec.Seed != 99 {
		t.Fatalf("refill: %v, %+v", err, out)
	}
}

// TestRestoreTopicNotFilledByUsIsVerifiedAgainstAnIndependentRead: a topic
// restorebench did not fill (its manifest gone) is read independently and
// its restore verified against that read, which results.json records.
func TestRestoreTopicNotFilledByUsIsVerifiedAgainstAnIndependentRead(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	plan, _ := profiles.Parse([]byte(smallProfile), "small.yaml")
	fillForeign(t, env, "foreign", plan.Spec)
	params := config.DefaultCase()
	res, err := env.RestoreTopic(ctx, RestoreTopicOptions{Topic: "foreign", AppID: "app", StoreName: "s", Case: params, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Restores[0]
	if !r.Verified || r.Verification.Mode != "expected-state" || len(r.Verification.Partitions) != 3 || r.Error != "" {
		t.Fatalf("foreign topic restore: verified=%v mode=%s error=%q", r.Verified, r.Verification.Mode, r.Error)
	}
	if res.Fill.ExpectedFrom != runs.ExpectedFromIndependentRead || len(res.Fill.Expected) != 3 {
		t.Fatalf("fill record: expected from %q, %d partitions", res.Fill.ExpectedFrom, len(res.Fill.Expected))
	}
	// As a DSL count's store keeps it: each value behind its timestamp.
	params.StoreKind = config.StoreTimestampedKeyValue
	res, err = env.RestoreTopic(ctx, RestoreTopicOptions{Topic: "foreign", AppID: "app", StoreName: "s", Case: params, OutDir: t.TempDir(), Force: true})
	if err != nil || !res.Restores[0].Verified {
		t.Fatalf("foreign topic as a timestamped store: %v, %+v", err, res.Restores[0].Verification)
	}
	params.StoreKind, params.Retention = config.StoreVersionedKeyValue, config.Duration(time.Hour)
	if _, err := env.RestoreTopic(ctx, RestoreTopicOptions{Topic: "foreign", AppID: "app", StoreName: "s", Case: params, OutDir: t.TempDir(), Force: true}); err == nil ||
		!strings.Contains(err.Error(), "store kind versioned-key-value: topic foreign") {
		t.Fatalf("foreign topic as a versioned store: %v", err)
	}
	var keys int64
	for _, p := range r.Verification.Partitions {
		keys += p.ActualKeys
	}
	if keys == 0 || keys > plan.Spec.Keys {
		t.Fatalf("counted %d keys, want 1..%d", keys, plan.Spec.Keys)
	}
}

// TestRestoreForeignWindowChangelog: a window store's changelog
// restorebench did not fill (a window fill whose manifest is gone: two
// hours of event time, an hour's retention), kept a day longer than the
// store as Kafka Streams keeps one, restores as a window store of the
// topic's retention.ms minus a day, verified against the independent read
// of it as a window store's changelog; --retention overrides it, and a
// topic that does not say it is refused, asking for it.
func TestRestoreForeignWindowChangelog(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 7200, 50, 3, 0.05
	spec.StoreKind, spec.EventStepMicros, spec.WindowSizeMs, spec.RetentionMs = loadgen.KindWindow, 1_000_000, 5*60_000, 60*60_000
	fillForeign(t, env, "clicks", spec)
	restore := func(c config.Case) (runs.Restore, error) {
		res, err := env.RestoreTopic(ctx, RestoreTopicOptions{Topic: "clicks", AppID: "app", StoreName: "s", Case: c, OutDir: t.TempDir(), Force: true})
		if err != nil {
			return runs.Restore{}, err
		}
		return res.Restores[0], nil
	}
	c := config.DefaultCase()
	c.StoreKind = config.StoreWindow
	// A day and an hour, as Kafka Streams makes an hour's store's changelog.
	testkafka.SetTopicConfig(t, env.Cluster, "clicks", "retention.ms", "90000000")
	r, err := restore(c)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	var keys, wantKeys int64
	for i, p := range r.Verification.Partitions {
		keys += p.ActualKeys
		wantKeys += want[i].Keys
		if p.ActualDigest != want[i].Digest {
			t.Errorf("partition %d: the store's digest %s is not the fill's expected state's %s", p.Partition, p.ActualDigest, want[i].Digest)
		}
	}
	if !r.Verified || r.Error != "" || keys != wantKeys || r.Params.Retention.D() != time.Hour {
		t.Fatalf("restored as a window store: verified %v, error %q, %d entries (want %d), retention %s (want 1h)",
			r.Verified, r.Error, keys, wantKeys, r.Params.Retention)
	}
	// A longer retention keeps the first hour's windows too, verified
	// against a read that keeps them.
	c.Retention = config.Duration(3 * time.Hour)
	if r, err = restore(c); err != nil || !r.Verified || totalKeys(r) <= wantKeys {
		t.Fatalf("restored as a window store of 3 hours: %v, verified %v, %d entries (the hour's store kept %d)", err, r.Verified, totalKeys(r), wantKeys)
	}
	c.Retention = 0
	testkafka.SetTopicConfig(t, env.Cluster, "clicks", "retention.ms", "3600000")
	if _, err := restore(c); err == nil || !strings.Contains(err.Error(), "restorebench restore --retention") {
		t.Fatalf("a window store's changelog kept an hour, no retention given: %v", err)
	}
}

// TestRestoreForeignSessionAndTimestampedWindowChangelogs: a session
// store's changelog and a timestamped window store's (what DSL
// session-windowed and windowed aggregations keep) that restorebench did
// not fill restore as their kinds, of the topic's retention.ms minus a
// day, verified against an independent read of each as its kind's
// changelog: the stores hold exactly what the fill's expected state says.
func TestRestoreForeignSessionAndTimestampedWindowChangelogs(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	for _, kind := range []config.StoreKind{config.StoreSession, config.StoreTimestampedWindow} {
		spec := loadgen.DefaultSpec()
		spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 7200, 50, 3, 0.05
		spec.StoreKind, spec.EventStepMicros, spec.WindowSizeMs, spec.RetentionMs = kind, 1_000_000, 5*60_000, 60*60_000
		topic := "foreign-" + string(kind)
		fillForeign(t, env, topic, spec)
		testkafka.SetTopicConfig(t, env.Cluster, topic, "retention.ms", "90000000")
		c := config.DefaultCase()
		c.StoreKind = kind
		res, err := env.RestoreTopic(ctx, RestoreTopicOptions{Topic: topic, AppID: "app", StoreName: "s", Case: c, OutDir: t.TempDir(), Force: true})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		r := res.Restores[0]
		want, _, err := loadgen.Expect(spec)
		if err != nil {
			t.Fatal(err)
		}
		var keys, wantKeys int64
		for i, p := range r.Verification.Partitions {
			keys += p.ActualKeys
			wantKeys += want[i].Keys
			if p.ActualDigest != want[i].Digest {
				t.Errorf("%s partition %d: the store's digest %s is not the fill's expected state's %s", kind, p.Partition, p.ActualDigest, want[i].Digest)
			}
		}
		if !r.Verified || r.Error != "" || keys != wantKeys || keys == 0 || r.Params.Retention.D() != time.Hour ||
			res.Fill.ExpectedFrom != runs.ExpectedFromIndependentRead {
			t.Fatalf("%s: verified %v, error %q, %d entries (want %d), retention %s (want 1h), expected from %q",
				kind, r.Verified, r.Error, keys, wantKeys, r.Params.Retention, res.Fill.ExpectedFrom)
		}
	}
}

// TestRestoreTopicStateDirOwnership: --force wipes only stores restorebench
// left behind; a directory it did not create is refused, force or not, and
// left as it was.
func TestRestoreTopicStateDirOwnership(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	plan, _ := profiles.Parse([]byte(smallProfile), "small.yaml")
	ctx := context.Background()
	if _, err := env.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(env.Opts.StateDir, "someone-else", "0_0")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := RestoreTopicOptions{Topic: plan.Topic, AppID: "someone-else", StoreName: "balances", Case: config.DefaultCase(), OutDir: t.TempDir()}
	for _, force := range []bool{false, true} {
		opts.Force = force
		if _, err := env.RestoreTopic(ctx, opts); err == nil || !strings.Contains(err.Error(), "did not create") {
			t.Fatalf("force=%v: got %v, want a refusal of a directory restorebench did not create", force, err)
		}
		if _, err := os.Stat(foreign); err != nil {
			t.Fatalf("force=%v: the foreign directory was touched: %v", force, err)
		}
	}
	opts = RestoreTopicOptions{Topic: plan.Topic, AppID: "restorebench", StoreName: "balances", Case: config.DefaultCase(), OutDir: t.TempDir(), KeepState: true}
	if res, err := env.RestoreTopic(ctx, opts); err != nil || !res.Restores[0].Verified {
		t.Fatalf("first restore: %v", err)
	}
	opts.KeepState = false
	if _, err := env.RestoreTopic(ctx, opts); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("over kept stores without --force: got %v, want an error suggesting --force", err)
	}
	opts.Force = true
	res, err := env.RestoreTopic(ctx, opts)
	if err != nil || !res.Restores[0].Verified {
		t.Fatalf("with --force: %v", err)
	}
}

func TestUnreachableBrokerFailsFast(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Connect(ctx, Options{Brokers: []string{"127.0.0.1:1"}, ConnectTimeout: 2 * time.Second, DataDir: t.TempDir(), Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("got %v, want an error naming the address", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Connect waited past the test's deadline instead of its connect timeout")
	}
}

func TestInterruptedRunKeepsFinishedRestores(t *testing.T) {
	plan, err := profiles.Parse([]byte(smallProfile), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan.HoldCleaner = true // and the hold is released, though the run was interrupted
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out := t.TempDir()
	var heldDuring string
	_, err = env.Run(ctx, plan, RunOptions{OutDir: out, AfterRestore: func(r runs.Restore) {
		heldDuring = lagOverride(t, env, plan.Topic)
		if r.Case == "one-thread" && r.Repeat == 2 {
			cancel() // as Ctrl-C after the second restore
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	res, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || len(res.Restores) != 2 || !res.Restores[0].Verified || !res.Restores[1].Verified {
		t.Fatalf("interrupted run saved complete=%v with %d restores", res.Complete, len(res.Restores))
	}
	if matches, _ := filepath.Glob(filepath.Join(out, ".*tmp*")); len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
	if heldDuring != "9223372036854775807" || res.Fill.CleanerHold == nil {
		t.Fatalf("during the run min.compaction.lag.ms=%q, recorded hold %+v: want the largest, recorded", heldDuring, res.Fill.CleanerHold)
	}
	if got := lagOverride(t, env, plan.Topic); got != "" {
		t.Fatalf("after the interrupted run the topic keeps min.compaction.lag.ms=%s", got)
	}
}

// lagOverride is topic's own min.compaction.lag.ms, or "" without one.
func lagOverride(t *testing.T, env *Env, topic string) string {
	t.Helper()
	adm, done, err := env.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	v, err := cluster.TopicOverride(context.Background(), adm, topic, "min.compaction.lag.ms")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runYAML runs the profile yaml (named name in errors) on an embedded
// broker of its own and fails the test unless the run succeeded.
func runYAML(t *testing.T, yaml, name string) *runs.Results {
	t.Helper()
	plan, err := profiles.Parse([]byte(yaml), name)
	if err != nil {
		t.Fatal(err)
	}
	// The run's log goes to the test's, shown when it fails: a restore
	// that did not verify says why there.
	env, err := Connect(context.Background(), Options{DataDir: t.TempDir(), Log: testLog{t}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// totalKeys is the entries a restore's stores held.
func totalKeys(r runs.Restore) int64 {
	keys, _ := r.Verification.Totals()
	return keys
}

// TestRestoreTopicRefusesADiskTooSmall: a restore of a topic whose live
// state (here from the independent read of a topic restorebench did not
// fill) exceeds the free space of the state directory's filesystem is
// refused before any restore starts, naming the bytes needed and free, the
// directory and the fix, instead of failing midway with RocksDB's "No
// space left on device". The free space is injected: no disk is filled.
func TestRestoreTopicRefusesADiskTooSmall(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	plan, _ := profiles.Parse([]byte(smallProfile), "small.yaml")
	fillForeign(t, env, "foreign", plan.Spec)
	defer func(f func(string) int64) { freeSpace = f }(freeSpace)
	freeSpace = func(string) int64 { return 1000 }
	out := filepath.Join(t.TempDir(), "out")
	_, err := env.RestoreTopic(ctx, RestoreTopicOptions{Topic: "foreign", AppID: "app", StoreName: "s", Case: config.DefaultCase(), OutDir: out})
	if err == nil || !strings.Contains(err.Error(), "(1000 bytes) free") || !strings.Contains(err.Error(), env.Opts.StateDir) ||
		!strings.Contains(err.Error(), "--state-dir on a larger disk") || !strings.Contains(err.Error(), "its live state needs") {
		t.Fatalf("restore onto 1000 free bytes: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(out, "results.json")); serr == nil {
		t.Fatal("a refused restore wrote results.json")
	}
}

// fillForeign fills topic with spec and forgets the fill's manifest: now
// the topic is one restorebench did not fill.
func fillForeign(t *testing.T, env *Env, topic string, spec loadgen.Spec) {
	t.Helper()
	if _, err := env.EnsureFill(context.Background(), FillRequest{Topic: topic, Spec: spec, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(env.Opts.DataDir, "fills")); err != nil {
		t.Fatal(err)
	}
}
