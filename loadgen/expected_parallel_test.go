package loadgen

import (
	"runtime"
	"testing"
)

// TestParallelStatesMatchOneGoroutine: the expected state summed over key
// ranges on several goroutines is, partition by partition, the one a
// single pass over every key gives, for plain and timestamped stores.
func TestParallelStatesMatchOneGoroutine(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, kind := range []StoreKind{KindKeyValue, KindTimestampedKeyValue} {
		spec := DefaultSpec()
		spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions, spec.TombstoneRatio = 400_000, 300_000, 8, 40, 6, 0.05
		spec.StoreKind = kind
		if kind.Timed() {
			spec.EventStepMicros = 1000
		}
		last, err := lastWrites(spec)
		if err != nil {
			t.Fatal(err)
		}
		d := newDeriver(spec, func(int32, int64) bool { return true })
		d.last = last
		g, _ := NewGenerator(spec)
		want := d.sumKeys(g, last)
		got, err := d.keyValueStates(make([]PartitionState, spec.Partitions))
		if err != nil {
			t.Fatal(err)
		}
		var live int64
		for p := range want {
			live += want[p].Keys
			if got[p].Keys != want[p].Keys || got[p].LiveBytes != want[p].LiveBytes || got[p].Digest != want[p].Digest {
				t.Errorf("%s partition %d: %+v, one pass %+v", kind, p, got[p], want[p])
			}
		}
		if live == 0 {
			t.Fatalf("%s: no live key: the test checks nothing", kind)
		}
	}
}
