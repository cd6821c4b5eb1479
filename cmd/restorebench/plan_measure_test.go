package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/runs"
)

// TestPlanMeasureAnswersFromTheTopicsOwnRestore: plan --from-topic
// --measure, with no --from run at all, restores the topic itself (here on
// the model engine, the embedded broker), saves the restores as a run and
// answers from them: the rate line rests on that run's restores, measured
// at the topic's own record size, with no shape warning and no NaN.
func TestPlanMeasureAnswersFromTheTopicsOwnRestore(t *testing.T) {
	data := t.TempDir()
	t.Chdir(t.TempDir()) // --measure saves its runs under ./results
	if _, err := rootOut(t, "--data-dir", data, "-q", "fill", "--records", "30000", "--keys", "5000", "--value-size", "8",
		"--partitions", "2", "--topic", "word-counts-changelog"); err != nil {
		t.Fatal(err)
	}
	out, err := rootOut(t, "--data-dir", data, "-q", "plan", "--from-topic", "word-counts-changelog", "--measure",
		"--measure-engines", "model", "--measure-repeats", "2", "--instances", "2", "--rto", "1m")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"Your changelog word-counts-changelog restored cold on the model engine (measured)",
		"median of 2 restores",
		"measured on changelogs of 6.0 records per live key, 24.0 B a record",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, bad := range []string{"NaN", "WARNING: the rate was measured at", "Inf"} {
		if strings.Contains(out, bad) {
			t.Errorf("plan --measure printed %q:\n%s", bad, out)
		}
	}
	runsDir, _ := filepath.Glob(filepath.Join("results", "*-measure", "results.json"))
	if len(runsDir) != 1 {
		t.Errorf("--measure saved %d runs under results/, want 1 (one engine)", len(runsDir))
	}
	// As a DSL count's store, of a topic restorebench did not fill (its
	// manifest gone): the store's kind is not a setting that keeps the
	// answers from resting on the topic's own restores.
	if err := os.RemoveAll(filepath.Join(data, "fills")); err != nil {
		t.Fatal(err)
	}
	// Beside a --from run, the measured run and it are two inputs, R1 and R2.
	out, err = rootOut(t, "--data-dir", data, "-q", "plan", "--from-topic", "word-counts-changelog", "--measure", "--from", runsDir[0],
		"--measure-store-kind", "timestamped-key-value", "--measure-engines", "model", "--measure-repeats", "1", "--instances", "2", "--rto", "1m")
	if err != nil || !strings.Contains(out, "Your changelog word-counts-changelog restored cold on the model engine (measured)") ||
		!strings.Contains(out, "R2 = "+runsDir[0]) {
		t.Fatalf("plan --measure of a timestamped store beside a --from run: %v\n%s", err, out)
	}
	// report takes the same flags: --measure restores the topic there too,
	// and the report answers from it.
	report := t.TempDir()
	if out, err := rootOut(t, "--data-dir", data, "-q", "report", runsDir[0], "--out", report, "--from-topic", "word-counts-changelog", "--measure",
		"--measure-store-kind", "timestamped-key-value", "--measure-engines", "model", "--measure-repeats", "1", "--instances", "2", "--rto", "1m"); err != nil {
		t.Fatalf("report --measure: %v\n%s", err, out)
	}
	measures, _ := filepath.Glob(filepath.Join("results", "*-measure*")) // a run id taken this second gets -2
	if len(measures) != 3 {
		t.Fatalf("after two plans and a report with --measure, results/ holds %d measuring runs, want 3: %v", len(measures), measures)
	}
	md, err := os.ReadFile(filepath.Join(report, "report.md"))
	if newest := filepath.Base(measures[2]); err != nil || !strings.Contains(string(md), newest) ||
		!strings.Contains(string(md), "restored cold on the model engine (measured)") {
		t.Fatalf("report --measure does not answer from its own restore of the topic, run %s (%v):\n%s", newest, err, md)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--measure", "--rto", "1m"}, "--measure: it restores the topic --from-topic names"},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-engines", "jvm"}, `--measure-engines: "jvm" is not an engine`},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-store-kind", "versioned-key-value"}, "--measure-store-kind \"versioned-key-value\""},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-repeats", "0"}, "--measure-repeats: 0 must be between 1"},
	} {
		_, err := rootOut(t, append([]string{"--data-dir", data, "-q"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestPlanMeasureSample: plan --from-topic --measure --sample 2 reads and
// restores two of the topic's partitions only (the largest and the
// smallest), each alone at its full size, saved as runs that say so; the
// per-task answer is that restore, decisive; the instance answer is
// composed from the tasks and, with no composition measured on this host,
// INCONCLUSIVE, saying why (the two partitions restored together, last,
// have no composition to check); the state is the sample's scaled to the
// topic.
func TestPlanMeasureSample(t *testing.T) {
	data := t.TempDir()
	t.Chdir(t.TempDir())
	if _, err := rootOut(t, "--data-dir", data, "-q", "fill", "--records", "40000", "--keys", "8000", "--value-size", "50",
		"--partitions", "6", "--topic", "sampled-changelog"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := cliNoChdir("--data-dir", data, "plan", "--from-topic", "sampled-changelog", "--measure", "--sample", "2",
		"--measure-engines", "model", "--measure-repeats", "2", "--instances", "1", "--rto", "10m", "--format", "json")
	out := stderr + stdout
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"sample of sampled-changelog (--sample 2): partitions", "of its 6",
		`"cold_restore_task"`, `"cold_restore_instance"`, "2 of 6 tasks restored at full size",
		"no composition measured for 1 thread", "scaled by the partitions' log segments",
		"of log segments a partition; each is read and restored whole, each alone and all together on one instance (how your tasks restore together), the others",
		"restored together (2 restores) did not check the composition: no composition series to check",
		"--measure: on model, restoring partition ", " together (", "), 2 times each: ",
		"restored an engine, no estimate of its time: no restore among the inputs (--from) to price it by"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	saved, _ := filepath.Glob(filepath.Join("results", "*-measure*", "results.json"))
	if len(saved) != 3 {
		t.Fatalf("--measure --sample 2 saved %d runs, want one per sampled partition and one of both together: %v", len(saved), saved)
	}
	byCount := map[int]int{}
	for _, p := range saved {
		res, err := runs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Restores {
			if !r.Verified {
				t.Errorf("%s: restore of %v not verified: %s", p, r.RestoredPartitions, r.Error)
			}
			byCount[len(r.RestoredPartitions)]++
		}
	}
	if byCount[1] != 4 || byCount[2] != 2 || len(byCount) != 2 {
		t.Errorf("restores by partitions restored: %v, want 2 repeats of each single partition and 2 of both together", byCount)
	}
}

// TestPlanMeasureSampleOnTwoAgents: plan --from-topic T --measure
// --sample 2 --agents a,b (two `restorebench agent`s in this process, on
// the embedded broker, signed with a control key) restores the two
// sampled partitions one on each agent at once: each saved run records
// the agent that restored it and that agent's host, each restore is
// verified, the two restores overlap in time, and the answer names the
// host (agent) each sampled task's figure came from.
func TestPlanMeasureSampleOnTwoAgents(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	brokers := strings.Join(cfg.Brokers, ",")
	keyFile := filepath.Join(t.TempDir(), "control.key")
	if err := agent.WriteKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		startCLIAgent(t, brokers, keyFile, name)
	}
	data := t.TempDir()
	t.Chdir(t.TempDir())
	if out, err := rootOut(t, "--brokers", brokers, "--data-dir", data, "-q", "fill", "--records", "240000", "--keys", "60000",
		"--value-size", "100", "--partitions", "3", "--topic", "agents-changelog"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	stdout, stderr, err := cliNoChdir("--brokers", brokers, "--data-dir", data, "plan", "--from-topic", "agents-changelog", "--measure",
		"--sample", "2", "--measure-engines", "model", "--measure-repeats", "1", "--agents", "a,b", "--control-key-file", keyFile,
		"--instances", "1", "--rto", "10m", "--format", "json")
	out := stderr + stdout
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	saved, _ := filepath.Glob(filepath.Join("results", "*-measure*", "results.json"))
	if len(saved) != 3 {
		t.Fatalf("--measure --sample 2 --agents a,b saved %d runs, want one per sampled partition and one of both together: %v\n%s",
			len(saved), saved, out)
	}
	var recs []runs.Restore
	agents, parts := map[string]bool{}, map[int32]bool{}
	together := 0
	for _, p := range saved {
		res, err := runs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Restores) == 1 && len(res.Restores[0].RestoredPartitions) == 2 {
			if r := res.Restores[0]; !r.Verified || r.OnAgent == nil {
				t.Errorf("%s: the restore of both partitions together: verified=%v on %+v (%s)", p, r.Verified, r.OnAgent, r.Error)
			}
			together++
			continue
		}
		if len(res.Restores) != 1 || len(res.Agents) != 1 || res.Agents[0].Facts.CPUs < 1 || res.Agents[0].Facts.Hostname == "" {
			t.Fatalf("%s: %d restores, agents %+v: want one restore and the agent it ran on, with its host's facts", p, len(res.Restores), res.Agents)
		}
		r := res.Restores[0]
		if !r.Verified || r.OnAgent == nil || r.OnAgent.Agent != res.Agents[0].Name || len(r.RestoredPartitions) != 1 {
			t.Fatalf("%s: verified=%v on %+v partitions %v (%s): want a verified restore of one partition on its agent",
				p, r.Verified, r.OnAgent, r.RestoredPartitions, r.Error)
		}
		agents[r.OnAgent.Agent], parts[r.RestoredPartitions[0]] = true, true
		recs = append(recs, r)
		if want := "agent " + r.OnAgent.Agent + " on " + res.Agents[0].Facts.Hostname; !strings.Contains(out, want) {
			t.Errorf("the answer does not name the host of partition %d's figure, %q:\n%s", r.RestoredPartitions[0], want, out)
		}
	}
	if together != 1 {
		t.Errorf("%d runs restored both sampled partitions together, want 1", together)
	}
	if !agents["a"] || !agents["b"] || len(parts) != 2 {
		t.Fatalf("the sampled partitions %v restored on agents %v, want one on a and one on b", parts, agents)
	}
	end := func(r runs.Restore) time.Time {
		secs, _ := r.RestoreSeconds()
		return r.StartedAt.Add(time.Duration(secs * float64(time.Second)))
	}
	a, b := recs[0], recs[1]
	if !a.StartedAt.Before(end(b)) || !b.StartedAt.Before(end(a)) {
		t.Errorf("the two restores did not overlap: %s–%s and %s–%s", a.StartedAt, end(a), b.StartedAt, end(b))
	}
	if !strings.Contains(out, "the sampled tasks restored on agent a on ") || !strings.Contains(out, "; agent b on ") {
		t.Errorf("the answer does not name both agents' hosts:\n%s", out)
	}
}

// startCLIAgent runs `restorebench agent --name name` in this process
// against brokers, signing with keyFile, until the test ends.
func startCLIAgent(t *testing.T, brokers, keyFile, name string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	state := t.TempDir()
	go func() {
		_, _, err := cliCtx(ctx, "-q", "--brokers", brokers, "--state-dir", state, "agent", "--name", name, "--control-key-file", keyFile)
		done <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// Before it restores, --measure says what and how long: each restore's
// partitions and size, and with inputs that have a cold-restore rate the
// time at that rate, with what the estimate leaves out.
func TestSayMeasurePlanEstimatesFromTheInputs(t *testing.T) {
	rs, err := capacity.LoadRuns([]string{"../../testdata/results/capacity"})
	if err != nil {
		t.Fatal(err)
	}
	f := &capacityFlags{measureEngines: []string{"kafka-streams"}, measureRepeats: 2, sampled: &samplePlan{Sample: capacity.Sample{
		Tasks: []capacity.TaskSize{{Partition: 0, Size: 300e6}, {Partition: 1, Size: 100e6}}, Sampled: []int32{0, 1}, SizeSource: cluster.SizeFromLogDirs}}}
	var b strings.Builder
	f.sayMeasurePlan(&b, [][]int32{{0}, {1}, {0, 1}}, rs, capacity.Options{})
	got := b.String()
	for _, want := range []string{"--measure: on kafka-streams, restoring partition 0 (300 MB), partition 1 (100 MB), partitions 0, 1 together (400 MB), " +
		"2 times each: 1.60 GB restored an engine, about ", " of restore an engine at the inputs' cold-restore rate (", "plus a process's start for each restore, one read of each partition restored"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}

// TestSayMeasureWritesNamesTheCopy: before a sampled --measure on
// kafka-streams starts, it says what it writes to the user's cluster (the
// copy, its size, its topic); on the model alone, nothing.
func TestSayMeasureWritesNamesTheCopy(t *testing.T) {
	sample := &samplePlan{Sample: capacity.Sample{Tasks: []capacity.TaskSize{{Partition: 0, Size: 300e6}, {Partition: 1, Size: 100e6}},
		Sampled: []int32{0, 1}, SizeSource: cluster.SizeFromLogDirs}}
	f := &capacityFlags{measureEngines: []string{"kafka-streams", "model"}, fromTopic: "orders-changelog", sampled: sample}
	var b strings.Builder
	f.sayMeasureWrites(&b, capacity.Options{})
	want := "--measure: on kafka-streams it writes to your cluster a copy of the sampled partitions (400 MB) in restorebench's topic " +
		"restorebench-sample-orders-changelog, from which Kafka Streams restores them, deleted when the restores end; nothing is written to your topic or group\n"
	if b.String() != want {
		t.Errorf("said %q, want %q", b.String(), want)
	}
	b.Reset()
	f.measureEngines = []string{"model"}
	f.sayMeasureWrites(&b, capacity.Options{})
	if b.String() != "" {
		t.Errorf("on the model alone it said %q, want nothing (the model reads your topic, writes nothing)", b.String())
	}
}
