package integration

import (
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRealKafkaStreamsRestoresASessionStore: a session store's changelog
// over twice its retention restores cold on Kafka Streams
// (Stores.persistentSessionStore with its segments, and
// Stores.inMemorySessionStore) to the Go expected state, as the model
// does: only the sessions ending within the retention of the last end.
// The retention (10.5 min over one-minute windows) cuts through a window,
// keeping its keys' longer sessions and expiring the shorter ones, so a
// store that expired by session start, or kept an expired session, would
// not verify. Both engines read the changelog from the first record within
// the retention of each partition's last (Kafka Streams 4.4 seeks so for
// session stores as for window ones), and the RocksDB segments Kafka
// Streams left on disk are those of the session ends the model keeps.
func TestRealKafkaStreamsRestoresASessionStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio, spec.ValueMin, spec.ValueMax = 4000, 100, 2, 0.05, 20, 60
	// 20 minutes of events, one-minute windows, 10.5 minutes' retention.
	spec.StoreKind, spec.EventStepMicros = loadgen.KindSession, 20*60*1_000_000/spec.Records
	spec.WindowSizeMs, spec.RetentionMs = 60_000, 10*60_000+30_000
	if !cutsAWindow(t, spec) {
		t.Fatal("the spec's retention expires no window in part: it would not tell expiry by end from expiry by start")
	}
	fill := ksFill(t, env, app, spec, "lz4")
	every := spec
	every.RetentionMs = 2 * 20 * 60_000 // no session expires
	all, _, err := loadgen.Expect(every)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []kindVariant{{name: "rocksdb"}, {name: "in-memory", memory: true}} {
		t.Run(v.name, func(t *testing.T) {
			m, k := restoreKindOnBoth(t, env, fill, app, v)
			if m.Records >= spec.Records {
				t.Fatalf("the model restored %d records of %d: it skips the expired head", m.Records, spec.Records)
			}
			if kept, every := served(k), sumKeys(all); kept == 0 || kept >= every {
				t.Fatalf("served %d sessions of the %d the changelog wrote: the expired ones must be left out, the live ones kept", kept, every)
			}
			st := k.Store
			if !st.Uncounted || st.RecordsKept != 0 || st.RetentionSeconds != 630 {
				t.Fatalf("kafka-streams session store record %+v", st)
			}
			if v.memory {
				if st.Segments != 0 || st.SegmentIntervalSeconds != 0 {
					t.Fatalf("Kafka Streams' in-memory session store has no segments: %+v", st)
				}
				return
			}
			iv := int64(m.Store.SegmentIntervalSeconds * 1000)
			want := openSegments(t, spec, iv, func(r filled) bool { return ksReads(spec, r) })
			ks := openSegments(t, spec, iv, ksRead(t, spec, k)) // a partition read whole (the seek's fallback) may leave one more
			if iv != 315_000 || m.Store.Segments != want || st.Segments != ks || st.SegmentIntervalSeconds != m.Store.SegmentIntervalSeconds || want == 0 {
				t.Fatalf("segments of %d ms (want Kafka Streams' max(retention / 2, 60 s) = 315000) left: kafka-streams %d (want %d), the model %d (want %d); kafka-streams' interval %.0f s",
					iv, st.Segments, ks, m.Store.Segments, want, st.SegmentIntervalSeconds)
			}
		})
	}
}

// cutsAWindow says whether spec's retention expires some sessions of a
// window and keeps others, per partition of records Kafka Streams reads.
func cutsAWindow(t *testing.T, spec loadgen.Spec) bool {
	t.Helper()
	recs := fillRecords(t, spec)
	stream := map[int32]int64{}
	for _, r := range recs {
		stream[r.partition] = max(stream[r.partition], r.end)
	}
	fate := map[[2]int64]map[bool]bool{} // (partition, window start): live, expired
	for _, r := range recs {
		w := [2]int64{int64(r.partition), r.start}
		if fate[w] == nil {
			fate[w] = map[bool]bool{}
		}
		fate[w][r.end >= stream[r.partition]-spec.RetentionMs+1] = true
	}
	for _, f := range fate {
		if f[true] && f[false] {
			return true
		}
	}
	return false
}
