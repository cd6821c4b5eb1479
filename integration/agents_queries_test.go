package integration

import (
	"context"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
)

// TestAgentsColdQueriesOnTheAgent runs a kafka-streams cold restore with a
// query load (stale reads) on an agent, a separate process: the lookups
// are sent from the agent's host to the instance's API layer there, and
// the record comes back to this side. The restore verifies, no answer is
// wrong, lookups were answered (from the instance on that agent), split
// at the restore's end, and the record names the agent.
func TestAgentsColdQueriesOnTheAgent(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 1)
	a := startAgent(t, names[0], "zone=a", t.TempDir())
	env := connect(t, bench.Options{Agents: names})
	app := ksApp(t, env)
	fill := agentsFill(t, env, app, 5_000)
	c := ksCase("cold-agent-queries", 1)
	c.Scenario = config.ScenarioCold
	c.Queries = &config.QueryLoad{Rate: 300, Stale: true, After: config.Duration(2 * time.Second)}
	c.JVMHeap = 256 << 20
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	q := rec.Queries
	if !rec.Verified || q == nil || rec.KafkaStreams.Placement["i0"] != names[0] {
		t.Fatalf("cold on agent: verified=%v placement=%v queries=%+v (%s)", rec.Verified, rec.KafkaStreams.Placement, q, rec.Error)
	}
	if q.Agent != names[0] || q.Wrong != 0 || q.Answered == 0 || q.Answered != q.Correct+q.StaleReads || q.ByInstance["i0"] != q.Answered {
		t.Fatalf("queries from agent %q (want %s): %+v", q.Agent, names[0], q)
	}
	if q.After.Count == 0 {
		t.Fatalf("no lookup counted after the restore, %.2fs in: %+v", q.RestoredSeconds, q)
	}
	t.Logf("queries on agent %s: %d lookups, %d refused, %d correct, %d stale, restored at %.2fs, during p50/p99 %.2f/%.2f ms (%d), after p50/p99 %.2f/%.2f ms (%d)",
		q.Agent, q.Lookups, q.Refused, q.Correct, q.StaleReads, q.RestoredSeconds, q.During.P50Ms, q.During.P99Ms, q.During.Count, q.After.P50Ms, q.After.P99Ms, q.After.Count)
	noJVMUnder(t, a.stateDir)
}

// TestAgentsWarmQueriesOnTheAgent runs the kafka-streams warm-restart
// sequence with a query load (stale reads) on an agent process: each
// restart's lookups come from that agent, against the instance it starts
// again there, and its record names the agent; every restart verifies and
// no answer is wrong.
func TestAgentsWarmQueriesOnTheAgent(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 1)
	a := startAgent(t, names[0], "zone=a", t.TempDir())
	env := connect(t, bench.Options{Agents: names})
	app := ksApp(t, env)
	fill := agentsFill(t, env, app, 5_000)
	c := ksCase("warm-agent-queries", 1)
	c.Scenario = config.ScenarioWarm
	c.Warm = &config.WarmSettings{Changed: []config.Count{{N: 3000}}}
	c.Queries = &config.QueryLoad{Rate: 300, Stale: true, After: config.Duration(time.Second)}
	c.JVMHeap = 256 << 20
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	recs, err := env.RunCaseAll(ctx, fill, app, ksStore, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	if len(recs) != 2 {
		t.Fatalf("%d records, want the cold step and one warm restart", len(recs))
	}
	for _, r := range recs {
		q := r.Queries
		if !r.Verified || q == nil || q.Agent != names[0] || q.Wrong != 0 || q.Answered == 0 || q.Answered != q.Correct+q.StaleReads {
			t.Fatalf("%s step: verified=%v (%s), queries %+v", r.Warm.Step, r.Verified, r.Error, q)
		}
		t.Logf("%s step on agent %s: %d records; %d lookups, %d refused, %d correct, %d stale, restored at %.2fs",
			r.Warm.Step, q.Agent, r.Records, q.Lookups, q.Refused, q.Correct, q.StaleReads, q.RestoredSeconds)
	}
	noJVMUnder(t, a.stateDir)
}
