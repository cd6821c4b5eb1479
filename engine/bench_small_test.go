package engine

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

// BenchmarkRestoreSmallRecords is the restore loop's store side per
// record on small records (a word count's changelog): polls of 1000
// records of 16-byte keys and 8-byte values, uniform over 1,000,000 keys
// of 4 partitions, split into one WriteBatch per partition's store
// (RocksDB with Kafka Streams' defaults), as restoreConsumer.apply does
// after a fetch. The fetch and decoding aside, it is the path whose time
// the model spends over Kafka Streams' on such records.
func BenchmarkRestoreSmallRecords(b *testing.B) {
	benchSmallRecords(b, config.DefaultCase())
}

// BenchmarkRestoreSmallRecordsTimestamped is the same into timestamped
// key-value stores (the value behind its 8-byte timestamp, as a DSL
// store keeps it).
func BenchmarkRestoreSmallRecordsTimestamped(b *testing.B) {
	cs := config.DefaultCase()
	cs.StoreKind = config.StoreTimestampedKeyValue
	benchSmallRecords(b, cs)
}

func benchSmallRecords(b *testing.B, cs config.Case) {
	const partitions, keys, pollRecords = 4, 1_000_000, 1000
	in := &Instance{Case: cs}
	res := &Restored{PollWait: measure.NewHistogram(), BatchWrite: measure.NewHistogram(), restored: map[int32]int64{}, applied: map[int32]int64{}}
	dir := b.TempDir()
	spec := loaderSpec{Case: cs, AppDir: dir, Store: "counts", Tasks: partitions}
	loaders := map[int32]Loader{}
	for p := range int32(partitions) {
		l, err := newLoader(spec, TaskID{Partition: p})
		if err != nil {
			b.Fatal(err)
		}
		loaders[p] = l
	}
	defer func() {
		for _, l := range loaders {
			l.Abort()
		}
	}()
	// 64 polls of records, cycled, each poll holding runs of one
	// partition's records as fetches return them.
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.UnixMilli(1_700_000_000_000)
	polls := make([][]*kgo.Record, 64)
	for i := range polls {
		for p := range int32(partitions) {
			for range pollRecords / partitions {
				v := make([]byte, 8)
				binary.BigEndian.PutUint64(v, rng.Uint64())
				polls[i] = append(polls[i], &kgo.Record{Partition: p, Key: loadgen.AppendKey(nil, int64(rng.IntN(keys))), Value: v, Timestamp: now})
			}
		}
	}
	c := restoreConsumer{in: in, loaders: loaders, res: res, counter: &measure.Counter{}, sampler: newKeySampler(maxSampleKeys, 1)}
	batches := map[int32][]Entry{}
	remaining := map[int32]int64{}
	var offset int64
	b.ReportAllocs()
	b.SetBytes(pollRecords * 24)
	i := 0
	for b.Loop() {
		take := polls[i%len(polls)]
		i++
		for _, r := range take {
			r.Offset = offset
		}
		offset++
		for p := range int32(partitions) {
			remaining[p] = 1 << 62
		}
		if err := c.apply(take, remaining, batches); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pollRecords), "ns/record")
}
