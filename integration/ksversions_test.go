package integration

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// ksTestVersion is the non-default Kafka Streams version make test builds
// (the Makefile's KSTREAMS_TEST_VERSION, passed as
// RESTOREBENCH_KSTREAMS_TEST_VERSION): one, since each build costs a minute.
func ksTestVersion() string {
	if v := os.Getenv("RESTOREBENCH_KSTREAMS_TEST_VERSION"); v != "" {
		return v
	}
	return "4.0.2"
}

// TestRealKafkaStreamsOlderVersion runs the driver built against an older
// Kafka Streams (4.0.2: no org.apache.kafka.streams.CloseOptions, so the
// driver's close shim runs) on the real broker: a cold restore verifies and
// its record names the version the instance said it ran and the shim;
// its clean stop left the consumer group, as on 4.4 (a member that stayed
// would hold the next instance in REBALANCING for session.timeout.ms); and
// a warm restart after a SIGKILL verifies, saying how far the durable
// .checkpoint lagged what the store had restored.
func TestRealKafkaStreamsOlderVersion(t *testing.T) {
	t.Parallel()
	needDriver(t)
	version := ksTestVersion()
	if _, err := ksdriver.EnsureLib(context.Background(), version, t.Logf); err != nil {
		t.Fatalf("the driver for Kafka Streams %s: %v", version, err)
	}
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 20_000, 5_000, 20, 200, 2
	fill := ksFill(t, env, app, spec, "lz4")

	cold := ksCase("cold-"+version, 1)
	cold.KafkaStreamsVersion = version
	if err := cold.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec, err := env.RunCase(context.Background(), fill, app, ksStore, cold, dir)
	if err != nil {
		t.Fatal(err)
	}
	noJVMUnder(t, dir)
	checkRecords(t, rec)
	ks := rec.KafkaStreams
	if !rec.Verified || rec.Records != spec.Records || ks == nil || ks.Version != version || rec.Params.KafkaStreamsVersion != version {
		t.Fatalf("cold restore on %s: verified=%v records=%d params version %q, ran %+v (%s)", version, rec.Verified, rec.Records, rec.Params.KafkaStreamsVersion, ks, rec.Error)
	}
	if len(ks.Compat) != 1 || !strings.Contains(ks.Compat[0], "internal.leave.group.on.close=true") {
		t.Errorf("compat %q: want the close shim of a version before 4.2", ks.Compat)
	}
	assertGroupEmpty(t, env, app)
	warmAfterKill(t, env, fill, app, version)
}

// assertGroupEmpty fails unless app's consumer group has no member: the
// instance that stopped left it.
func assertGroupEmpty(t *testing.T, env *bench.Env, app string) {
	t.Helper()
	adm := testAdmin(t, env)
	groups, err := adm.DescribeGroups(context.Background(), app)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := groups[app]; ok && len(g.Members) > 0 {
		t.Fatalf("group %s still has %d member(s) after a clean stop (state %s): the instance did not leave", app, len(g.Members), g.State)
	}
}

// warmAfterKill runs a warm restart after a SIGKILL on version and checks
// that it verifies and says it followed a kill.
func warmAfterKill(t *testing.T, env *bench.Env, fill bench.FillOutcome, app, version string) {
	t.Helper()
	c := ksCase("warm-kill-"+version, 1)
	c.KafkaStreamsVersion, c.Scenario = version, config.ScenarioWarm
	c.Warm = &config.WarmSettings{Changed: []config.Count{{N: 2000}}, Stop: config.WarmStopKill}
	// The killed member stays in the group until its session times out:
	// the broker's minimum, so the restart waits 6 s, not 45.
	c.Streams = map[string]string{"session.timeout.ms": "6000", "heartbeat.interval.ms": "2000"}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recs, err := env.RunCaseAll(context.Background(), fill, app, ksStore, c, dir)
	if err != nil {
		t.Fatal(err)
	}
	noJVMUnder(t, dir)
	checkRecords(t, recs...)
	if len(recs) != 2 || recs[1].Warm == nil || recs[1].Warm.Step != runs.StepWarm {
		t.Fatalf("%d records, want the cold step and one warm step", len(recs))
	}
	w := recs[1]
	if !w.Verified || w.Warm.Stop != "kill" || w.KafkaStreams.Version != version || w.Records < 2000 || w.Records != 2000+w.Warm.Behind {
		t.Fatalf("warm restart after a kill: verified=%v stop=%q version %q records=%d behind=%d (%s)",
			w.Verified, w.Warm.Stop, w.KafkaStreams.Version, w.Records, w.Warm.Behind, w.Error)
	}
	t.Logf("Kafka Streams %s after a SIGKILL: restored %d records, %d of them again (behind the offsets at the kill), %d task(s) from the log start",
		version, w.Records, w.Warm.Behind, w.Warm.FallbackTasks)
}
