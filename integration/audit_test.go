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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
)

// auditUpdates is the word count's changelog updates in the audit test:
// enough state that a restore is seen, little enough for a 3-minute test.
const auditUpdates = 100_000

// auditPartitions is the input's partitions: 3 stateless tasks (0_p) and
// 3 stateful ones (1_p, the count) over 3 instances.
const auditPartitions = 3

// TestAuditThreeInstances: the word count runs as 3 instances (3 JVMs,
// their own state dirs, one application.id, num.standby.replicas=1, the
// first with two stream threads; session.timeout.ms 10 s and
// heartbeat.interval.ms 1 s: a restarted JVM is back within the session
// even on make test's loaded 2 cores) on the real broker; once they run with a
// stable assignment, `restorebench audit` names every instance's active
// and standby tasks exactly as the instances themselves report them
// (KafkaStreams#metadataForLocalThreads), and changes nothing of the
// application: its group's committed offsets, its topics' partitions and
// offsets and their configs are the same before and after. Then the
// instance audit names most costly is killed, and the time until its
// tasks run elsewhere (from the survivors' own lines) lies inside audit's
// interval and within 25 % of its prediction; then one survivor restarts
// on its state dir, timed the same way against audit's restart answer.
func TestAuditThreeInstances(t *testing.T) { auditThreeInstances(t, false) }

// TestAuditThreeInstancesStreamsProtocol: the same on the streams group
// protocol (KIP-1071), where the group's own configuration, set here as
// an operator would before the application starts, holds the session
// timeout, heartbeat interval and standbys (streams.session.timeout.ms
// 10 s, streams.heartbeat.interval.ms 1 s, streams.num.standby.replicas
// 1), and audit reads it with DescribeConfigs; it also names the
// changelog's subtopology from the group's topology and says the lags
// cannot be seen. (Without standbys a restart here measured 4.05 s against
// audit's 0.79 s, 0.41-2.37 s, before audit counted the survivors'
// heartbeat: three restores on one survivor's thread ran 6x slower than
// the shape sweep's rate on the loaded machine; see docs/your-application.md.)
func TestAuditThreeInstancesStreamsProtocol(t *testing.T) { auditThreeInstances(t, true) }

func auditThreeInstances(t *testing.T, streamsProtocol bool) {
	t.Parallel()
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
	want := writeInput(t, env, adm, input, auditPartitions, func(cl *kgo.Client) int64 { return produceLines(t, cl, input, auditUpdates) })
	// On the streams protocol the group, not the client, holds these.
	protocol, standbys := []string{}, 1
	if streamsProtocol {
		protocol = []string{"-Dstreams.group.protocol=streams"}
		setGroupConfig(t, env, app, map[string]string{"streams.session.timeout.ms": "10000",
			"streams.heartbeat.interval.ms": "1000", "streams.num.standby.replicas": strconv.Itoa(standbys)})
	}

	// One standby of each stateful task; no repartition-topic purge while
	// the test compares the topics' log start offsets (the application's own
	// deleteRecords would change them, not audit).
	flags := append(fleet.JVMFlags(ksCase("app", 1)), "-Dstreams.num.standby.replicas="+strconv.Itoa(standbys), "-Dstreams.heartbeat.interval.ms=1000",
		"-Dstreams.session.timeout.ms=10000",
		"-Dstreams.repartition.purge.interval.ms=3600000")
	flags = append(flags, protocol...)
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
	// The applications' own settings, as their properties file says them.
	if err := os.WriteFile(streamsConfig, []byte("session.timeout.ms=10000\nheartbeat.interval.ms=1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join("..", "testdata", "results", "shapes")
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
		tasks = awaitStableTasks(t, procs, standbys, 5*time.Second, 90*time.Second)
		// The application's own commits (every 30 s) would change its
		// group's offsets while audit reads: wait until it has committed
		// all it consumed.
		awaitCommitted(t, env, app, input, app+"-word-counts-repartition")
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
	if streamsProtocol && (rep.DetectionAssumed || rep.DetectionSeconds != 10 || rep.HeartbeatAssumed || rep.HeartbeatSeconds != 1) {
		t.Errorf("audit took detection %v s (assumed %v), heartbeat %v s (assumed %v); the group's configuration says 10 s and 1 s",
			rep.DetectionSeconds, rep.DetectionAssumed, rep.HeartbeatSeconds, rep.HeartbeatAssumed)
	}
	if streamsProtocol && (!strings.Contains(string(text), "cannot be seen") || len(rep.Changelogs) != 1 || !strings.Contains(rep.Changelogs[0].MappingNote, "topology")) {
		t.Errorf("on the streams protocol audit does not say the lags cannot be seen, or did not take the subtopology from the topology (%+v)",
			rep.Changelogs)
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
	survivors := killMostCostly(t, &rep, procs, string(text))
	// A rolling deploy with persistent volumes: one survivor restarts on
	// its state dir.
	start := func(flags []string, stateDir string) *userAppProc {
		return startUserApp(t, lib, flags, class, env.Cluster.Brokers, app, stateDir, input)
	}
	awaitStableTasks(t, survivors, -1, 3*time.Second, time.Minute)
	restartOne(t, survivors, start, runAudit)
	t.Logf("test wall time %s", time.Since(started).Round(time.Second))
}

// setGroupConfig sets the group's own configuration, as the operator of
// an application on the streams protocol does (IncrementalAlterConfigs on
// the group; the group need not exist yet).
func setGroupConfig(t *testing.T, env *bench.Env, group string, set map[string]string) {
	t.Helper()
	cl, err := cluster.NewClient(env.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	for k, v := range set {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value, c.Op = k, kmsg.StringPtr(v), kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			t.Fatalf("setting %v on group %s: %v %s", set, group, err, msg)
		}
	}
}

// killMostCostly kills the instance rep names most costly, measures the
// time until the others run all of its active tasks (their own tasks
// lines: RUNNING, the tasks active), and asserts that it lies inside
// audit's interval and within 25 % of its prediction. It returns the
// survivors.
func killMostCostly(t *testing.T, rep *audit.Report, procs []*userAppProc, text string) []*userAppProc {
	t.Helper()
	if rep.MostCostly == "" {
		t.Fatalf("audit named no most costly instance:\n%s", text)
	}
	byConsumer := map[string]*audit.Instance{}
	var victimIn *audit.Instance
	for _, in := range rep.Instances {
		for _, id := range in.ClientIDs {
			byConsumer[id] = in
		}
		if in.ProcessID == rep.MostCostly {
			victimIn = in
		}
	}
	var victim *userAppProc
	for i, p := range procs {
		if own := lastTasks(p); own != nil && victimIn != nil && byConsumer[strings.Split(own.consumers, ",")[0]] == victimIn {
			victim = procs[i]
		}
	}
	if victim == nil || victimIn == nil {
		t.Fatalf("no process is the most costly instance %s", rep.MostCostly)
	}
	f := victimIn.IfItFails
	if f.Total == nil {
		t.Fatalf("audit gave no time for the most costly instance (%s):\n%s", f.Note, text)
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
	measured := awaitTasksRunning(t, survivors, victimIn.Active, killed)
	t.Logf("after the kill, on the survivors: %s", recoveryBreakdown(survivors, killed))
	t.Logf("killed %s (active %v; restored %v: %d records, %.0f bytes on the largest thread; taken over warm %v): "+
		"its tasks ran on the survivors %.2f s later; audit predicted %.2f s (%.2f-%.2f s: detection %.2f s (%.2f-%.2f s), handover %.2f s, restore %.2f s)",
		victimIn.ProcessID, victimIn.Active, f.Restored, f.RestoreRecords, f.ThreadBytes, f.TakenOverWarm, measured,
		f.Total.Value, f.Total.Lo, f.Total.Hi, f.Detection.Value, f.Detection.Lo, f.Detection.Hi,
		rep.Handover.Value, f.Restore.Value)
	checkPrediction(t, "the recovery", measured, f, 0)
	return survivors
}

// awaitTasksRunning waits, up to 2 minutes, until every one of tasks
// runs on one of procs, and returns the seconds from since.
func awaitTasksRunning(t *testing.T, procs []*userAppProc, tasks []string, since time.Time) float64 {
	t.Helper()
	deadline := since.Add(2 * time.Minute)
	for {
		if at, ok := tasksRunning(procs, tasks); ok {
			return at.Sub(since).Seconds()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v did not run again within 2 minutes", tasks)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkPrediction asserts that measured lies inside f's interval and, when
// it is at least relativeFrom seconds, within 25 % of f's figure.
func checkPrediction(t *testing.T, what string, measured float64, f *audit.Failure, relativeFrom float64) {
	t.Helper()
	if measured < f.Total.Lo || measured > f.Total.Hi {
		t.Errorf("%s took %.2f s, outside audit's interval %.2f-%.2f s", what, measured, f.Total.Lo, f.Total.Hi)
	}
	if r := f.Total.Value / measured; (r < 0.75 || r > 1.25) && measured >= relativeFrom {
		t.Errorf("audit predicted %.2f s for %s, %.2f× the %.2f s measured (want within 25 %%)", f.Total.Value, what, r, measured)
	}
}

// restartOne audits the instances, stops the one of survivors with the
// most active tasks (SIGTERM: Kafka Streams closes cleanly), starts it
// again on its state dir with start, and measures from the
// SIGTERM until its active tasks run again (on it or elsewhere); the
// measured time lies inside audit's interval for the restart and, from
// 3 s up, within 25 % of its figure. It returns the instances now
// running.
func restartOne(t *testing.T, procs []*userAppProc, start func(flags []string, stateDir string) *userAppProc,
	runAudit func(format string) []byte) []*userAppProc {
	t.Helper()
	var rep audit.Report
	if err := json.Unmarshal(runAudit("json"), &rep); err != nil {
		t.Fatal(err)
	}
	i := 0
	for j, p := range procs {
		if len(lastTasks(p).active) > len(lastTasks(procs[i]).active) {
			i = j
		}
	}
	p := procs[i]
	own := lastTasks(p)
	var in *audit.Instance
	for _, x := range rep.Instances {
		if slices.Contains(x.ClientIDs, strings.Split(own.consumers, ",")[0]) {
			in = x
		}
	}
	if in == nil {
		t.Fatalf("audit has no instance with consumers %s", own.consumers)
	}
	f := in.IfRestartedWithState
	if f == nil || f.Total == nil {
		t.Fatalf("audit gave no time for a restart of %s: %+v", in.ProcessID, f)
	}
	stopped := time.Now()
	p.stop(t)
	again := start(p.flags, p.stateDir)
	now := append(slices.Clone(procs[:i]), again)
	now = append(now, procs[i+1:]...)
	measured := awaitTasksRunning(t, now, own.active, stopped)
	t.Logf("restarted %s on its state dir (active %v standby %v): its tasks ran again %.2f s after its SIGTERM (on it %v); audit predicted %.2f s "+
		"(%.2f-%.2f s: wait %.2f s, restore %.2f s of %v; %s); %s",
		in.ProcessID, own.active, own.standby, measured, onIt(again), f.Total.Value, f.Total.Lo, f.Total.Hi,
		f.Detection.Value, f.Restore.Value, f.Restored, f.Note, recoveryBreakdown(now, stopped))
	// Within 25 % where that is more than the 0.75 s a tasks line's
	// 250 ms polling and a JVM's pauses move a figure of a second or two
	// (a streams-protocol member leaves at once).
	checkPrediction(t, "the restart", measured, f, 3)
	// The restarted instance runs before anything else happens.
	awaitStableTasks(t, now, -1, time.Second, 2*time.Minute)
	return now
}

// onIt is the process's active tasks as its last tasks line says, none
// before its first.
func onIt(p *userAppProc) []string {
	if o := lastTasks(p); o != nil {
		return o.active
	}
	return []string{}
}

// tasksRunning is when every one of tasks last became active on an
// instance that is RUNNING (the latest of those instances' tasks lines),
// false while one is not: an instance rebalancing for a follow-up that
// does not concern the tasks does not count.
func tasksRunning(procs []*userAppProc, tasks []string) (time.Time, bool) {
	var at int64
	for _, tk := range tasks {
		found := false
		for _, p := range procs {
			if o := lastTasks(p); o != nil && o.state == "RUNNING" && slices.Contains(o.active, tk) {
				at, found = max(at, o.epochMs), true
				break
			}
		}
		if !found {
			return time.Time{}, false
		}
	}
	return time.UnixMilli(at), true
}

// awaitCommitted waits until group has committed the end offset of every
// partition of topics.
func awaitCommitted(t *testing.T, env *bench.Env, group string, topics ...string) {
	t.Helper()
	ctx := context.Background()
	adm := testAdmin(t, env)
	deadline := time.Now().Add(90 * time.Second)
	for {
		ends, err := adm.ListEndOffsets(ctx, topics...)
		if err != nil {
			t.Fatal(err)
		}
		held, err := adm.FetchOffsets(ctx, group)
		done := err == nil
		ends.Each(func(e kadm.ListedOffset) {
			o, ok := held.Lookup(e.Topic, e.Partition)
			done = done && ok && o.At == e.Offset
		})
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s did not commit the ends of %v within 90 s", group, topics)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// recoveryBreakdown is when, after killed, the survivors first left
// RUNNING (they heard of the rebalance) and what they restored: the
// measured terms beside audit's detection, handover and restore.
func recoveryBreakdown(survivors []*userAppProc, killed time.Time) string {
	since := func(l appLine) float64 {
		var ms int64
		fmt.Sscan(l.fields["epoch_ms"], &ms)
		return time.UnixMilli(ms).Sub(killed).Seconds()
	}
	rebalance := -1.0
	var restores []string
	for _, p := range survivors {
		starts := map[string]float64{}
		for _, l := range p.snapshot() {
			if since(l) < 0 {
				continue
			}
			key := l.fields["topic"] + "-" + l.fields["partition"]
			switch l.event {
			case "state":
				if l.fields["from"] == "RUNNING" && (rebalance < 0 || since(l) < rebalance) {
					rebalance = since(l)
				}
			case "restore-start":
				starts[key] = since(l)
			case "restore-end":
				if s, ok := starts[key]; ok {
					restores = append(restores, fmt.Sprintf("partition %s: %s records in %.2f s (%.2f-%.2f s after the kill)",
						l.fields["partition"], l.fields["restored"], since(l)-s, s, since(l)))
				}
			}
		}
	}
	if len(restores) == 0 {
		restores = []string{"none"}
	}
	return fmt.Sprintf("rebalancing %.2f s after the kill; restores: %s", rebalance, strings.Join(restores, "; "))
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
// every task active once and every stateful task (1_p) has standbys
// standbys (any number when negative: KIP-441's warm-up tasks, which
// Kafka Streams reports as standbys, stay until the probing rebalance
// 10 minutes on), and nothing changed for stable.
func awaitStableTasks(t *testing.T, procs []*userAppProc, standbys int, stable, limit time.Duration) map[string]instanceTasks {
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
				complete = complete && active[tk] == 1 && (standbys < 0 || standby[tk] == standbys)
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
