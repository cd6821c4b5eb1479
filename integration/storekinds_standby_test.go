package integration

import (
	"context"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRealKafkaStreamsStandbyOfAWindowStore: a real Kafka Streams standby
// of a window store restores the fill, follows the changelog the active
// writes from the input (records under their record key, in windows by
// their event times, which continue the fill's), and catches up after a
// 3 s stop with its segments kept; every step verifies the standby's own
// store against the Go expected state of the changelog then, whose
// windows expire as the new records move stream time on.
func TestRealKafkaStreamsStandbyOfAWindowStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := kindWarmFill(loadgen.KindWindow)
	fill := ksFill(t, env, app, spec, "lz4")
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario, c.StoreKind = "standby", config.EngineKafkaStreams, config.ScenarioStandby, config.StoreWindow
	c.Retention = config.Duration(time.Duration(spec.RetentionMs) * time.Millisecond)
	c.Standby = config.DefaultStandby()
	c.Standby.Rates, c.Standby.Duration, c.Standby.FindMax = []float64{500}, config.Duration(4*time.Second), false
	c.Standby.Pauses, c.Standby.PauseRate, c.Standby.AcceptableRecoveryLag = []config.Duration{config.Duration(3 * time.Second)}, 500, 500
	c.JVMHeap = 256 << 20
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recs, err := env.RunCaseAll(context.Background(), fill, app, ksStore, c, dir)
	noJVMUnder(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	want := []string{"standby/initial", "standby/rate=500", "standby/pause=3s"}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if r.Case != want[i] || !r.Verified || r.Standby == nil {
			t.Fatalf("record %d: %s verified=%v (%s %s), want %s verified", i, r.Case, r.Verified, r.Error, r.Verification.Problem, want[i])
		}
		t.Logf("%s: applied %d records, %d windows served, catch-up %.2fs", r.Case, r.Records, served(r), r.Standby.CatchUpSeconds)
	}
	if recs[1].Records == 0 {
		t.Fatalf("the standby applied no records while the input was written")
	}
}
