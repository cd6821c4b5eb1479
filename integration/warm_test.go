package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestWarmRestartOnBothEngines runs the warm-restart sequence on the model
// and on a real Kafka Streams instance against the real broker: each
// restart reads only the records written while the instance was down and
// verifies; the last restart, whose stores' offsets lie below the log start,
// falls back to a restore from the log start on both: on top of the kept
// store under at_least_once, into a wiped one under exactly_once_v2 (the
// expected state differs accordingly, and both engines must match it).
func TestWarmRestartOnBothEngines(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	for _, v := range []struct {
		engine    config.Engine
		guarantee string
	}{{config.EngineModel, "at_least_once"}, {config.EngineKafkaStreams, "at_least_once"},
		{config.EngineModel, "exactly_once_v2"}, {config.EngineKafkaStreams, "exactly_once_v2"}} {
		engine := v.engine
		t.Run(string(engine)+"/"+v.guarantee, func(t *testing.T) {
			app := ksApp(t, env)
			spec := loadgen.DefaultSpec()
			spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 30_000, 5_000, 20, 200, 3
			fill := ksFill(t, env, app, spec, "lz4")
			c := config.DefaultCase()
			c.Name, c.Engine, c.Scenario = "warm", engine, config.ScenarioWarm
			c.Warm = &config.WarmSettings{Changed: []config.Count{{N: 0}, {N: 3000}}, Fallback: true}
			c.Streams = map[string]string{"processing.guarantee": v.guarantee}
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
			steps := []struct {
				step    runs.StepKind
				records int64
			}{{runs.StepCold, 30_000}, {runs.StepWarm, 0}, {runs.StepWarm, 3000}}
			if len(recs) != 4 {
				t.Fatalf("%d records, want 4", len(recs))
			}
			for i, s := range steps {
				r := recs[i]
				if !r.Verified || r.Warm.Step != s.step || r.Records != s.records {
					t.Fatalf("%s: record %d: verified=%v step=%s records=%d, want %s with %d (%s)", engine, i, r.Verified, r.Warm.Step, r.Records, s.step, s.records, r.Error)
				}
			}
			fb := recs[3]
			if !fb.Verified || fb.Warm.FallbackTasks == 0 || !strings.Contains(strings.Join(fb.Warm.Fallbacks, " "), "log start") {
				t.Fatalf("%s fallback: verified=%v %+v (%s)", engine, fb.Verified, fb.Warm, fb.Error)
			}
		})
	}
}
