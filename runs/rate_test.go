package runs

import (
	"testing"

	"github.com/restorebench/restorebench/config"
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
