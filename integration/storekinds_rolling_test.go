package integration

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRollingRestartOfAWindowStore restarts both instances of a real
// Kafka Streams application over a window store's fill one at a time
// (persistent state, dynamic membership: a stopped instance's tasks move
// to the other and back) under a write load continuing the fill's
// generator: every restart gets ready again, and the stores, digested as
// window stores, equal the expected state of the fill plus the load's
// records, the windows the new event times expired left out, although
// each restarted instance reopened its kept segments with no stream time.
func TestRollingRestartOfAWindowStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := kindWarmFill(loadgen.KindWindow)
	fill := ksFill(t, env, app, spec, "lz4")
	c := ksCase("rolling-window", 1)
	c.Scenario, c.JVMHeap, c.StoreKind = config.ScenarioRolling, 256<<20, config.StoreWindow
	c.Retention = config.Duration(time.Duration(spec.RetentionMs) * time.Millisecond)
	c.Rolling = config.DefaultRolling()
	c.Rolling.Instances, c.Rolling.Rate, c.Rolling.Persistent = 2, 300, true
	c.Rolling.Down, c.Rolling.Settle, c.Rolling.Timeout = config.Duration(500*time.Millisecond), config.Duration(time.Second), config.Duration(2*time.Minute)
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	recs, took := runKSCase(t, env, fill, app, c, 3*time.Minute)
	if len(recs) != 1 {
		t.Fatalf("%d records, want the rolling restart's one", len(recs))
	}
	rec := recs[0]
	checkRecords(t, rec)
	rr := rec.Rolling
	if !rec.Verified || rr == nil || len(rr.Restarts) != 2 || rr.Load == nil || rr.Load.Records == 0 || served(rec) == 0 {
		t.Fatalf("verified %v (%s %s), rolling %+v", rec.Verified, rec.Error, rec.Verification.Problem, rr)
	}
	for _, row := range rr.Restarts {
		if row.Ready < 0 || row.Start < row.Stop {
			t.Fatalf("restart of %s: stop %.2fs, start %.2fs, ready %.2fs", row.Instance, row.Stop, row.Start, row.Ready)
		}
		t.Logf("restart of %s: stop %.2fs, ready %.2fs, downtime %.2fs", row.Instance, row.Stop, row.Ready, row.DowntimeSeconds)
	}
	t.Logf("window rolling restart: %d records written, %d windows served, verified, in %s", rr.Load.Records, served(rec), took.Round(time.Millisecond))
}
