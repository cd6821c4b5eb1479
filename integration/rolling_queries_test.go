package integration

import (
	"context"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestRollingRestartQueries restarts both instances of a real Kafka
// Streams application (the kv topology over a filled changelog, 4
// partitions, persistent state, dynamic membership: a stopped instance's
// tasks move to the other and back, a write load) one at a time while lookups
// go to every live instance's API layer: the sequence verifies its stores
// against the fill plus the load, no answer is wrong, and each restart's
// row records its instance's keys' outage, with every one of those keys'
// lookups answered again before the end.
func TestRollingRestartQueries(t *testing.T) {
	t.Parallel()
	rec, err := runRollingQueries(t, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	q, rr := rec.Queries, rec.Rolling
	if !rec.Verified || q == nil || rr == nil || len(rr.Restarts) != 2 {
		t.Fatalf("verified %v (%s), queries %+v, rolling %+v", rec.Verified, rec.Verification.Problem, q, rr)
	}
	if q.Wrong != 0 || q.Lookups == 0 || q.Lookups != q.Answered+q.Refused || q.Before == nil || len(q.ByInstance) != 2 {
		t.Fatalf("queries: %d lookups, %d answered, %d refused, %d wrong (%v), by instance %v, before %+v",
			q.Lookups, q.Answered, q.Refused, q.Wrong, q.WrongReads, q.ByInstance, q.Before)
	}
	for _, row := range rr.Restarts {
		checkRestartReads(t, row)
	}
}

// runRollingQueries runs TestRollingRestartQueries' rolling restart, with
// its query load routed by partitioner (queries.partitioner, "" for the
// default), under the Kafka Streams properties streams (nil: the
// defaults, the classic group protocol), and returns its record.
func runRollingQueries(t *testing.T, streams map[string]string, partitioner string) (runs.Restore, error) {
	t.Helper()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 20_000, 5_000, 16, 100, 4
	fill := ksFill(t, env, app, spec, "lz4")
	c := ksCase("rolling-queries", 1)
	c.Scenario, c.JVMHeap, c.Streams = config.ScenarioRolling, 256<<20, streams
	c.Rolling = config.DefaultRolling()
	c.Rolling.Instances, c.Rolling.Rate, c.Rolling.Persistent = 2, 200, true
	c.Rolling.Down, c.Rolling.Settle, c.Rolling.Timeout = config.Duration(500*time.Millisecond), config.Duration(time.Second), config.Duration(2*time.Minute)
	c.Queries = &config.QueryLoad{Rate: 300, After: config.Duration(time.Second), Partitioner: partitioner}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, dir)
	noJVMUnder(t, dir)
	return rec, err
}

// checkRestartReads checks that a restart's row followed its instance's
// keys and that every one of them was answered again.
func checkRestartReads(t *testing.T, row runs.Restart) {
	t.Helper()
	m := row.Reads
	if m == nil || m.Outage == nil {
		t.Fatalf("restart of %s: no reads %+v", row.Instance, m)
	}
	o := m.Outage
	t.Logf("restart of %s (partitions %v): stop %.2fs, ready %.2fs; its keys: %d lookups, %d answered, %d refused (%d failed), longest unanswered %.2fs, first answer %s, served again %s, ready after %.2fs; all keys until ready: %d lookups, refused %.1f%%, by instance %v; p99 ms before/during/after %.2f/%.2f/%.2f",
		row.Instance, o.Partitions, row.Stop, row.Ready, o.Lookups, o.Answered, o.Refused, o.Failed, o.LongestUnansweredSeconds,
		secs(o.FirstAnsweredSeconds), secs(o.ServedAgainSeconds), o.TakenOverSeconds, m.Lookups, 100*m.RefusedShare(), m.ByInstance,
		m.Before.P99Ms, m.During.P99Ms, m.After.P99Ms)
	if len(o.Partitions) == 0 || o.Lookups == 0 || o.Answered == 0 || o.ServedAgainSeconds == nil || o.Lookups != o.Answered+o.Refused {
		t.Fatalf("restart of %s: its keys were not all answered again: %+v", row.Instance, o)
	}
	if m.Before.Count == 0 || m.After.Count == 0 || row.Ready < 0 || o.TakenOverSeconds <= 0 {
		t.Fatalf("restart of %s: before %d answers, after %d, ready %.2f, taken over %.2f", row.Instance, m.Before.Count, m.After.Count, row.Ready, o.TakenOverSeconds)
	}
}

// secs is "1.23s", or "never".
func secs(s *float64) string {
	if s == nil {
		return "never"
	}
	return time.Duration(*s * float64(time.Second)).Round(time.Millisecond).String()
}
