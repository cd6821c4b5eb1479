package integration

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRealKafkaStreamsRestoresAVersionedStore: a versioned store's
// changelog (KIP-889: plain values, the record timestamps the versions'
// validFrom) over four times its history retention restores cold on
// Kafka Streams (Stores.persistentVersionedKeyValueStore with its default
// segments, and with 30-second ones) to the Go expected state, as the
// model does: each key's latest version and the older versions whose
// validTo is within the history retention. The state with every version
// the changelog wrote differs from it, so a store that served history
// past its retention, or lost a version within it, would not verify. Both
// read every record (Kafka Streams does not seek past a versioned
// changelog's head), and the store record names the history retention
// and the segment interval both engines used.
func TestRealKafkaStreamsRestoresAVersionedStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio, spec.ValueMin, spec.ValueMax = 4000, 100, 2, 0.1, 20, 60
	// 20 minutes of events, five minutes of history.
	spec.StoreKind, spec.EventStepMicros = loadgen.KindVersionedKeyValue, 20*60*1_000_000/spec.Records
	spec.RetentionMs = 5 * 60_000
	fill := ksFill(t, env, app, spec, "lz4")
	every := spec
	every.RetentionMs = 2 * 20 * 60_000 // no version expires
	all, _, err := loadgen.Expect(every)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []kindVariant{{name: "default-segments"}, {name: "half-minute-segments", interval: 30 * time.Second}} {
		t.Run(v.name, func(t *testing.T) {
			m, k := restoreKindOnBoth(t, env, fill, app, v)
			if k.Records != spec.Records || m.Records != spec.Records {
				t.Fatalf("Kafka Streams restored %d records, the model %d, of %d: both read every record", k.Records, m.Records, spec.Records)
			}
			if kept, every := served(k), sumKeys(all); kept < spec.Keys/2 || kept >= every {
				t.Fatalf("served %d versions of the %d the changelog wrote: the ones past the history must be left out, each key's latest kept", kept, every)
			}
			want := 60.0 // RocksDbVersionedKeyValueBytesStoreSupplier: a fifth of 5 min
			if v.interval > 0 {
				want = v.interval.Seconds()
			}
			st := k.Store
			if !st.Uncounted || st.RetentionSeconds != 300 || st.SegmentIntervalSeconds != want || m.Store.SegmentIntervalSeconds != want {
				t.Fatalf("kafka-streams versioned store record %+v, model's %+v: want history 300 s, segments of %.0f s", st, m.Store, want)
			}
			if m.Store.SegmentsDropped == 0 || m.Store.RecordsKept != spec.Records {
				t.Fatalf("model versioned store record %+v: want every record put and the segments behind the history dropped", m.Store)
			}
		})
	}
}
