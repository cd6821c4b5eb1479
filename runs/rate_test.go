package runs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/warmup"
)

// TestRestoreRateOfThreadsBeyondPartitions: eight stream threads on a
// four-partition changelog restore with four, so the per-thread rate the
// warmup model gets is the restore's rate over four, as the planner's
// (capacity.ChooseRate) is, not over eight.
func TestRestoreRateOfThreadsBeyondPartitions(t *testing.T) {
	c := config.DefaultCase()
	c.Name, c.Engine, c.Threads = "threads-8", config.EngineKafkaStreams, 8
	res := &Results{Restores: []Restore{{Case: c.Name, Repeat: 1, Params: c, Partitions: 4, Verified: true,
		Records: 400_000, Bytes: 200e6, Phase: &RestorePhase{Seconds: 10, TotalSeconds: 10, RecordsPerSec: 40_000}}}}
	if got := res.Restores[0].RestoringThreads(); got != 4 {
		t.Fatalf("restoring threads %d, want 4", got)
	}
	tr, ok := RestoreRateOf(res)
	if !ok || tr.OffsetsPerSec != 10_000 || tr.BytesPerOffset != 500 {
		t.Fatalf("rate %+v (ok %v), want 10000 offsets/s per thread of 500 bytes", tr, ok)
	}
	res.Restores[0].Partitions = 0 // unknown: all eight count
	if tr, _ := RestoreRateOf(res); tr.OffsetsPerSec != 5_000 {
		t.Errorf("without partitions: %v offsets/s per thread, want 5000", tr.OffsetsPerSec)
	}
}

// TestScaleOutModelInputs: a measured scale-out's settings, rate, load and
// times reach the warmup model as measured; what it did not measure (no
// follow-up rebalance seen) keeps the model's default.
func TestScaleOutModelInputs(t *testing.T) {
	so := &ScaleOutRecord{Protocol: warmup.ProtocolClassic, Before: 2, After: 4, Threads: 2, Standbys: 1,
		MaxWarmupReplicas: 3, AcceptableRecoveryLag: 5000, ProbingIntervalSeconds: 60,
		RestoreRate: 25_000, BytesPerOffset: 500, Load: &WriteLoad{Rate: 800}, StartupSeconds: 7.5}
	in := so.ModelInputs()
	want := warmup.Defaults()
	want.Before, want.After, want.Threads, want.Standbys = 2, 4, 2, 1
	want.MaxWarmupReplicas, want.AcceptableRecoveryLag, want.ProbingIntervalSeconds = 3, 5000, 60
	want.RestoreRate, want.BytesPerOffset, want.WriteRate, want.StartupSeconds = 25_000, 500, 800, 7.5
	if !reflect.DeepEqual(in, want) {
		t.Fatalf("inputs\n%+v\nwant\n%+v", in, want)
	}
	so.RebalanceTimes = []float64{1, 4.5, 70}
	if got := so.ModelInputs().FollowUpSeconds; got != 3.5 {
		t.Errorf("follow-up %v, want the measured 3.5", got)
	}
}

// TestRestoreRateOfPrefersTheLargerWork: a scale-out's setup that restored
// under 1 MB a thread measures mostly start-up; beside cold restores of
// 500 MB at 100 times its rate, the cold rate is used and the setup's is
// named as disagreeing. With only the setup, it is used.
func TestRestoreRateOfPrefersTheLargerWork(t *testing.T) {
	c := config.DefaultCase()
	c.Name, c.Engine = "cold", config.EngineKafkaStreams
	so := config.DefaultCase()
	so.Name, so.Engine, so.Scenario = "scaleout", config.EngineKafkaStreams, config.ScenarioScaleOut
	res := &Results{Restores: []Restore{
		{Case: "scaleout", Repeat: 1, Params: so, Verified: true, ScaleOut: &ScaleOutRecord{Before: 1, Threads: 1, RestoreRate: 3584, BytesPerOffset: 500,
			TaskTimelines: []TaskTimeline{{Offsets: 900}, {Offsets: 900}}}},
		{Case: "cold", Repeat: 1, Params: c, Partitions: 1, Verified: true, Records: 1_000_000, Bytes: 500e6, Phase: &RestorePhase{RecordsPerSec: 358_400}},
	}}
	tr, ok := RestoreRateOf(res)
	if !ok || tr.OffsetsPerSec != 358_400 {
		t.Fatalf("rate %+v, want the cold restores' 358400 offsets/s", tr)
	}
	for _, want := range []string{"verified cold restores", "the setup of scale-out case scaleout gave 3584 offsets/s, ×0.01 of it, on 0.9 MB a thread", "not used"} {
		if !strings.Contains(tr.From, want) {
			t.Errorf("From %q lacks %q", tr.From, want)
		}
	}
	res.Restores = res.Restores[:1]
	if tr, _ := RestoreRateOf(res); tr.OffsetsPerSec != 3584 || strings.Contains(tr.From, "not used") {
		t.Errorf("setup alone: %+v", tr)
	}
}
