package loadgen_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// TestProduceSpreadWritesTheFill: a fill spread over several producer
// clients leaves every partition holding exactly the generator's records
// for it, in generator order, tombstones as tombstones: the same log as
// one client writes, so the expected state derived from the spec holds.
func TestProduceSpreadWritesTheFill(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 6000, 1500, 5, 0.05
	spec.ValueMin, spec.ValueMax = 0, 300 // empty values too: live, not tombstones
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admCl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(admCl), "spread", spec.Partitions, nil); err != nil {
		t.Fatal(err)
	}
	opts, _ := loadgen.ProducerOpts("lz4")
	var clients []*kgo.Client
	for range 3 {
		cl, err := cluster.NewClient(cfg, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		clients = append(clients, cl)
	}
	tot, err := loadgen.ProduceSpread(ctx, clients, "spread", spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Records != spec.Records {
		t.Fatalf("produced %d records, want %d", tot.Records, spec.Records)
	}
	got := consumeAll(t, cfg, "spread", spec.Records)
	g, _ := loadgen.NewGenerator(spec)
	next := map[int32]int{}
	for {
		r, ok := g.Next()
		if !ok {
			break
		}
		recs := got[r.Partition]
		i := next[r.Partition]
		if i >= len(recs) {
			t.Fatalf("partition %d holds %d records; the generator has more for it", r.Partition, len(recs))
		}
		h := recs[i]
		if !bytes.Equal(h.Key, r.Key) || !bytes.Equal(h.Value, r.Value) || (h.Value == nil) != (r.Value == nil) {
			t.Fatalf("partition %d offset %d holds key %q (%d B value, nil %v); the generator's record %d is key %q (%d B, nil %v)",
				r.Partition, i, h.Key, len(h.Value), h.Value == nil, r.Index, r.Key, len(r.Value), r.Value == nil)
		}
		next[r.Partition] = i + 1
	}
	for p, recs := range got {
		if next[p] != len(recs) {
			t.Errorf("partition %d holds %d records, the generator %d", p, len(recs), next[p])
		}
	}
}

// consumeAll reads n records of topic, by partition in offset order.
func consumeAll(t *testing.T, cfg cluster.Config, topic string, n int64) map[int32][]*kgo.Record {
	t.Helper()
	cl, err := cluster.NewClient(cfg, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[int32][]*kgo.Record{}
	for read := int64(0); read < n; {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records: %v", read, n, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			out[r.Partition] = append(out[r.Partition], r)
			read++
		})
	}
	return out
}

// BenchmarkProduceSpread is a fill's cost on the in-memory embedded
// broker: 50,000 records of the large profile's shape (500-1500 B values,
// zipf keys, 8 partitions, lz4) through one producer client and through
// two, the split the fill makes on a 2-core machine.
func BenchmarkProduceSpread(b *testing.B) {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 50_000, 50_000, 500, 1500, 8
	spec.KeyOrder = loadgen.KeysZipf
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			cfg, _ := testkafka.Embedded(b)
			opts, _ := loadgen.ProducerOpts("lz4")
			var clients []*kgo.Client
			for range n {
				cl, err := cluster.NewClient(cfg, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer cl.Close()
				clients = append(clients, cl)
			}
			b.SetBytes(50_000 * 1016)
			i := 0
			for b.Loop() {
				i++
				topic := fmt.Sprintf("bench-%d", i)
				if err := cluster.CreateChangelog(context.Background(), kadm.NewClient(clients[0]), topic, spec.Partitions, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := loadgen.ProduceSpread(context.Background(), clients, topic, spec, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
