package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/recovery"
)

// crashUpdates is the word count's changelog updates in the crash test
// (RESTOREBENCH_CRASH_UPDATES sets another): enough that a store restored
// whole is tens of thousands of records.
const crashUpdates = 100_000

// TestCrashRestoresWhatTheRuleSays: the word count (an ordinary
// application, record cache off) under exactly_once_v2 on Kafka Streams
// 4.4.0 is SIGKILLed while it processes its input, then restarted on its
// own state dir, once with transactional state stores (KIP-892,
// enable.transactional.statestores=true, new in 4.4) and once without,
// both with 256 KiB memtables (restorebench.apps.SmallMemtables) so that
// its small store flushes to disk as a large one does. Without
// transactional stores the restart wipes the store and restores every
// partition from offset 0; with them it keeps the store and restores only
// what was written since each partition's store last flushed (the write-
// ahead log is off, so a SIGKILL loses the memtables). Those are the rules
// restorebench's answers take (recovery.AfterCrash), which the test
// asserts. Either way, once the input is processed, every word's count in
// the changelog (read committed) is exactly the number of times it was
// written: the crash lost and doubled nothing. (With Kafka Streams' 16 MB
// memtables a store this small never flushes, and a transactional store
// restores whole too: 39,284 records of 40,764 measured; at 2.0 M
// changelog records with the default memtables 362,017 were restored with
// transactional stores, 2,025,168, all, without.)
//
// RESTOREBENCH_CRASH_MATRIX=1 runs the crash matrix instead: the word
// count (a key-value store) and the windowed clicks (a window store), each
// under at_least_once, exactly_once_v2 and (from 4.4) exactly_once_v2 with
// transactional stores, on every version of RESTOREBENCH_CRASH_VERSIONS
// (comma-separated; by default make test's older version and the default
// one; RESTOREBENCH_CRASH_CELLS keeps the cells whose name contains it).
// An at-least-once cell commits every 3 s, writes eight times the updates
// and is killed after its third commit, so that its restart may find a
// checkpoint; it asserts no lost count (a crash may double some: the
// input since the last commit is processed again). Every cell logs what
// was durable at the kill, what the restart restored, from which
// offset, its time to RUNNING, and the changelog records a second the
// application wrote before the kill:
//
//	CI=true RESTOREBENCH_BROKERS=127.0.0.1:19092 RESTOREBENCH_CRASH_MATRIX=1 \
//	  RESTOREBENCH_CRASH_VERSIONS=3.9.1,4.2.2,4.3.0,4.3.1,4.4.0 go test -count=1 -timeout 60m -run TestCrashRestores -v ./integration/
func TestCrashRestoresWhatTheRuleSays(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	var table []string
	for _, c := range crashCells(t) {
		lib, err := ksdriver.EnsureLib(context.Background(), c.version, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		r := crashAndRestart(t, env, lib, c)
		table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %d | %d (%d-%d) | %.2f s | %.0f |", c.version, c.app().name, c.guarantee,
			yesNo(c.transactional), r.atKill, r.restored, r.fromOffset, r.lastFrom, r.toRunning, r.rate))
		rule, err := recovery.AfterCrash(c.version, c.guarantee, c.transactional, recovery.Processing)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rule.Restores == recovery.Whole && (r.restored == 0 || r.fromOffset != 0 || r.lastFrom != 0):
			t.Errorf("%s: the restart restored %d records, its partitions from offsets %d to %d, of the %d changelog offsets "+
				"written at the kill; the rule says the whole store: %s", c, r.restored, r.fromOffset, r.lastFrom, r.atKill, rule)
		case rule.Restores == recovery.SinceFlush && c.smallMemtables && (r.lastFrom <= 0 || r.restored*2 > r.atKill):
			// A partition that got few records may not have flushed and
			// restores from 0 (under load the two input partitions are
			// processed unevenly), as the rule says; one that flushed
			// resumes past it, and the whole restores less than half.
			t.Errorf("%s: the restart restored %d records, its partitions from offsets %d to %d, of the %d changelog offsets "+
				"written at the kill; its stores flushed (256 KiB memtables), so the rule says only what was written since: %s",
				c, r.restored, r.fromOffset, r.lastFrom, r.atKill, rule)
		}
	}
	t.Logf("the crash matrix:\n| Kafka Streams | application | guarantee | transactional stores | changelog offsets at the kill | "+
		"restored (from offsets) | restart to RUNNING | changelog records/s before the kill |\n|---|---|---|---|---:|---:|---:|---:|\n%s",
		strings.Join(table, "\n"))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// crashCell is one cell of the crash matrix: a Kafka Streams version, an
// application (its store kind), a processing guarantee, and transactional
// state stores or not.
type crashCell struct {
	version, guarantee string
	transactional      bool
	// window runs the windowed clicks (a window store), not the word
	// count (a key-value store).
	window bool
	// smallMemtables gives its stores 256 KiB memtables
	// (restorebench.apps.SmallMemtables), so that they flush.
	smallMemtables bool
}

func (c crashCell) String() string {
	s := fmt.Sprintf("Kafka Streams %s, %s, %s", c.version, c.app().name, c.guarantee)
	if c.transactional {
		s += " with transactional state stores"
	}
	if c.smallMemtables {
		s += ", 256 KiB memtables"
	}
	return s
}

// crashApp is an application of the crash matrix: its class, its store,
// and how its input is written and counted.
type crashApp struct {
	name, class, store string
	produce            func(t *testing.T, cl *kgo.Client, topic string, updates int, counts map[string]int64) int64
}

func (c crashCell) app() crashApp {
	if c.window {
		return crashApp{"window store (clicks per page a minute)", "restorebench.apps.WindowedClicks", "clicks-per-page", produceCountedClicks}
	}
	return crashApp{"key-value store (word count)", "restorebench.apps.WordCount", "word-counts", produceCountedLines}
}

// crashCells is make test's two cells (the word count under exactly-once
// with and without transactional stores, the default version), or the
// whole matrix under RESTOREBENCH_CRASH_MATRIX.
func crashCells(t *testing.T) []crashCell {
	def := ksdriver.DefaultKafkaStreamsVersion
	if os.Getenv("RESTOREBENCH_CRASH_MATRIX") == "" {
		return []crashCell{{version: def, guarantee: config.ExactlyOnceV2, smallMemtables: true},
			{version: def, guarantee: config.ExactlyOnceV2, transactional: true, smallMemtables: true}}
	}
	versions := []string{def}
	if v := os.Getenv("RESTOREBENCH_KSTREAMS_TEST_VERSION"); v != "" && v != def {
		versions = append([]string{v}, versions...)
	}
	if list := os.Getenv("RESTOREBENCH_CRASH_VERSIONS"); list != "" {
		versions = strings.Split(list, ",")
		for _, v := range versions {
			if !slices.Contains(config.KafkaStreamsVersionNames(), v) {
				t.Fatalf("RESTOREBENCH_CRASH_VERSIONS: %q is not one of the driver's versions %v", v, config.KafkaStreamsVersionNames())
			}
		}
	}
	var cells []crashCell
	for _, v := range versions {
		for _, window := range []bool{false, true} {
			cells = append(cells, crashCell{version: v, guarantee: config.AtLeastOnce, window: window},
				crashCell{version: v, guarantee: config.ExactlyOnceV2, window: window})
			if recovery.HasTransactionalStores(v) {
				cells = append(cells, crashCell{version: v, guarantee: config.ExactlyOnceV2, transactional: true, window: window})
			}
		}
	}
	if only := os.Getenv("RESTOREBENCH_CRASH_CELLS"); only != "" {
		cells = slices.DeleteFunc(cells, func(c crashCell) bool { return !strings.Contains(c.String(), only) })
	}
	return cells
}

// crashRestore is what a restart after the crash restored of the
// application's store: records, and the lowest offset any partition's
// restore started from (-1 when nothing was restored) and the highest;
// atKill is the
// changelog's offsets (records, transaction markers, aborted records) at
// the kill, rate those a second from RUNNING to the kill, toRunning the
// seconds from the restart to RUNNING.
type crashRestore struct {
	restored, fromOffset, lastFrom, atKill int64
	rate, toRunning                        float64
}

// atLeastOnceCommit is the commit interval of an at-least-once cell of the
// matrix (Kafka Streams' default is 30 s): short enough that the cell is
// killed after a commit, so its restart finds a checkpoint.
const atLeastOnceCommit = 3 * time.Second

// crashAndRestart runs the cell's application on a fresh input, SIGKILLs
// it once a third of its updates reached the changelog (an at-least-once
// cell also not before its third commit), restarts it on its state dir,
// checks the counts once it processed everything (read while it runs),
// and returns what the restart restored.
func crashAndRestart(t *testing.T, env *bench.Env, lib string, c crashCell) crashRestore {
	t.Helper()
	name := "crash, " + c.String()
	a := c.app()
	app := fmt.Sprintf("%s-%s-%s-tss-%v-w-%v-m-%v", testkafka.TopicName(t), strings.ReplaceAll(c.version, ".", ""), c.guarantee, c.transactional, c.window, c.smallMemtables)
	input := app + "-input"
	changelog := config.ChangelogTopic(app, a.store)
	t.Cleanup(func() { deleteUserApp(env, app, app) })
	adm := testAdmin(t, env)
	counts := map[string]int64{}
	updates := crashUpdates
	if n, err := strconv.Atoi(os.Getenv("RESTOREBENCH_CRASH_UPDATES")); err == nil && n >= 1000 {
		updates = n
	}
	if c.guarantee == config.AtLeastOnce {
		// Eight times as many, so that it still processes after its third
		// commit (the word count's 100 k took 3 to 7 s).
		updates *= 8
	}
	want := writeInput(t, env, adm, input, userAppsInputPartitions, func(cl *kgo.Client) int64 {
		return a.produce(t, cl, input, updates, counts)
	})

	flags := append(fleet.JVMFlags(ksCase("app", 1)), "-Dstreams.processing.guarantee="+c.guarantee)
	if c.transactional {
		flags = append(flags, "-Dstreams.enable.transactional.statestores=true")
	}
	if c.guarantee == config.AtLeastOnce {
		flags = append(flags, fmt.Sprintf("-Dstreams.commit.interval.ms=%d", atLeastOnceCommit.Milliseconds()))
	}
	if c.smallMemtables {
		flags = append(flags, "-Dstreams.rocksdb.config.setter=restorebench.apps.SmallMemtables")
	}
	stateDir := t.TempDir()
	p := startUserApp(t, lib, flags, a.class, env.Cluster.Brokers, app, stateDir, input)
	ran := awaitRunning(t, p, 2*time.Minute)
	// Two minutes, longer for a larger RESTOREBENCH_CRASH_UPDATES (at
	// 5,000 changelog records a second, slower than any run here).
	awaitChangelog(t, env, changelog, want/3, 2*time.Minute+time.Duration(want/3/5000)*time.Second, p)
	if c.guarantee == config.AtLeastOnce {
		time.Sleep(time.Until(ran.Add(3*atLeastOnceCommit + time.Second)))
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	killed := time.Now()
	<-p.done
	t.Logf("%s: durable at the kill: %s", name, checkpointFiles(stateDir))
	atKill := changelogEnds(t, env, changelog)

	restarted := time.Now()
	p = startUserApp(t, lib, flags, a.class, env.Cluster.Brokers, app, stateDir, input)
	running := awaitRunning(t, p, 2*time.Minute)
	// Counted while it processes the rest (the changelog's offsets count
	// transaction markers and aborted records, so they cannot say when it
	// is done); stopped once every count is right.
	doubled := checkCounts(t, env, changelog, counts, c.guarantee == config.AtLeastOnce)
	r := crashRestore{fromOffset: -1, atKill: atKill, toRunning: running.Sub(restarted).Seconds(),
		rate: float64(atKill) / killed.Sub(ran).Seconds()}
	for _, l := range p.snapshot() {
		if l.event == "restore-end" && l.fields["store"] == a.store {
			r.restored += l.int(t, "restored")
		}
		if l.event == "restore-start" && l.fields["store"] == a.store {
			from := l.int(t, "start_offset")
			if r.fromOffset < 0 || from < r.fromOffset {
				r.fromOffset = from
			}
			r.lastFrom = max(r.lastFrom, from)
		}
	}
	p.stop(t)
	t.Logf("%s: SIGKILLed with %d changelog offsets written (%.0f a second since RUNNING); the restart restored %d records (its partitions from offsets %d to %d) and ran %.2f s after it started; "+
		"then no count was lost (%d keys, %d updates; %d counted more often than written)", name, r.atKill, r.rate, r.restored, r.fromOffset, r.lastFrom, r.toRunning, len(counts), want, doubled)
	return r
}

// changelogEnds is the sum of changelog's end offsets.
func changelogEnds(t *testing.T, env *bench.Env, changelog string) int64 {
	t.Helper()
	var n int64
	for _, end := range testkafkaOffsets(t, env, changelog).End {
		n += end
	}
	return n
}

// awaitRunning waits until the application's state listener reports
// RUNNING, and returns when its line was read.
func awaitRunning(t *testing.T, p *userAppProc, limit time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		for _, l := range p.snapshot() {
			if l.event == "state" && l.fields["to"] == "RUNNING" {
				return time.Now()
			}
		}
		if p.exited() {
			t.Fatalf("%s exited before it ran: %s", p.class, p.tail())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not RUNNING after %s: %s", p.class, limit, p.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkCounts reads changelog read committed (a consumer of the test's, no
// group) and fails unless each word's last count is the number of times
// it was written (at least that many when atLeast: at-least-once
// processing may count some twice). It reads until the counts match or
// nothing new arrived for 10 s, then names the first word that differs,
// and returns how many words were counted more often than written.
func checkCounts(t *testing.T, env *bench.Env, changelog string, want map[string]int64, atLeast bool) int {
	t.Helper()
	cl, err := cluster.NewClient(env.Cluster, kgo.ConsumeTopics(changelog), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	got := make(map[string]int64, len(want))
	lastNew := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			if len(r.Value) == 8 {
				got[string(r.Key)] = int64(binary.BigEndian.Uint64(r.Value))
			} else {
				delete(got, string(r.Key))
			}
		})
		if n > 0 {
			lastNew = time.Now()
		}
		diff, more := countDiff(got, want, atLeast)
		if diff == "" && (more == 0 || time.Since(lastNew) > 5*time.Second) {
			return more
		}
		if time.Since(lastNew) > 10*time.Second {
			t.Fatalf("%s read committed: %d words, want %d: %s", changelog, len(got), len(want), diff)
		}
	}
}

// countDiff names a word whose count is wrong (differs; when atLeast,
// falls short), or is "", and counts the words counted more often than
// written.
func countDiff(got, want map[string]int64, atLeast bool) (diff string, more int) {
	for w, n := range want {
		switch g := got[w]; {
		case g > n && atLeast:
			more++
		case g != n && diff == "":
			diff = fmt.Sprintf("%q counted %d, written %d times", w, g, n)
		}
	}
	if len(got) != len(want) && diff == "" {
		diff = fmt.Sprintf("%d words counted that were never written", len(got)-len(want))
	}
	return diff, more
}

// checkpointFiles names the .checkpoint files under stateDir and what each
// holds (before Kafka Streams 4.3 the stores' durable changelog offsets;
// from 4.3 they are kept in the stores), or says there are none.
func checkpointFiles(stateDir string) string {
	var out []string
	filepath.WalkDir(stateDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".checkpoint" {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(stateDir, path)
			out = append(out, fmt.Sprintf("%s: %q", rel, b))
		}
		return nil
	})
	if len(out) == 0 {
		return "no .checkpoint file"
	}
	return strings.Join(out, "; ")
}
