package runs

import (
	"math"
	"testing"
)

// TestCleanerBound: settings left out, or ones Kafka would not clean by,
// are Kafka's defaults; the bound in records is the bound in bytes over the
// record size, so the scenario's records per live key and the planner's
// changelog bytes are one figure.
func TestCleanerBound(t *testing.T) {
	def := NewCleanerBound(nil)
	if def.DirtyRatio != 0.5 || def.SegmentBytes != 1<<30 || def.MinCompactionLagMs != 0 {
		t.Fatalf("defaults %+v", def)
	}
	if odd := NewCleanerBound(map[string]string{"min.cleanable.dirty.ratio": "1", "segment.bytes": "0"}); odd != def {
		t.Errorf("ratio 1 and segment 0 gave %+v, want the defaults", odd)
	}
	b := NewCleanerBound(map[string]string{"min.cleanable.dirty.ratio": "0.1", "segment.bytes": "8388608", "min.compaction.lag.ms": "60000"})
	// 900 MB live over 4 partitions: 1000 MB after cleaning plus 4 active
	// segments of 8 MiB + 1 MiB, plus 60 s of 1 MB/s still young.
	want := 1000e6 + 4*(8388608+1<<20) + 60e6
	if got := b.Bytes(900e6, 4, 1e6*b.MinCompactionLagMs/1000); math.Abs(got-want) > 1e-3 {
		t.Errorf("bytes %v, want %v", got, want)
	}
	const perRecord = 500.0
	if got := b.Records(900e6/perRecord, 4, perRecord, 60e6/perRecord) * perRecord; math.Abs(got-want) > 1e-3 {
		t.Errorf("records × size %v, want %v", got, want)
	}
}
