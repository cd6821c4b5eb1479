package runs

import (
	"reflect"
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
		Records: 400_000, Bytes: 200e6, RecordsPerSec: 40_000}}}
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
