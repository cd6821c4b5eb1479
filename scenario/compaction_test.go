package scenario

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// TestCompactionBoundCountsRecordsWithinTheLag: records younger than
// min.compaction.lag.ms at the restore may not be cleaned, so the bound
// must allow them all. Measured on Kafka 4.4: 8 MiB segments with a
// 10-minute lag, restored 30 s after the writes, read all 525,227 records
// (x6.12 per live key) while a bound that assumed the lag had passed said
// x2.86.
func TestCompactionBoundCountsRecordsWithinTheLag(t *testing.T) {
	written := loadgen.FillTotals{Records: 525_227, Bytes: 268_400_000, PerPart: make([]loadgen.PartitionCount, 4)}
	const live = 85_829
	cfg := map[string]string{"segment.bytes": "8388608", "min.compaction.lag.ms": "600000"}
	start := time.Unix(1000, 0)
	end, restore := start.Add(2*time.Second), start.Add(32*time.Second)
	if f := youngFraction(cfg, start, end, restore); f != 1 {
		t.Fatalf("young fraction %v, want 1 (the lag had not passed for any record)", f)
	}
	if b := amplificationBound(cfg, written, live, youngFraction(cfg, start, end, restore)); b < 6.11 {
		t.Fatalf("bound x%.2f under what the settings allow: all 525,227 records (x6.12)", b)
	}
	noLag := map[string]string{"segment.bytes": "8388608"}
	if f := youngFraction(noLag, start, end, restore); f != 0 {
		t.Fatalf("young fraction %v without a lag", f)
	}
	if b := amplificationBound(noLag, written, live, 0); b > 3 {
		t.Fatalf("bound x%.2f without a lag, want about x2.86", b)
	}
	// Half the writes within the lag at restore: half the records may stay.
	half := map[string]string{"min.compaction.lag.ms": "31000"}
	if f := youngFraction(half, start, end, restore); f < 0.49 || f > 0.51 {
		t.Fatalf("young fraction %v, want 0.5", f)
	}
}
