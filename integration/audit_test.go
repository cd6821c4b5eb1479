package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/scenario"
)

// auditUpdates is the word count's changelog updates in the audit test:
// enough state that a restore is seen, little enough for a 3-minute test.
const auditUpdates = 200_000

// auditPartitions is the input's partitions: 3 stateless tasks (0_p) and
// 3 stateful ones (1_p, the count) over 3 instances.
const auditPartitions = 3

// TestAuditThreeInstances: the word count runs as 3 instances (3 JVMs,
// their own state dirs, one application.id, num.standby.replicas=1, the
// first with two stream threads) on the real broker; once they run with a stable assignment, `restorebench
// audit` names every instance's active and standby tasks exactly as the
// instances themselves report them (KafkaStreams#metadataForLocalThreads),
// and changes nothing of the application: its group's committed offsets,
// its topics' partitions and offsets and their configs are the same
// before and after. Then the instance audit names most costly is killed
// and the time until its tasks run elsewhere is measured from the
// survivors' own lines and logged beside audit's prediction.
func TestAuditThreeInstances(t *testing.T) {
	needDriver(t)
	started := time.Now()
	ctx := context.Background()
	lib, err := ksdriver.EnsureLib(ctx, ksdriver.DefaultKafkaStreamsVersion, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	bin := restorebenchBinary(t)
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	app := testkafka.TopicName(t)
	input := app + "-input"
	changelog := config.ChangelogTopic(app, "word-counts")
	t.Cleanup(func() { deleteUserApp(env, app, app+"-rb") })
	if _, err := adm.CreateTopic(ctx, auditPartitions, -1, nil, input); err != nil {
		t.Fatal(err)
	}
	if err := cluster.AwaitTopic(ctx, adm, input, auditPartitions); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.DefaultProduceTopic(input), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	want := produceLines(t, cl, input, auditUpdates)
	cl.Close()

	// One standby of each stateful task; no repartition-topic purge while
	// the test compares the topics' log start offsets (the application's
	// own deleteRecords would change them, not audit).
	flags := append(scenario.JVMFlags(ksCase("app", 1)), "-Dstreams.num.standby.replicas=1",
		"-Dstreams.repartition.purge.interval.ms=3600000")
	const class = "restorebench.apps.WordCount"
	var procs []*userAppProc
	for i := range 3 {
		f := flags
		if i == 0 {
			// Two stream threads: two group members of one process, which
			// audit must count as one instance.
			f = append(slices.Clone(flags), "-Dstreams.num.stream.threads=2")
		}
		procs = append(procs, startUserApp(t, lib, f, class, env.Cluster.Brokers, app, t.TempDir(), input))
	}
	got := awaitChangelog(t, env, changelog, want, 2*time.Minute, procs[0])
	t.Logf("3 instances processed the input into %d changelog records in %s", got, time.Since(started).Round(time.Second))

	streamsConfig := filepath.Join(t.TempDir(), "streams.properties")
	// The applications' own session timeout (restorebench.apps.AppRunner).
	if err := os.WriteFile(streamsConfig, []byte("session.timeout.ms=6000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join("..", "testdata", "results", "capacity")
	runAudit := func(format string) []byte {
		cmd := exec.Command(bin, "--brokers", strings.Join(env.Cluster.Brokers, ","), "--quiet", "audit", "--application-id", app,
			"--from", from, "--streams-config", streamsConfig, "--format", format)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("audit: %v\n%s%s", err, out, stderr.String())
		}
		return out
	}

	var (
		rep    audit.Report
		tasks  map[string]instanceTasks
		before string
	)
	for attempt := 1; ; attempt++ {
		tasks = awaitStableTasks(t, procs, 5*time.Second, 90*time.Second)
		before = userAppState(t, env, app, input)
		auditStart := time.Now()
		out := runAudit("json")
		t.Logf("audit took %s", time.Since(auditStart).Round(time.Millisecond))
		if after := userAppState(t, env, app, input); after != before {
			t.Fatalf("audit changed the application's group offsets, topics or configs:\nbefore %s\nafter  %s", before, after)
		}
		rep = audit.Report{}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("audit --format json: %v\n%s", err, out)
		}
		if now := currentTasks(procs); equalTasks(now, tasks) {
			break
		} else if attempt == 3 {
			t.Fatalf("the assignment kept changing around audit: %v then %v", tasks, now)
		}
		t.Logf("the assignment changed while audit ran; again")
	}
	text := runAudit("text")
	t.Logf("audit:\n%s", text)

	// Every instance, as it reports itself, is one instance of audit's
	// with the same tasks.
	if len(rep.Instances) != 3 || len(rep.Group.Members) != 4 {
		t.Fatalf("audit found %d instances of %d members, want 3 of 4 (one process runs two threads):\n%s", len(rep.Instances), len(rep.Group.Members), text)
	}
	byConsumer := map[string]*audit.Instance{}
	for _, in := range rep.Instances {
		for _, id := range in.ClientIDs {
			byConsumer[id] = in
		}
	}
	for consumers, own := range tasks {
		in := byConsumer[strings.Split(consumers, ",")[0]]
		if in == nil {
			t.Fatalf("no instance of audit's has consumer %s:\n%s", consumers, text)
		}
		if ids := strings.Join(in.ClientIDs, ","); ids != consumers || in.Threads != len(in.ClientIDs) {
			t.Errorf("instance %s: audit says consumers %s (%d threads), the instance says %s", in.ProcessID, ids, in.Threads, consumers)
		}
		if !slices.Equal(in.Active, own.active) || !slices.Equal(in.Standby, own.standby) {
			t.Errorf("instance %s (%s): audit says active %v standby %v, the instance says active %v standby %v",
				in.ProcessID, consumers, in.Active, in.Standby, own.active, own.standby)
		}
	}
	if len(rep.Changelogs) != 1 || rep.Changelogs[0].Topic != changelog || rep.Changelogs[0].Records != got ||
		rep.Changelogs[0].Subtopology == nil || *rep.Changelogs[0].Subtopology != 1 {
		t.Errorf("changelogs %+v: want %s of %d records, written by subtopology 1", rep.Changelogs, changelog, got)
	}
	if rep.MostCostly == "" {
		t.Fatalf("audit named no most costly instance:\n%s", text)
	}
	if time.Since(started) > 2*time.Minute+30*time.Second {
		t.Logf("no kill: the test has run %s already", time.Since(started).Round(time.Second))
		return
	}

	// Kill the most costly and measure until the survivors run its tasks.
	var victim *userAppProc
	var victimIn *audit.Instance
	for _, in := range rep.Instances {
		if in.ProcessID == rep.MostCostly {
			victimIn = in
		}
	}
	for i, p := range procs {
		if own := lastTasks(p); own != nil && byConsumer[strings.Split(own.consumers, ",")[0]] == victimIn {
			victim = procs[i]
		}
	}
	if victim == nil || victimIn == nil {
		t.Fatalf("no process is the most costly instance %s", rep.MostCostly)
	}
	killed := time.Now()
	syscall.Kill(-victim.cmd.Process.Pid, syscall.SIGKILL)
	<-victim.done
	var survivors []*userAppProc
	for _, p := range procs {
		if p != victim {
			survivors = append(survivors, p)
		}
	}
	deadline := killed.Add(time.Minute)
	for {
		held := map[string]bool{}
		var lastMs int64
		running := true
		for _, p := range survivors {
			own := lastTasks(p)
			if own == nil || own.state != "RUNNING" {
				running = false
				continue
			}
			for _, tk := range own.active {
				held[tk] = true
			}
			lastMs = max(lastMs, own.epochMs)
		}
		if running && !slices.ContainsFunc(victimIn.Active, func(tk string) bool { return !held[tk] }) {
			measured := time.UnixMilli(lastMs).Sub(killed).Seconds()
			f := victimIn.IfItFails
			predicted := "no time (no rate)"
			if f.TotalSeconds != nil {
				predicted = fmt.Sprintf("%.1f s (%.1f-%.1f s: %.0f s detection + restore of %.0f bytes on the largest thread)",
					*f.TotalSeconds, *f.TotalSecondsLo, *f.TotalSecondsHi, rep.DetectionSeconds, f.ThreadBytes)
			}
			t.Logf("killed %s (active %v): its tasks ran on the survivors %.1f s later; audit predicted %s; test wall time %s",
				victimIn.ProcessID, victimIn.Active, measured, predicted, time.Since(started).Round(time.Second))
			return
		}
		if time.Now().After(deadline) {
			t.Logf("the survivors did not run all of %v within a minute of the kill (not asserted in this version)", victimIn.Active)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// instanceTasks is one tasks line of restorebench.apps.TaskLines.
type instanceTasks struct {
	state, consumers string
	active, standby  []string
	epochMs          int64
}

func splitTasks(s string) []string {
	if s == "-" || s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// lastTasks is the process's last tasks line, nil before the first.
func lastTasks(p *userAppProc) *instanceTasks {
	lines := p.snapshot()
	for i := len(lines) - 1; i >= 0; i-- {
		if l := lines[i]; l.event == "tasks" {
			var ms int64
			fmt.Sscan(l.fields["epoch_ms"], &ms)
			return &instanceTasks{state: l.fields["state"], consumers: l.fields["consumers"],
				active: splitTasks(l.fields["active"]), standby: splitTasks(l.fields["standby"]), epochMs: ms}
		}
	}
	return nil
}

// currentTasks is every process's last tasks line by its consumers, when
// all are RUNNING; nil otherwise.
func currentTasks(procs []*userAppProc) map[string]instanceTasks {
	out := map[string]instanceTasks{}
	for _, p := range procs {
		own := lastTasks(p)
		if own == nil || own.state != "RUNNING" {
			return nil
		}
		out[own.consumers] = *own
	}
	return out
}

func equalTasks(a, b map[string]instanceTasks) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || !slices.Equal(x.active, y.active) || !slices.Equal(x.standby, y.standby) {
			return false
		}
	}
	return true
}

// awaitStableTasks waits until every instance runs, the instances hold
// every task active once and every stateful task (1_p) has a standby, and
// nothing changed for stable.
func awaitStableTasks(t *testing.T, procs []*userAppProc, stable, limit time.Duration) map[string]instanceTasks {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last map[string]instanceTasks
	since := time.Now()
	for {
		for _, p := range procs {
			if p.exited() {
				t.Fatalf("an instance exited: %s", p.tail())
			}
		}
		now := currentTasks(procs)
		complete := now != nil
		if complete {
			active, standby := map[string]int{}, map[string]int{}
			for _, in := range now {
				for _, tk := range in.active {
					active[tk]++
				}
				for _, tk := range in.standby {
					standby[tk]++
				}
			}
			complete = len(active) == 2*auditPartitions
			for p := range auditPartitions {
				tk := fmt.Sprintf("1_%d", p)
				complete = complete && active[tk] == 1 && standby[tk] >= 1
			}
		}
		if !equalTasks(now, last) {
			last, since = now, time.Now()
		} else if complete && time.Since(since) >= stable {
			return now
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stable, complete assignment within %s; last %v", limit, now)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
