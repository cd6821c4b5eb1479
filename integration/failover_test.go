package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestFailoverExactlyOnceVerifies is the failover practice (kill an instance
// mid-stream, the balances stay correct on the other) on the real broker: two
// Kafka Streams instances run the ledger under exactly_once_v2 with a standby
// while a producer writes transactions; the instance holding the most tasks is
// killed with SIGKILL twice at random moments and the other takes over.
// Afterwards every account's balance and transaction count equal the sums of
// the acknowledged transactions, the takeovers promoted the standbys, every
// gap is measured, and no JVM, state directory or topic is left behind.
func TestFailoverExactlyOnceVerifies(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 100, 10, 1
	fill := ksFill(t, env, app, spec, "none")
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario = "eos", config.EngineKafkaStreams, config.ScenarioFailover
	c.Streams = map[string]string{"processing.guarantee": "exactly_once_v2"}
	c.JVMHeap = 256 << 20
	c.Failover = &config.FailoverSettings{Rate: 400, Accounts: 200, Kills: 2, Standby: true, Persistent: true,
		Run: config.Duration(3 * time.Second), Partitions: 2, Seed: 1}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	recs, err := env.RunCaseAll(ctx, fill, app, ksStore, c, dir)
	noJVMUnder(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failover sequence took %s", time.Since(start).Round(time.Millisecond))
	checkRecords(t, recs...)
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per kill (2)", len(recs))
	}
	for i, r := range recs {
		f := r.Failover
		if !r.Verified || r.Error != "" || f == nil || f.Kill != i+1 || len(f.Tasks) == 0 {
			t.Fatalf("kill %d: verified=%v error=%q record %+v", i+1, r.Verified, r.Error, f)
		}
		t.Logf("kill %d: %s killed (tasks %v), max gap %.2fs, detection %.2fs, running %.2fs, takeover %s",
			f.Kill, f.Killed, f.VictimTasks, f.MaxGapSeconds, f.DetectionSeconds, f.RunningSeconds, f.Takeover)
		for _, task := range f.Tasks {
			if task.GapSeconds <= 0 || task.GapSeconds > 60 {
				t.Errorf("kill %d task %s: gap %.3fs", i+1, task.Task, task.GapSeconds)
			}
			if task.Takeover != runs.TakeoverPromoted {
				t.Errorf("kill %d task %s: takeover %s with a standby, want promoted", i+1, task.Task, task.Takeover)
			}
		}
		if gap, ok := r.Gap(); r.Phase != nil || !ok || gap != f.MaxGapSeconds || f.Guarantee != "exactly_once_v2" || f.SessionTimeoutMs != 6000 {
			t.Errorf("kill %d: restore phase %+v (a kill has none), gap %.3f, max gap %.3f, guarantee %s, session %d",
				i+1, r.Phase, gap, f.MaxGapSeconds, f.Guarantee, f.SessionTimeoutMs)
		}
	}
	l := recs[1].Failover.Ledger
	if l == nil || !l.Exact || l.Acked < 1000 || l.Counted != l.Acked || l.Duplicates != 0 || l.Lost != 0 || l.Accounts != 200 {
		t.Fatalf("ledger check %+v", l)
	}
	t.Logf("ledger: %d acknowledged transactions over %d accounts, all counted once", l.Acked, l.Accounts)
	assertGone(t, env, dir, recs[0].Topic)
}

// assertGone checks that the scenario removed its instances' directories
// and its topics.
func assertGone(t *testing.T, env *bench.Env, dir, input string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "failover-*"))
	if len(left) > 0 {
		t.Errorf("state left behind: %v", left)
	}
	adm := testAdmin(t, env)
	// A deleted topic leaves the brokers' metadata shortly after
	// DeleteTopics answers: what is still listed after 10 s was left behind.
	app := strings.TrimSuffix(input, "-transactions")
	var listed []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		topics, err := adm.ListTopics(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		listed = listed[:0]
		for _, name := range topics.Names() {
			if strings.HasPrefix(name, app) {
				listed = append(listed, name)
			}
		}
		if len(listed) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, name := range listed {
		t.Errorf("topic %s left behind", name)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
