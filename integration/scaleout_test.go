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

// TestScaleOutEndsBalancedAndVerifies scales a real Kafka Streams
// application of 4 tasks from 1 to 2 instances under a write load, with the
// shortest probing interval Kafka Streams accepts (60 s): the newcomer
// warms its two tasks up, the probing rebalance moves them, and the
// scenario must end with 2 tasks on each instance, every task's store
// verified against what the changelog holds, warmups and a probing round
// seen, a prediction beside the measurement, and no JVM left. About 2
// minutes.
func TestScaleOutEndsBalancedAndVerifies(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 80_000, 20_000, 100, 300, 4
	fill := ksFill(t, env, app, spec, "lz4")
	c := ksCase("scaleout", 1)
	c.Scenario = config.ScenarioScaleOut
	c.ScaleOut = config.DefaultScaleOut()
	c.ScaleOut.Before, c.ScaleOut.After, c.ScaleOut.Rate = 1, 2, 300
	c.ScaleOut.Timeout, c.ScaleOut.Lead, c.ScaleOut.Settle = config.Duration(2*time.Minute), config.Duration(2*time.Second), config.Duration(3*time.Second)
	c.Streams = map[string]string{"probing.rebalance.interval.ms": "60000"}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	rec, err := env.RunCase(context.Background(), fill, app, ksStore, c, stateDir)
	noJVMUnder(t, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	so := rec.ScaleOut
	if !rec.Verified || so == nil || !so.Balanced {
		t.Fatalf("verified %v (%s), record %+v", rec.Verified, rec.Verification.Problem, so)
	}
	if ks := rec.KafkaStreams; ks == nil || !strings.HasPrefix(ks.Version, "4.") || ks.JavaVersion == "" {
		t.Fatalf("the record does not say which Kafka Streams and Java ran: %+v", ks)
	}
	perInstance := map[string]int{}
	for _, task := range so.TaskTimelines {
		perInstance[task.To]++
	}
	if len(perInstance) != 2 || perInstance["i0"] != 2 || perInstance["i1"] != 2 {
		t.Fatalf("final assignment %v, want 2 tasks on each of i0 and i1", perInstance)
	}
	if so.Moved != 2 || so.Warmups < 2 || so.ProbingRounds < 1 || so.WarmupAssignmentSeconds < 60 {
		t.Fatalf("moved %d warmups %d probing rounds %d in %.1fs: a classic scale-out warms up and waits for a probing rebalance",
			so.Moved, so.Warmups, so.ProbingRounds, so.WarmupAssignmentSeconds)
	}
	for _, task := range so.TaskTimelines {
		if task.From != task.To && (task.WarmupStart < 0 || task.Running < task.Moved || task.Moved < task.WarmupStart) {
			t.Fatalf("task %s timeline out of order: %+v", task.Task, task)
		}
	}
	if so.Load == nil || so.Load.Records == 0 || so.Prediction == nil || so.Prediction.Label == "" {
		t.Fatalf("load %+v prediction %+v", so.Load, so.Prediction)
	}
	t.Logf("warmup-assignment %.1fs (model %.1fs, %+.1f%%), %d probing rounds, longest not processing %.1fs",
		so.WarmupAssignmentSeconds, so.Prediction.TotalSeconds, so.PredictionErrorPct, so.ProbingRounds, so.MaxNotProcessingSeconds)
}
