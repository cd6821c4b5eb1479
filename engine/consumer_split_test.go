package engine

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSplitTakesRecordsBelowTheEndOffsets: a poll whose partitions come in
// several runs is split into one batch per partition, in offset order;
// records at or past a partition's captured end offset are not restored,
// a partition that reached its end leaves remaining, and each
// partition's next offset is the one after its last record taken.
func TestSplitTakesRecordsBelowTheEndOffsets(t *testing.T) {
	rec := func(p int32, o int64) *kgo.Record {
		return &kgo.Record{Partition: p, Offset: o, Key: []byte{byte(p), byte(o)}, Value: []byte{1}}
	}
	// Partition 0 owes offsets below 3, partition 1 below 10; partition 2
	// was restored already (not in remaining).
	take := []*kgo.Record{rec(0, 0), rec(0, 1), rec(1, 5), rec(0, 2), rec(0, 3), rec(2, 7), rec(1, 6)}
	remaining := map[int32]int64{0: 3, 1: 10}
	batches := map[int32][]Entry{1: {{Key: []byte("stale")}}}
	c := restoreConsumer{in: &Instance{}}
	n, b, _, next := c.split(take, remaining, batches)
	if n != 5 || b != 15 {
		t.Errorf("took %d records, %d bytes; want 5, 15 (2-byte keys, 1-byte values)", n, b)
	}
	wantKeys := map[int32][][]byte{0: {{0, 0}, {0, 1}, {0, 2}}, 1: {{1, 5}, {1, 6}}}
	for p, keys := range wantKeys {
		if len(batches[p]) != len(keys) {
			t.Fatalf("partition %d batch holds %d records, want %d", p, len(batches[p]), len(keys))
		}
		for i, k := range keys {
			if string(batches[p][i].Key) != string(k) {
				t.Errorf("partition %d record %d key %v, want %v", p, i, batches[p][i].Key, k)
			}
		}
	}
	if len(batches[2]) != 0 {
		t.Errorf("partition 2, already restored, got %d records", len(batches[2]))
	}
	if _, owed := remaining[0]; owed {
		t.Error("partition 0 reached its end offset but is still owed")
	}
	if remaining[1] != 10 {
		t.Errorf("partition 1 still owes up to %d, want 10", remaining[1])
	}
	if next[0] != 3 || next[1] != 7 {
		t.Errorf("next offsets %v, want 0:3 and 1:7", next)
	}
	if _, ok := next[2]; ok {
		t.Errorf("partition 2 took no record but has a next offset %d", next[2])
	}
}
