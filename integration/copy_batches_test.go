package integration

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
)

// batchSizes counts the record batches a client fetches.
type batchSizes struct{ n, bytes int64 }

func (b *batchSizes) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	b.n++
	b.bytes += int64(m.UncompressedBytes)
}

// meanBatchOf is the mean uncompressed bytes of the batches of partition
// 0 of topic, up to records.
func meanBatchOf(t *testing.T, cfg cluster.Config, topic string, records int64) float64 {
	t.Helper()
	var b batchSizes
	err := cluster.ScanRange(context.Background(), cfg, topic, map[int32]cluster.OffsetRange{0: {From: 0, To: records}}, 5*time.Second,
		func(*kgo.Record) {}, nil, kgo.WithHooks(&b))
	if err != nil || b.n == 0 {
		t.Fatalf("reading %s: %v (%d batches)", topic, err, b.n)
	}
	return float64(b.bytes) / float64(b.n)
}

// TestCopyOnTheBrokerFillsItsBatches: on the real broker, a copy of a
// partition of full 64 KiB batches is written in batches as large (their
// mean within -20 % and +25 % of the source's), neither in batches of the
// topic's 1 MiB limit nor part-filled; batch sizes move a restore's time.
func TestCopyOnTheBrokerFillsItsBatches(t *testing.T) {
	t.Parallel()
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	ctx := context.Background()
	src, dst := fmt.Sprintf("rb-copy-batches-src-%d", time.Now().UnixNano()), fmt.Sprintf("rb-copy-batches-dst-%d", time.Now().UnixNano())
	for _, name := range []string{src, dst} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { adm.DeleteTopics(context.Background(), name) })
		if err := cluster.AwaitTopic(ctx, adm, name, 1); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(64<<10),
		kgo.ManualFlushing(), kgo.MaxBufferedRecords(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const records = 100_000
	for i := range records {
		cl.Produce(ctx, &kgo.Record{Topic: src, Key: []byte(fmt.Sprintf("k%d", i)), Value: bytes.Repeat([]byte{byte(i)}, 480)}, nil)
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	source := meanBatchOf(t, env.Cluster, src, records)
	if _, err := cluster.CopyPartitions(ctx, env.Cluster, src, dst, map[int32]cluster.OffsetRange{0: {From: 0, To: records}},
		cluster.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	if copied := meanBatchOf(t, env.Cluster, dst, records); copied < 0.8*source || copied > 1.25*source {
		t.Fatalf("the copy's batches average %.0f B, the source's %.0f B: want the source's, within -20%% and +25%%", copied, source)
	}
}
