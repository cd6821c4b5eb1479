package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// kindVariant is one store of a kind a test restores on both engines.
type kindVariant struct {
	name     string
	memory   bool
	interval time.Duration // a window store's segment interval; 0 Kafka Streams' default
	// noProbe sets Kafka Streams' poll.ms to 0, so the probe poll of its
	// seek past a window or session changelog's expired head returns
	// nothing and it reads every partition from the log start (the
	// fallback a loaded machine meets now and then).
	noProbe bool
}

// kindCase is a cold case of fill's store kind on engine e: its
// retention the fill's, its store and segment interval the variant's.
func kindCase(t *testing.T, fill loadgen.Spec, e config.Engine, v kindVariant) config.Case {
	t.Helper()
	c := ksCase(v.name+"-"+string(e), 1)
	c.Engine, c.StoreKind = e, fill.StoreKind
	c.Retention = config.Duration(time.Duration(fill.RetentionMs) * time.Millisecond)
	c.SegmentInterval = config.Duration(v.interval)
	if v.noProbe && e == config.EngineKafkaStreams {
		c.Streams = map[string]string{"poll.ms": "0"}
	}
	if v.memory {
		c.Store, c.Strategy = config.StoreMemory, config.StrategyMemory
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// restoreKindOnBoth restores fill cold with the variant on the model and
// on Kafka Streams, and requires both to verify alike (assertSameStates:
// per partition the same keys, live bytes and digest as the Go expected
// state), the model having read the records ksRestored names (a window
// or session store's from the first within the retention of each
// partition's last: Kafka Streams 4.4 seeks there, and the model with it)
// and Kafka Streams those or, where its seek's probe found nothing, a
// partition whole (ksFellBack). It returns both records.
func restoreKindOnBoth(t *testing.T, env *bench.Env, fill bench.FillOutcome, app string, v kindVariant) (m, k runs.Restore) {
	t.Helper()
	spec := fill.Manifest.Spec
	m, err := env.RunCase(context.Background(), fill, app, ksStore, kindCase(t, spec, config.EngineModel, v), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	k, err = env.RunCase(context.Background(), fill, app, ksStore, kindCase(t, spec, config.EngineKafkaStreams, v), stateDir)
	if err != nil {
		t.Fatal(err)
	}
	noJVMUnder(t, stateDir)
	assertSameStates(t, m, k)
	read, bytes := ksRestored(t, spec)
	if m.Records != read {
		t.Fatalf("the model read %d records, want %d", m.Records, read)
	}
	if k.Records != read || k.Bytes != bytes {
		if _, ok := ksFellBack(t, spec)[[2]int64{k.Records, k.Bytes}]; !ok {
			t.Fatalf("kafka-streams read %d records of %d bytes: want %d of %d, or the whole of some partitions (its seek's fallback)", k.Records, k.Bytes, read, bytes)
		}
		t.Logf("kafka-streams read %d records (%d bytes) where a seek on every partition reads %d: its probe poll found nothing on some partition, which it then read from the log start", k.Records, k.Bytes, read)
	}
	checkRecords(t, m, k)
	if k.Store == nil || k.Store.Kind != spec.StoreKind {
		t.Fatalf("kafka-streams store record %+v, want kind %s", k.Store, spec.StoreKind)
	}
	t.Logf("%s: model %.2f s, kafka-streams %.2f s, %d records, %d entries served", v.name, m.Phase.Seconds, k.Phase.Seconds, k.Records, served(k))
	return m, k
}

// ksRestored are the records (and their key+value bytes) Kafka Streams
// 4.4 restores of a cold store of spec's kind: every record, except for a
// window or session store, whose changelog it reads per partition from
// the first record (offsetsForTimes) whose timestamp is at least the
// partition's last record's timestamp minus the retention.
func ksRestored(t *testing.T, spec loadgen.Spec) (records, bytes int64) {
	t.Helper()
	for _, r := range fillRecords(t, spec) {
		if ksReads(spec, r) {
			records++
			bytes += int64(len(r.key) + r.value)
		}
	}
	return records, bytes
}

// ksFellBack are the (records, bytes) Kafka Streams 4.4 reads of spec's
// changelog when its seek past the expired head fails on some
// partitions and not others: its probe poll (one poll of poll.ms) finding
// no record, as under load, it reads that partition from the log start
// (docs/profiles.md, store_kind). Each partition is read either from its
// seek or whole; the pair of the seek on every partition is included.
// Each pair maps to the partitions read whole.
func ksFellBack(t *testing.T, spec loadgen.Spec) map[[2]int64][]int32 {
	t.Helper()
	type read struct{ sought, all [2]int64 }
	parts := map[int32]*read{}
	for _, r := range fillRecords(t, spec) {
		p := parts[r.partition]
		if p == nil {
			p = &read{}
			parts[r.partition] = p
		}
		n := int64(len(r.key) + r.value)
		p.all[0], p.all[1] = p.all[0]+1, p.all[1]+n
		if ksReads(spec, r) {
			p.sought[0], p.sought[1] = p.sought[0]+1, p.sought[1]+n
		}
	}
	sums := map[[2]int64][]int32{{0, 0}: nil}
	for id, p := range parts {
		next := map[[2]int64][]int32{}
		for s, whole := range sums {
			next[[2]int64{s[0] + p.sought[0], s[1] + p.sought[1]}] = whole
			next[[2]int64{s[0] + p.all[0], s[1] + p.all[1]}] = append(slices.Clone(whole), id)
		}
		sums = next
	}
	return sums
}

// ksRead says which of spec's records Kafka Streams read in restore k: a
// window or session store's from the seek, but on the partitions its
// records and bytes say it read whole (ksFellBack).
func ksRead(t *testing.T, spec loadgen.Spec, k runs.Restore) func(filled) bool {
	t.Helper()
	whole := ksFellBack(t, spec)[[2]int64{k.Records, k.Bytes}]
	return func(r filled) bool { return ksReads(spec, r) || slices.Contains(whole, r.partition) }
}

// filled is what a test needs of a fill's record: start is a window
// fill's window start, or a session fill's session start, and end the
// session's end; sought says whether it is at or after its partition's
// first record whose timestamp is at least the partition's last record's
// minus the retention (where offsetsForTimes seeks to).
type filled struct {
	partition             int32
	key                   []byte
	value                 int
	timestamp, start, end int64
	partitionLastTs       int64
	sought                bool
}

// fillRecords are spec's records in order, each with its partition's last
// record's timestamp.
func fillRecords(t *testing.T, spec loadgen.Spec) []filled {
	t.Helper()
	g, err := loadgen.NewGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]filled, spec.Records)
	last := map[int32]int64{}
	for i := range spec.Records {
		r := g.At(i)
		out[i] = filled{partition: r.Partition, key: append([]byte(nil), r.Key...), value: len(r.Value), timestamp: r.Timestamp, start: r.WindowStart, end: r.SessionEnd}
		last[r.Partition] = r.Timestamp
	}
	found := map[int32]bool{}
	for i := range out {
		r := &out[i]
		r.partitionLastTs = last[r.partition]
		found[r.partition] = found[r.partition] || r.timestamp >= r.partitionLastTs-spec.RetentionMs
		r.sought = found[r.partition]
	}
	return out
}

// ksReads says whether Kafka Streams 4.4 restores r (ksRestored): a
// session store's changelog is read as a window store's, from the first
// record within the retention on, later records older than it included
// (a session fill's timestamps, its sessions' ends, are not in order).
func ksReads(spec loadgen.Spec, r filled) bool {
	return !spec.StoreKind.Segmented() || r.sought
}

// openSegments are the segments of interval ms a window store holds after
// restoring the records read chooses: per partition, the segments
// (window start / interval) of the records written whose id is at least
// that of stream time (the largest window start) minus the retention, as
// Kafka Streams' KeyValueSegments keep them (stream time only grows, so a
// segment dropped during the restore stays dropped). A session store's
// are the same by session end.
func openSegments(t *testing.T, spec loadgen.Spec, interval int64, read func(filled) bool) int {
	t.Helper()
	stream := map[int32]int64{}
	segs := map[[2]int64]bool{}
	recs := fillRecords(t, spec)
	at := func(r filled) int64 {
		if spec.StoreKind == loadgen.KindSession {
			return r.end
		}
		return r.start
	}
	for _, r := range recs {
		if read(r) {
			stream[r.partition] = max(stream[r.partition], at(r))
		}
	}
	for _, r := range recs {
		if read(r) && at(r)/interval >= (stream[r.partition]-spec.RetentionMs)/interval {
			segs[[2]int64{int64(r.partition), at(r) / interval}] = true
		}
	}
	return len(segs)
}

func served(r runs.Restore) int64 {
	keys, _ := r.Verification.Totals()
	return keys
}

// TestRealKafkaStreamsRestoresAWindowStore is issue 19's window check on
// the real client: a window store's changelog over twice its retention
// restores cold on Kafka Streams (Stores.persistentWindowStore with its
// default segments, one-minute segments through the supplier's own
// constructor, and Stores.inMemoryWindowStore) to the Go expected state,
// as the model does, which holds only the windows within the retention.
// The state with every window the changelog wrote differs from it, so a
// store that kept an expired window would not verify; and the RocksDB
// segments Kafka Streams left on disk are those the model keeps open.
// Kafka Streams 4.4 and the model read only part of it: each starts a
// partition at the first record within the retention of its last
// (ksRestored), where Kafka Streams before 4.2 read every record. With
// poll.ms 0 (seek-fallback) Kafka Streams' probe for that seek finds
// nothing and it reads every partition whole, as a loaded machine makes
// it do now and then: the store still verifies, and keeps one segment
// more, the one the expired head reaches into (ksRead).
func TestRealKafkaStreamsRestoresAWindowStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio, spec.ValueMin, spec.ValueMax = 4000, 100, 2, 0.05, 20, 60
	// 20 minutes of events, one-minute windows, ten minutes' retention.
	spec.StoreKind, spec.EventStepMicros = loadgen.KindWindow, 20*60*1_000_000/spec.Records
	spec.WindowSizeMs, spec.RetentionMs = 60_000, 10*60_000
	fill := ksFill(t, env, app, spec, "lz4")
	every := spec
	every.RetentionMs = 2 * 20 * 60_000 // no window expires
	all, _, err := loadgen.Expect(every)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []kindVariant{{name: "default-segments"}, {name: "minute-segments", interval: time.Minute}, {name: "in-memory", memory: true},
		{name: "seek-fallback", interval: time.Minute, noProbe: true}} {
		t.Run(v.name, func(t *testing.T) {
			m, k := restoreKindOnBoth(t, env, fill, app, v)
			if v.noProbe && k.Records != spec.Records {
				t.Fatalf("with poll.ms 0 Kafka Streams read %d records, want all %d: its seek's probe returns nothing, so it reads every partition whole", k.Records, spec.Records)
			}
			if m.Records >= spec.Records {
				t.Fatalf("the model restored %d records of %d: it skips the expired head", m.Records, spec.Records)
			}
			if kept, every := served(k), sumKeys(all); kept == 0 || kept >= every {
				t.Fatalf("served %d windows of the %d the changelog wrote: the expired ones must be left out, the live ones kept", kept, every)
			}
			st := k.Store
			if !st.Uncounted || st.RecordsKept != 0 || st.RetentionSeconds != 600 {
				t.Fatalf("kafka-streams window store record %+v", st)
			}
			if v.memory {
				if st.Segments != 0 || st.SegmentIntervalSeconds != 0 {
					t.Fatalf("Kafka Streams' in-memory window store has no segments: %+v", st)
				}
				return
			}
			iv := int64(m.Store.SegmentIntervalSeconds * 1000)
			// A partition Kafka Streams read whole (its seek's fallback)
			// leaves the segment the expired head reaches into as well.
			ks := openSegments(t, spec, iv, ksRead(t, spec, k))
			model := openSegments(t, spec, iv, func(r filled) bool { return ksReads(spec, r) })
			if m.Store.Segments != model || st.Segments != ks || st.SegmentIntervalSeconds != m.Store.SegmentIntervalSeconds || ks == 0 {
				t.Fatalf("segments of %.0f s left: kafka-streams %d (want %d), the model %d (want %d); kafka-streams' interval %.0f s",
					m.Store.SegmentIntervalSeconds, st.Segments, ks, m.Store.Segments, model, st.SegmentIntervalSeconds)
			}
		})
	}
}

func sumKeys(states []loadgen.PartitionState) int64 {
	var n int64
	for _, s := range states {
		n += s.Keys
	}
	return n
}

// TestRealKafkaStreamsRestoresATimestampedStore: a timestamped key-value
// store's changelog (plain values, the record timestamps set) restores
// cold on Kafka Streams, in RocksDB and in memory, to the Go expected
// state, whose values carry their records' timestamps: the store put each
// record's timestamp before its value, as the model does.
func TestRealKafkaStreamsRestoresATimestampedStore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio, spec.ValueMin, spec.ValueMax = 3000, 500, 2, 0.05, 0, 80
	spec.StoreKind, spec.EventStepMicros = loadgen.KindTimestampedKeyValue, 1000
	fill := ksFill(t, env, app, spec, "none")
	for _, v := range []kindVariant{{name: "rocksdb"}, {name: "in-memory", memory: true}} {
		t.Run(v.name, func(t *testing.T) {
			_, k := restoreKindOnBoth(t, env, fill, app, v)
			if st := k.Store; st.Uncounted || st.RecordsKept != k.Records {
				t.Fatalf("kafka-streams timestamped store record %+v", st)
			}
		})
	}
}
