package integration

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
	"github.com/restorebench/restorebench/verify"
)

// The user-style applications (kstreams/src/main/java/restorebench/apps,
// built into the driver's jar): ordinary Kafka Streams applications, not
// shaped around restorebench, whose own restore restorebench's answer for
// their changelog is judged against.
//
// RESTOREBENCH_USERAPPS_UPDATES sets how many changelog updates each
// application's input makes (default userAppsUpdates, what CI runs); a
// manual measurement at a larger size:
//
//	CI=true RESTOREBENCH_BROKERS=127.0.0.1:19092 RESTOREBENCH_USERAPPS_UPDATES=10000000 \
//	  go test -count=1 -timeout 90m -run 'TestUserApp' -v ./integration/
//
// RESTOREBENCH_USERAPPS_KEEP=DIR keeps the strict sweep's results in DIR,
// to plan from by hand or look into after the test.
//
// RESTOREBENCH_USERAPPS_STRICT=1 holds the answers to what a quiet machine
// gives (nothing else running): the plan's prediction from a shape sweep
// run beside the applications (sweepShapes, as a user runs `run shapes`
// before `plan --from-topic`) within ±25% of the application's own
// restore, and the kafka-streams engine's restore (what plan --measure
// answers from) within ±15%. CI runs these tests beside the unit tests on
// 2 cores, where the application's own restore was seen to swing 2×
// between rounds, so without it the plan answers from the saved sweep
// (testdata/results/shapes, of another day) and the bound is the loose
// userApp.bound. Strict, 2026-12-04, each application's store restored as
// its own kind, the sweep beside them priced hot records apart (their key
// among their partition's last 64: skewed keys restore faster): at 300 k
// updates all three pass (word count engine 0.97×, plan 0.83×; windowed
// count engine 0.95×, plan 1.04×; session count engine 1.06×, plan 0.89×);
// at 3 M both the word count (engine 1.03×, plan 0.97×) and the windowed
// count (engine 0.97×, plan 0.97×) pass, where the uniform-key sweep of
// the day before said 1.33× and 1.58×. The model is 1.3-1.5× the
// application at 3 M (the stop notes of that day). Later that day, RocksDB
// linked statically (make's default), at 3 M: the windowed count passes
// (engine 1.035×, plan 1.00×, model 1.04× the engine); the word count
// passed in one run (engine 1.13×, plan 0.91×, model 1.24× the engine)
// and failed in another (engine 1.19×: single rounds of the engine swung
// 6.9-9.7 s, and that run's sweep fitted at 41% rms against 15%). At 300 k
// the same evening: windowed count (engine 1.13×, plan 0.94×) and session
// count (engine 1.07×, plan 1.03×) pass; the word count's plan missed
// (0.735×, engine 0.94×). Below a memtable's worth the model is faster
// than Kafka Streams (0.47-0.75× the engine), unexplained.
const userAppsUpdates = 300_000

// strictBounds are the relative bounds RESTOREBENCH_USERAPPS_STRICT
// applies: the plan's prediction, and the kafka-streams engine's restore.
const strictPlanBound, strictEngineBound = 0.25, 0.15

// userAppsInputPartitions is each application's input partitions, hence
// its repartition topic's and its changelog's.
const userAppsInputPartitions = 2

// userAppsRounds is how many times each application restarts cold in
// CI: 3, whose median is judged against the loose bound (one round was
// tried: in a lone round the windowed count's own restore once took
// 4.4 s, where the engines took 1.9 s and the plan said 1.1 s, and the
// plan failed the bound at 0.26×). 5 with
// RESTOREBENCH_USERAPPS_STRICT=1: at 300 k updates a restore takes 1-2.5 s
// and single rounds swung ±20% on a quiet machine, and the strict bounds
// take the median. Each round restarts the application cold and
// restorebench restores its changelog on each engine, interleaved.
const userAppsRounds = 3

// userApp is one of the applications and the input it is fed.
type userApp struct {
	class string // main class
	store string // its store, whose changelog is <app>-<store>-changelog
	// kind is the store kind of the application's store, and the one the
	// model restores its changelog as; ksKind the one the kafka-streams
	// engine does.
	kind, ksKind config.StoreKind
	// windowed says the application's store is a window or session store
	// (its changelog compact,delete): a plan from a key-value sweep says
	// it answers for another kind of store.
	windowed bool
	// bound is how far, either way, the kafka-streams engine's median
	// restore time may be from the application's: a factor loose enough
	// not to flap on a loaded CI machine (3: 0.33×-3×). The medians
	// measured on the 2-core dev machine ran from 0.54× (10 M updates,
	// load 7.5) to 1.05× (1 M, load 3): not a ±15 % match.
	bound float64
	// planBound is the same for the plan from the saved sweep in CI (0:
	// bound); 5 for both applications. The plan answers from a sweep of
	// another day on a quiet machine, and CI's load (the tests two at a
	// time, the unit tests beside them) slows only the application's
	// side: the word count's plan measured 0.33× of the application's
	// 3.42 s (load average 3.9, the kafka-streams engine itself at
	// 0.54×), the windowed count's 0.26× and 0.29× (medians of 1 and 3
	// rounds), which also answers from key-value stores' costs (it says
	// so): 0.63-0.75× a window store's on a quiet machine. 5 (0.2×)
	// still catches the 0.07× of the MB/s planner this test was written
	// against; the strict run holds the plan to ±25 %.
	planBound float64
	// produce writes the input (updates changelog updates' worth) to
	// topic and returns how many changelog records the application
	// writes for it.
	produce func(t *testing.T, cl *kgo.Client, topic string, updates int) int64
}

// TestUserAppWordCountRestore: a word count (lines of text split into
// words, grouped by word through a repartition topic, count() in a
// timestamped key-value store, record cache off) restores its changelog
// after its state directory is wiped; restorebench restores the same
// changelog on the kafka-streams engine (timestamped-key-value) and on the
// model, verified, the same records the application restored, in a time
// within a loose bound of the application's own, changing nothing of the
// application's.
func TestUserAppWordCountRestore(t *testing.T) {
	runUserApp(t, userApp{
		class: "restorebench.apps.WordCount", store: "word-counts",
		kind: config.StoreTimestampedKeyValue, ksKind: config.StoreTimestampedKeyValue,
		bound: 3, planBound: 5, produce: produceLines,
	})
}

// TestUserAppWindowedClicksRestore: clicks keyed by user, re-keyed by page
// (a repartition topic), counted per page in one-minute windows (a
// timestamped window store); as the word count, restorebench restoring the
// changelog as a timestamped window store's (`--store-kind
// timestamped-window`, its retention taken from the topic's retention.ms),
// verified against an independent read of it as such a store's changelog.
func TestUserAppWindowedClicksRestore(t *testing.T) {
	runUserApp(t, userApp{
		class: "restorebench.apps.WindowedClicks", store: "clicks-per-page",
		kind: config.StoreTimestampedWindow, ksKind: config.StoreTimestampedWindow, windowed: true,
		bound: 3, planBound: 5, produce: produceClicks,
	})
}

// TestUserAppSessionClicksRestore: the same clicks counted per user
// session (five minutes of inactivity close one: a session store, each
// extended session's old key deleted); restorebench restoring the
// changelog as a session store's (`--store-kind session`, its retention
// taken from the topic's retention.ms), verified against an independent
// read of it as a session store's changelog.
func TestUserAppSessionClicksRestore(t *testing.T) {
	runUserApp(t, userApp{
		class: "restorebench.apps.SessionClicks", store: "clicks-per-session",
		kind: config.StoreSession, ksKind: config.StoreSession, windowed: true,
		bound: 3, planBound: 5, produce: produceSessionClicks,
	})
}

func userAppsSize(t *testing.T) int {
	s := os.Getenv("RESTOREBENCH_USERAPPS_UPDATES")
	if s == "" {
		return userAppsUpdates
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1000 {
		t.Fatalf("RESTOREBENCH_USERAPPS_UPDATES=%q: want a number of updates, 1000 or more", s)
	}
	return n
}

// userAppRound is one round's figures.
type userAppRound struct {
	app, ks, model  float64 // restore seconds
	appRecords      int64
	ksRec, modelRec runs.Restore
}

func runUserApp(t *testing.T, ua userApp) {
	needDriver(t)
	started := time.Now()
	updates := userAppsSize(t)
	// A minute per million updates for the application to process its
	// input, with a floor.
	processWait := max(2*time.Minute, time.Duration(updates/1_000_000)*time.Minute)
	ctx := context.Background()
	lib, err := ksdriver.EnsureLib(ctx, ksdriver.DefaultKafkaStreamsVersion, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	app := testkafka.TopicName(t)
	own := app + "-rb" // restorebench's application id, not the user's
	input := app + "-input"
	changelog := config.ChangelogTopic(app, ua.store)
	t.Cleanup(func() { deleteUserApp(env, app, own) })

	want := writeInput(t, env, adm, input, userAppsInputPartitions, func(cl *kgo.Client) int64 { return ua.produce(t, cl, input, updates) })
	t.Logf("%s: input %s written (%d changelog updates to come) in %s", ua.class, input, want, time.Since(started).Round(time.Millisecond))

	// The application processes its input; then it stops.
	stateDir := t.TempDir()
	flags := fleet.JVMFlags(ksCase("app", 1)) // the engine's heap and flags
	proc := startUserApp(t, lib, flags, ua.class, env.Cluster.Brokers, app, stateDir, input)
	processed := time.Now()
	got := awaitChangelog(t, env, changelog, want, processWait, proc)
	proc.stop(t)
	t.Logf("%s: processed its input into %d changelog records in %s", ua.class, got, time.Since(processed).Round(time.Millisecond))
	partitions := len(testkafkaOffsets(t, env, changelog).End)
	// The plan's inputs: the saved shape sweep, and with
	// RESTOREBENCH_USERAPPS_STRICT=1 a sweep run here and now (two
	// minutes on the 2-core machine: not in CI's time).
	strict := os.Getenv("RESTOREBENCH_USERAPPS_STRICT") == "1"
	saved, err := capacity.LoadRuns([]string{filepath.Join("..", "testdata", "results", "shapes")})
	if err != nil {
		t.Fatal(err)
	}
	sweep := saved
	if strict {
		sweep = sweepShapes(t, env, updates)
	}

	var rounds []userAppRound
	nRounds := userAppsRounds
	if strict {
		nRounds = 5
	}
	for round := range nRounds {
		var r userAppRound
		appRestart := func() {
			// The application's own state only: its changelog is untouched.
			if err := os.RemoveAll(filepath.Join(stateDir, app)); err != nil {
				t.Fatal(err)
			}
			p := startUserApp(t, lib, flags, ua.class, env.Cluster.Brokers, app, stateDir, input)
			r.app, r.appRecords = p.awaitRestored(t, partitions, ua.store, processWait)
			p.stop(t)
		}
		engines := func() {
			before := userAppState(t, env, app, input)
			r.ksRec = userAppRestore(t, env, ua, own, changelog, config.EngineKafkaStreams)
			r.modelRec = userAppRestore(t, env, ua, own, changelog, config.EngineModel)
			if after := userAppState(t, env, app, input); after != before {
				t.Fatalf("round %d: restorebench changed the application's group, topics or offsets:\nbefore %s\nafter  %s", round+1, before, after)
			}
			checkGroupGone(t, env, own)
			r.ks, r.model = r.ksRec.Phase.Seconds, r.modelRec.Phase.Seconds
		}
		// ABA: the application first in odd rounds, last in even ones.
		if round%2 == 0 {
			appRestart()
			engines()
		} else {
			engines()
			appRestart()
		}
		for _, rec := range []runs.Restore{r.ksRec, r.modelRec} {
			checkUserAppRestore(t, rec, r.appRecords, int64(got))
		}
		t.Logf("%s round %d: application %.3fs (%d records), kafka-streams %.3fs, model %.3fs",
			ua.class, round+1, r.app, r.appRecords, r.ks, r.model)
		rounds = append(rounds, r)
	}
	noJVMUnder(t, env.Opts.StateDir)

	med := func(f func(userAppRound) float64) float64 {
		var xs []float64
		for _, r := range rounds {
			xs = append(xs, f(r))
		}
		sort.Float64s(xs)
		return xs[len(xs)/2]
	}
	appS := med(func(r userAppRound) float64 { return r.app })
	ksS := med(func(r userAppRound) float64 { return r.ks })
	modelS := med(func(r userAppRound) float64 { return r.model })
	last := rounds[len(rounds)-1].ksRec
	bpr := float64(last.Bytes) / float64(max(last.Records, 1))
	load, _ := os.ReadFile("/proc/loadavg")
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d changelog records over %d partitions (%.1f key+value bytes a record), median of %d rounds; load average %s\n",
		ua.class, last.Records, partitions, bpr, len(rounds), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintf(&b, "  %-14s %9s %8s   per round\n", "restore", "seconds", "ratio")
	row := func(name string, s float64, f func(userAppRound) float64) {
		var each []string
		for _, r := range rounds {
			each = append(each, fmt.Sprintf("%.3f", f(r)))
		}
		fmt.Fprintf(&b, "  %-14s %9.3f %8.3f   %s\n", name, s, s/appS, strings.Join(each, " "))
	}
	row("application", appS, func(r userAppRound) float64 { return r.app })
	row("kafka-streams", ksS, func(r userAppRound) float64 { return r.ks })
	row("model", modelS, func(r userAppRound) float64 { return r.model })
	fmt.Fprintf(&b, "  (kafka-streams restored it as %s, the model as %s)\n", ua.ksKind, ua.kind)
	planS, planText := userAppPlan(t, env, changelog, sweep)
	// Kafka Streams made the changelog: a window store's is compact,delete,
	// and the plan from the saved (key-value) sweep must say it answers
	// for another kind of store; a key-value store's must not be told so,
	// nor a window store's planned from the window sweep run beside it.
	kindWarned := strings.Contains(planText, "a window or session store's")
	if wantWarn := ua.windowed && !strict; kindWarned != wantWarn {
		t.Errorf("the plan names another kind of store: %v, want %v (windowed store %v, sweep beside it %v): %s",
			kindWarned, wantWarn, ua.windowed, strict, planText)
	}
	if strict {
		fmt.Fprintf(&b, "  %-14s %9.3f %8.3f   %s\n", "plan (sweep)", planS, planS/appS, planText)
		savedS, savedText := userAppPlan(t, env, changelog, saved)
		fmt.Fprintf(&b, "  %-14s %9.3f %8.3f   %s\n", "plan (saved)", savedS, savedS/appS, savedText)
	} else {
		fmt.Fprintf(&b, "  %-14s %9.3f %8.3f   %s\n", "plan (saved)", planS, planS/appS, planText)
	}
	fmt.Fprintf(&b, "  test wall time %s", time.Since(started).Round(time.Second))
	t.Log(b.String())
	// A loose bound by default: a loaded CI machine must not make it flap.
	planBound := ua.bound
	if ua.planBound > 0 {
		planBound = ua.planBound
	}
	engineLo, engineHi, planLo, planHi := 1/ua.bound, ua.bound, 1/planBound, planBound
	if strict {
		engineLo, engineHi, planLo, planHi = 1-strictEngineBound, 1+strictEngineBound, 1-strictPlanBound, 1+strictPlanBound
	}
	if ratio := ksS / appS; ratio < engineLo || ratio > engineHi {
		t.Errorf("the kafka-streams engine's restore took %.3fs, %.2f× the application's %.3fs: want within %.2f×-%.2f×", ksS, ratio, appS, engineLo, engineHi)
	}
	if ratio := planS / appS; ratio < planLo || ratio > planHi {
		t.Errorf("the plan predicted %.3fs from the shape sweep (run beside it: %v), %.2f× the application's %.3fs: want within %.2f×-%.2f×",
			planS, strict, ratio, appS, planLo, planHi)
	}
}

// checkUserAppRestore checks one restorebench record of an application's
// changelog: verified against the independent read, every record the
// application restored.
func checkUserAppRestore(t *testing.T, r runs.Restore, appRecords, written int64) {
	t.Helper()
	engine := runs.EngineOf(r.Params)
	if r.Error != "" || !r.Verified || r.Verification.Mode != verify.ModeExpectedState {
		t.Fatalf("%s: error %q, verified %v, mode %q: want verified against the independent read of the changelog",
			engine, r.Error, r.Verified, r.Verification.Mode)
	}
	if r.Records != appRecords || r.Phase.Seconds <= 0 {
		t.Fatalf("%s: %d records in %.3fs; the application restored %d (its changelog holds %d)", engine, r.Records, r.Phase.Seconds, appRecords, written)
	}
}

// userAppRestore restores changelog with restorebench (what `restorebench
// restore --topic CHANGELOG --application-id OWN --store STORE --engine E
// --store-kind K --threads 1` runs) under restorebench's own application
// id, and returns its record.
func userAppRestore(t *testing.T, env *bench.Env, ua userApp, own, changelog string, engine config.Engine) runs.Restore {
	t.Helper()
	c := ksCase("restore", 1)
	c.Engine, c.StoreKind = engine, ua.kind
	if engine == config.EngineKafkaStreams {
		c.StoreKind = ua.ksKind
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	res, err := env.RestoreTopic(context.Background(), bench.RestoreTopicOptions{
		Topic: changelog, AppID: own, StoreName: ua.store, Case: c, Repeats: 1, OutDir: t.TempDir(),
	})
	if err != nil {
		t.Fatalf("restorebench restore of %s on %s: %v", changelog, engine, err)
	}
	return res.Restores[0]
}

// userAppState is the application's group offsets, and its topics'
// partitions, log start and end offsets and topic-level configs, as one
// string: restorebench must leave it as it was.
func userAppState(t *testing.T, env *bench.Env, app, input string) string {
	t.Helper()
	ctx := context.Background()
	adm := testAdmin(t, env)
	var parts []string
	held, err := adm.FetchOffsets(ctx, app)
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatal(err)
	}
	held.Each(func(o kadm.OffsetResponse) {
		parts = append(parts, fmt.Sprintf("group %s/%d@%d err=%v", o.Topic, o.Partition, o.At, o.Err))
	})
	td, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var topics []string
	for _, name := range td.Names() {
		if name == input || strings.HasPrefix(name, app+"-") {
			topics = append(topics, name)
		}
	}
	configs, err := adm.DescribeTopicConfigs(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range configs {
		for _, c := range rc.Configs {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				parts = append(parts, fmt.Sprintf("config %s %s=%s", rc.Name, c.Key, c.MaybeValue()))
			}
		}
	}
	for _, topic := range topics {
		o := testkafkaOffsets(t, env, topic)
		for _, p := range o.Partitions() {
			parts = append(parts, fmt.Sprintf("topic %s/%d %d-%d", topic, p, o.Start[p], o.End[p]))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// deleteUserApp deletes the application's topics (its input and its
// internal topics, all named <app>-...) and both groups.
func deleteUserApp(env *bench.Env, app, own string) {
	adm, closeAdm, err := env.Admin()
	if err != nil {
		return
	}
	defer closeAdm()
	ctx := context.Background()
	if td, err := adm.ListTopics(ctx); err == nil {
		for _, name := range td.Names() {
			if strings.HasPrefix(name, app+"-") {
				cluster.DeleteTopic(ctx, adm, name)
			}
		}
	}
	adm.DeleteGroup(ctx, app)
	adm.DeleteGroup(ctx, own)
}

// awaitChangelog waits until changelog holds want records, or has stopped
// growing for a while (late records a windowed count drops write nothing),
// and returns how many it holds.
func awaitChangelog(t *testing.T, env *bench.Env, changelog string, want int64, limit time.Duration, p *userAppProc) int64 {
	t.Helper()
	const still = 15 * time.Second
	deadline := time.Now().Add(limit)
	var last int64 = -1
	lastChange := time.Now()
	for {
		if p.exited() {
			t.Fatalf("the application exited while processing its input: %s", p.tail())
		}
		var n int64
		if o, err := env.Offsets(context.Background(), changelog); err == nil {
			for _, p := range o.Partitions() {
				n += o.End[p] - o.Start[p]
			}
		}
		if n != last {
			last, lastChange = n, time.Now()
		}
		switch {
		case n >= want:
			return n
		case n > 0 && time.Since(lastChange) > still:
			if n < want*9/10 {
				t.Fatalf("%s stopped growing at %d records, want %d", changelog, n, want)
			}
			t.Logf("%s stopped growing at %d records of the %d updates the input makes (late records dropped)", changelog, n, want)
			return n
		case time.Now().After(deadline):
			t.Fatalf("%s holds %d records after %s, want %d: %s", changelog, n, limit, want, p.tail())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// writeInput creates an application's input topic of partitions
// partitions, waits until the broker has it, and writes it with produce
// over a client of its own; it returns what produce returns.
func writeInput(t *testing.T, env *bench.Env, adm *kadm.Client, topic string, partitions int32, produce func(cl *kgo.Client) int64) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, partitions, -1, nil, topic); err != nil {
		t.Fatal(err)
	}
	if err := cluster.AwaitTopic(ctx, adm, topic, partitions); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	return produce(cl)
}

// produceLines writes lines of ten words each, drawn (Zipf) from a
// vocabulary of up to 100,000 words, null keys: updates words in all,
// each one changelog update of the word count.
func produceLines(t *testing.T, cl *kgo.Client, topic string, updates int) int64 {
	return produceCountedLines(t, cl, topic, updates, nil)
}

// produceCountedLines is produceLines that also adds each word it writes to
// counts (when not nil): what the word count's store holds once it has
// processed them exactly once.
func produceCountedLines(t *testing.T, cl *kgo.Client, topic string, updates int, counts map[string]int64) int64 {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := vocabulary(rng, 100_000)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(len(vocab)-1))
	const perLine = 10
	var words int64
	produceAll(t, cl, updates/perLine, func(i int) *kgo.Record {
		var line strings.Builder
		for j := range perLine {
			if j > 0 {
				line.WriteByte(' ')
			}
			w := vocab[zipf.Uint64()]
			line.WriteString(w)
			if counts != nil {
				counts[w]++
			}
		}
		words += perLine
		return &kgo.Record{Topic: topic, Value: []byte(line.String())}
	})
	return words
}

// vocabulary is n distinct lowercase words of 3 to 9 letters.
func vocabulary(rng *rand.Rand, n int) []string {
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		b := make([]byte, 3+rng.IntN(7))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// produceClicks writes updates clicks: keyed by user (one of 50,000), the
// page (Zipf over 20,000) the value, event times spread evenly over the
// 50 minutes before now in order, so that the one-minute windows of an
// hour's grace drop none as late.
func produceClicks(t *testing.T, cl *kgo.Client, topic string, updates int) int64 {
	return produceCountedClicks(t, cl, topic, updates, nil)
}

// produceCountedClicks is produceClicks that also counts each click (when
// counts is not nil) under the key the windowed count's changelog gives
// it: the page, the one-minute window's start in milliseconds (8 bytes)
// and sequence number 0 (4 bytes), Kafka Streams' window key layout.
func produceCountedClicks(t *testing.T, cl *kgo.Client, topic string, updates int, counts map[string]int64) int64 {
	produceClicksEach(t, cl, topic, updates, func(r *kgo.Record) {
		if counts != nil {
			window := r.Timestamp.UnixMilli() / 60_000 * 60_000
			key := binary.BigEndian.AppendUint64(append([]byte(nil), r.Value...), uint64(window))
			counts[string(binary.BigEndian.AppendUint32(key, 0))]++
		}
	})
	return int64(updates)
}

// produceSessionClicks writes produceClicks' clicks and returns how many
// records the session count's changelog gets for them: one for a click
// that starts a session, two for one within sessionGap of its user's last
// click (the old session's tombstone and the extended session), the
// clicks being in event-time order.
func produceSessionClicks(t *testing.T, cl *kgo.Client, topic string, updates int) int64 {
	const sessionGap = 5 * time.Minute // SessionClicks' inactivity gap
	last := map[string]time.Time{}
	var records int64
	produceClicksEach(t, cl, topic, updates, func(r *kgo.Record) {
		records++
		if prev, ok := last[string(r.Key)]; ok && r.Timestamp.Sub(prev) <= sessionGap {
			records++
		}
		last[string(r.Key)] = r.Timestamp
	})
	return records
}

// produceClicksEach writes produceClicks' clicks, handing each record to
// each before it is produced.
func produceClicksEach(t *testing.T, cl *kgo.Client, topic string, updates int, each func(r *kgo.Record)) {
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.05, 1, 19_999)
	span := 50 * time.Minute
	start := time.Now().Add(-span)
	step := span / time.Duration(updates)
	produceAll(t, cl, updates, func(i int) *kgo.Record {
		r := &kgo.Record{
			Topic:     topic,
			Key:       fmt.Appendf(nil, "user-%d", rng.IntN(50_000)),
			Value:     fmt.Appendf(nil, "/page/%d", zipf.Uint64()),
			Timestamp: start.Add(time.Duration(i) * step),
		}
		each(r)
		return r
	})
}

// produceAll produces n records made by next, in order, waiting for all.
func produceAll(t *testing.T, cl *kgo.Client, n int, next func(i int) *kgo.Record) {
	t.Helper()
	ctx := context.Background()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		cl.Produce(ctx, next(i), func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				first = firstErr(first, err)
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// userAppProc is a running application JVM and the lines its restore
// listener printed.
type userAppProc struct {
	class string
	// flags and stateDir are what it was started with.
	flags    []string
	stateDir string
	cmd      *exec.Cmd
	log      string // its stderr

	mu    sync.Mutex
	lines []appLine
	done  chan struct{}
	err   error // cmd.Wait's
}

// appLine is one line of restorebench.apps.RestoreLines: its event word
// and key=value fields.
type appLine struct {
	event  string
	fields map[string]string
}

func (l appLine) int(t *testing.T, key string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(l.fields[key], 10, 64)
	if err != nil {
		t.Fatalf("line %s %v: %s: %v", l.event, l.fields, key, err)
	}
	return n
}

// startUserApp launches `java FLAGS -cp LIB/* CLASS BOOTSTRAP APP STATEDIR
// INPUT`, the driver's JVM and classpath (ksdriver's), in its own process
// group; it is killed when the test ends if still running.
func startUserApp(t *testing.T, lib string, flags []string, class string, brokers []string, app, stateDir, input string) *userAppProc {
	t.Helper()
	java, err := ksdriver.FindJava()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.CreateTemp(t.TempDir(), "app-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	args := append(slices.Clone(flags), "-cp", ksdriver.Classpath(lib), class, strings.Join(brokers, ","), app, stateDir, input)
	cmd := exec.Command(java, args...)
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &userAppProc{class: class, flags: flags, stateDir: stateDir, cmd: cmd, log: log.Name(), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			l := appLine{event: f[0], fields: map[string]string{}}
			for _, kv := range f[1:] {
				if k, v, ok := strings.Cut(kv, "="); ok {
					l.fields[k] = v
				}
			}
			p.mu.Lock()
			p.lines = append(p.lines, l)
			p.mu.Unlock()
		}
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	return p
}

func (p *userAppProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *userAppProc) snapshot() []appLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

// tail is the end of the application's stderr, for a failure.
func (p *userAppProc) tail() string {
	return fmt.Sprintf("%s's log:\n%s", p.class, ksdriver.LogTail(p.log, 30))
}

// stop sends SIGTERM and waits for the application to close: its shutdown
// hook prints "closed" and the JVM exits 143 (the status of a JVM a
// SIGTERM ended after its hooks ran) or 0.
func (p *userAppProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !p.exited() {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		t.Fatalf("%s did not stop within 2 minutes of SIGTERM: %s", p.class, p.tail())
	}
	var exit *exec.ExitError
	if p.err != nil && (!errors.As(p.err, &exit) || exit.ExitCode() != 143) {
		t.Fatalf("%s exited %v on SIGTERM: %s", p.class, p.err, p.tail())
	}
	// Not necessarily the last line: Kafka Streams calls the state
	// listener's NOT_RUNNING after close() may have returned.
	lines := p.snapshot()
	if !slices.ContainsFunc(lines, func(l appLine) bool { return l.event == "closed" }) {
		t.Fatalf("%s stopped without closing (no closed line; its last lines %v): %s", p.class, lines[max(0, len(lines)-3):], p.tail())
	}
}

// awaitRestored waits for store's restore to end on every partition and
// returns the restore's seconds, the first onRestoreStart to the last
// onRestoreEnd, and the records restored.
func (p *userAppProc) awaitRestored(t *testing.T, partitions int, store string, limit time.Duration) (float64, int64) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var starts, ends []appLine
		for _, l := range p.snapshot() {
			if l.fields["store"] != store {
				continue
			}
			switch l.event {
			case "restore-start":
				starts = append(starts, l)
			case "restore-end":
				ends = append(ends, l)
			case "restore-suspended":
				t.Fatalf("%s: the restore of %s was suspended (a rebalance mid-restore): %v", p.class, store, l.fields)
			}
		}
		if len(ends) >= partitions {
			first, last := starts[0].int(t, "nano_time"), int64(0)
			for _, s := range starts {
				first = min(first, s.int(t, "nano_time"))
			}
			var restored int64
			for _, e := range ends {
				last = max(last, e.int(t, "nano_time"))
				restored += e.int(t, "restored")
			}
			return float64(last-first) / 1e9, restored
		}
		if p.exited() {
			t.Fatalf("%s exited before its restore ended: %s", p.class, p.tail())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d partitions restored after %s: %s", p.class, len(ends), partitions, limit, p.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// userAppPlan is what plan predicts, without --measure, for the
// application's changelog restored cold by one instance of one stream
// thread: the restore cost of a shape sweep's runs rs (the one run beside
// the applications, sweepShapes, or the saved testdata/results/shapes,
// Kafka Streams 4.4 and the model, 16 B to 4.1 kB a record), evaluated at
// the changelog's own record size and records per live key as
// --from-topic reads them. It returns the predicted seconds and the
// rate's line.
func userAppPlan(t *testing.T, env *bench.Env, changelog string, rs []*capacity.Run) (float64, string) {
	t.Helper()
	shape, err := topicshape.Read(context.Background(), env.Cluster, changelog, topicshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := capacity.Deployment{StateBytes: float64(shape.Bytes), Partitions: shape.Partitions, Instances: 1, Changelog: &shape,
		BytesPerRecord: shape.BytesPerRecord(), RecordsPerKey: shape.RecordsPerKey, TombstoneShare: shape.TombstoneShare()}
	d.HotShare, d.HotKnown = shape.HotShare()
	a := capacity.Analyze(rs, capacity.Options{Threads: 1, Deployment: d})
	if a.Rate == nil || a.Rate.Cost == nil {
		t.Fatalf("plan from the saved shape sweep gave no restore cost at %.1f B a record: rate %+v (%v)", d.BytesPerRecord, a.Rate, a.RateErr)
	}
	for _, ans := range a.Answers {
		if ans.ID == "cold_restore_instance" && ans.Figure != nil {
			text := a.Rate.Summary()
			if w := a.Rate.FarFrom(d); w != "" {
				text += "\n      " + w
			}
			// The cost's fit, shape by shape: what the answer rests on.
			text += "\n      " + a.Rate.Cost.Basis()
			return ans.Figure.Value, text
		}
	}
	t.Fatalf("plan gave no cold restore of one instance: %+v", a.Answers)
	return 0, ""
}
