package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// TestPlanMeasureKafkaStreamsSampleOnTwoAgents: plan --from-topic T
// --measure --sample 2 --measure-engines kafka-streams --agents a,b on the
// real broker, with T a topic restorebench did not fill: each sampled
// partition restores alone on the real Kafka Streams client on an agent of
// its own, at once (their restores overlap), then both together on one;
// each is verified against the independent read of its partitions, the
// answer names both agents' hosts, every copy topic restorebench made is
// gone, and the user's topic and group are as they were.
func TestPlanMeasureKafkaStreamsSampleOnTwoAgents(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := startAgents(t, names...)
	env := connect(t, bench.Options{})
	name := topic(t, env)
	group := name + "-users-app"
	sampleTopic(t, env, name, group)
	before := userSide(t, env, name, group)
	var copies []string
	for i := range 2 {
		copies = append(copies, copyName(t, env, config.DefaultAppID+"-agent-"+string(rune('1'+i)), name))
	}
	lib, err := ksdriver.FindLib()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	cmd := exec.Command(restorebenchBinary(t), "--brokers", strings.Join(env.Cluster.Brokers, ","), "--data-dir", t.TempDir(),
		"plan", "--from-topic", name, "--measure", "--sample", "2", "--measure-engines", "kafka-streams", "--measure-repeats", "1",
		"--agents", strings.Join(names, ","), "--control-key-file", controlKeyFile(t), "--instances", "1", "--rto", "10m")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "RESTOREBENCH_KSTREAMS_LIB="+lib)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	text := stderr.String() + string(out)
	if err != nil {
		t.Fatalf("plan --measure on two agents: %v\n%s", err, text)
	}
	saved, _ := filepath.Glob(filepath.Join(work, "results", "*-measure*", "results.json"))
	if len(saved) != 3 {
		t.Fatalf("saved %d runs, want one per sampled partition and one of both together: %v\n%s", len(saved), saved, text)
	}
	var singles []runs.Restore
	on := map[string]bool{}
	together := 0
	for _, p := range saved {
		res, err := runs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Restores {
			agent, _ := r.RestoredOn()
			if !r.Verified || agent == "" || runs.EngineOf(r.Params) != config.EngineKafkaStreams || r.SampleCopy == nil {
				t.Fatalf("%s: partitions %v verified=%v on agent %q engine %s copy %+v (%s): want a verified Kafka Streams restore "+
					"of restorebench's copy on an agent", p, r.RestoredPartitions, r.Verified, agent, runs.EngineOf(r.Params), r.SampleCopy, r.Error)
			}
			if len(r.RestoredPartitions) == 2 {
				together++
				continue
			}
			singles = append(singles, r)
			on[agent] = true
		}
	}
	if len(singles) != 2 || together != 1 || !on[names[0]] || !on[names[1]] {
		t.Fatalf("%d single restores on agents %v and %d together: want one sampled partition on each of %v, then both together once",
			len(singles), on, together, names)
	}
	end := func(r runs.Restore) time.Time {
		return r.StartedAt.Add(time.Duration(r.Phase.Seconds * float64(time.Second)))
	}
	a, b := singles[0], singles[1]
	if !a.StartedAt.Before(end(b)) || !b.StartedAt.Before(end(a)) {
		t.Errorf("the two sampled partitions' restores did not overlap: %s–%s and %s–%s", a.StartedAt, end(a), b.StartedAt, end(b))
	}
	for _, n := range names {
		if !strings.Contains(text, "agent "+n+" on ") {
			t.Errorf("the answer does not name agent %s's host:\n%s", n, text)
		}
	}
	// With no composition series among the inputs the instance answer is
	// inconclusive, and says the restore together had nothing to check.
	if !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool { return strings.Contains(l, "restored together (1 restore)") }) {
		t.Errorf("the instance answer does not name the sampled partitions' restore together:\n%s", text)
	}
	if after := userSide(t, env, name, group); after != before {
		t.Fatalf("the user's topic or group changed:\nbefore %s\nafter  %s", before, after)
	}
	for _, c := range copies {
		checkTopicGone(t, env, c)
	}
	for _, ag := range agents {
		noJVMUnder(t, ag.stateDir)
	}
}
