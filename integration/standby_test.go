package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRealKafkaStreamsStandbyFollowsAndCatchesUp runs the standby scenario
// on real Kafka Streams: an active instance restores the fill, a second
// instance's standbys restore it too, follow the changelog while the input
// is written at two rates, and catch up after being stopped for 3 s. Every
// step must verify the standby's own stores (stale-store queries) against
// the state the changelog holds, report lags, and leave no JVM behind.
func TestRealKafkaStreamsStandbyFollowsAndCatchesUp(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 40_000, 10_000, 50, 200, 4
	fill := ksFill(t, env, app, spec, "lz4")
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario = "standby", config.EngineKafkaStreams, config.ScenarioStandby
	c.Standby = config.DefaultStandby()
	c.Standby.Rates, c.Standby.Duration, c.Standby.FindMax = []float64{300, 1500}, config.Duration(4*time.Second), false
	c.Standby.Pauses, c.Standby.PauseRate, c.Standby.AcceptableRecoveryLag = []config.Duration{config.Duration(3 * time.Second)}, 1000, 500
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
	want := []string{"standby/initial", "standby/rate=300", "standby/rate=1500", "standby/pause=3s"}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		sb := r.Standby
		if r.Case != want[i] || !r.Verified || sb == nil || r.KafkaStreams == nil {
			t.Fatalf("record %d: %s verified=%v (%s %s), want %s verified", i, r.Case, r.Verified, r.Error, r.Verification.Problem, want[i])
		}
		t.Logf("%s: applied %d records (%.0f/s), written %.0f/s, lag p50 %d max %d, sustained %v, catch-up %.2fs",
			r.Case, r.Records, sb.AppliedRate, sb.WrittenRate, sb.LagP50, sb.LagMax, sb.Sustained, sb.CatchUpSeconds)
	}
	if recs[0].Records < 40_000 {
		t.Fatalf("the standby's first restore applied %d records, want the whole changelog (40000)", recs[0].Records)
	}
	for _, r := range recs[1:3] {
		if len(r.Standby.Lag) < 2 || r.Standby.WrittenRate <= 0 || r.Records == 0 {
			t.Fatalf("%s: %d lag points, written %.0f/s, %d applied", r.Case, len(r.Standby.Lag), r.Standby.WrittenRate, r.Records)
		}
	}
	pause := recs[3].Standby
	if !pause.Sustained || pause.CatchUpSeconds <= 0 || pause.PauseSeconds != 3 {
		t.Fatalf("pause step %+v", pause)
	}
	if got := recs[0].KafkaStreams.Properties["num.standby.replicas"]; got != "1" || !strings.HasPrefix(recs[0].KafkaStreams.Version, "4.") {
		t.Fatalf("num.standby.replicas %q, Kafka Streams %q", got, recs[0].KafkaStreams.Version)
	}
}
