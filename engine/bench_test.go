package engine

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

// BenchmarkRocksWriteBatch is the put strategy's store side per record:
// one WriteBatch of 1000 records (Kafka Streams' restore batch) into a
// RocksDB store with Kafka Streams' defaults.
func BenchmarkRocksWriteBatch(b *testing.B) {
	s, err := OpenRocks(b.TempDir(), config.DefaultCase().RocksDB)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g, _ := loadgen.NewGenerator(func() loadgen.Spec { sp := loadgen.DefaultSpec(); sp.Records = 1 << 40; return sp }())
	batch := make([]Entry, 1000)
	bufs := make([][]byte, 1000)
	b.SetBytes(1000 * 116)
	for b.Loop() {
		for i := range batch {
			r, _ := g.Next()
			bufs[i] = append(append(bufs[i][:0], r.Key...), r.Value...)
			batch[i] = Entry{Key: bufs[i][:len(r.Key)], Value: bufs[i][len(r.Key):]}
		}
		if err := s.Write(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkColdRestoreEmbedded is the whole restore loop per record on the
// embedded broker (fetch, batch, write, progress, sampling): 200,000
// records, 4 partitions, 1 thread, into RocksDB.
func BenchmarkColdRestoreEmbedded(b *testing.B) {
	cfg, _ := testkafka.Embedded(b)
	s := loadgen.DefaultSpec()
	s.Records, s.Keys, s.Partitions = 200_000, 50_000, 4
	testkafka.Fill(b, cfg, "bench", s, nil)
	offsets := testkafka.Offsets(b, cfg, "bench")
	for b.Loop() {
		in := testInstance(cfg, "bench", b.TempDir())
		if err := in.Case.Finalize(); err != nil {
			b.Fatal(err)
		}
		res, err := in.ColdRestore(context.Background(), offsets)
		if err != nil {
			b.Fatal(err)
		}
		res.Close()
	}
	b.ReportMetric(float64(s.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkApplyPoll is the restore loop's own cost per poll, the store
// aside: 1000 records of 8 partitions (125 each, grouped by partition as
// fetches return them, 1000-byte values) split into per-store batches,
// counted, sampled and handed to loaders that drop them.
func BenchmarkApplyPoll(b *testing.B) {
	in := &Instance{Case: config.DefaultCase()}
	res := &Restored{PollWait: measure.NewHistogram(), BatchWrite: measure.NewHistogram(), restored: map[int32]int64{}, applied: map[int32]int64{}}
	loaders := map[int32]Loader{}
	var take []*kgo.Record
	value := make([]byte, 1000)
	for p := range int32(8) {
		loaders[p] = discardLoader{}
		for i := range int64(125) {
			take = append(take, &kgo.Record{Partition: p, Offset: i, Key: loadgen.AppendKey(nil, i), Value: value})
		}
	}
	c := restoreConsumer{in: in, loaders: loaders, res: res, counter: &measure.Counter{}, sampler: newKeySampler(maxSampleKeys, 1)}
	batches := map[int32][]Entry{}
	remaining := map[int32]int64{}
	for b.Loop() {
		for p := range int32(8) {
			remaining[p] = 1 << 40
		}
		if err := c.apply(take, remaining, batches); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(take)), "ns/record")
}
