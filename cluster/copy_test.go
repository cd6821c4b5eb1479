package cluster

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCopyPartitionsVerbatim copies two of a topic's four partitions to a
// topic of the same partition count on kfake: the copy holds, in order,
// every record of those partitions as it was (a record without a key, a
// tombstone, an empty value, headers, the timestamps), the other
// partitions of the copy hold nothing, the source is unchanged, the
// figures returned count what was written, and CopyOptions.Written was
// handed exactly the records the copy holds, in order (bench checks a
// copy by them instead of reading it back).
func TestCopyPartitionsVerbatim(t *testing.T) {
	f := newOwnedFixture(t)
	ctx := context.Background()
	f.srcAndDst(t, 4)
	cl := f.producer(t)
	var written []*kgo.Record
	for p := int32(0); p < 4; p++ {
		for i := range 5 {
			r := &kgo.Record{Topic: "src", Partition: p, Key: []byte(fmt.Sprintf("k%d-%d", p, i)), Value: []byte(fmt.Sprintf("v%d", i)),
				Timestamp: time.UnixMilli(int64(1000*int(p) + i + 1))}
			switch i {
			case 1:
				r.Key = nil // no key
			case 2:
				r.Value = nil // a tombstone
			case 3:
				r.Value = []byte{} // an empty, live value
				r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("x")}, {Key: "empty"}}
			}
			written = append(written, r)
		}
	}
	if err := cl.ProduceSync(ctx, written...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	ranges := map[int32]OffsetRange{1: {From: 0, To: 5}, 3: {From: 0, To: 5}}
	told := map[int32][]*kgo.Record{}
	stats, err := CopyPartitions(ctx, f.cfg, "src", "dst", ranges, CopyOptions{Idle: time.Second,
		Written: func(r *kgo.Record) { told[r.Partition] = append(told[r.Partition], r) }})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadRange(ctx, f.cfg, "dst", map[int32]OffsetRange{0: {0, 5}, 1: {0, 5}, 2: {0, 5}, 3: {0, 5}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 0 || len(got[2]) != 0 {
		t.Fatalf("partitions 0 and 2 of the copy hold %d and %d records; they were not copied", len(got[0]), len(got[2]))
	}
	for _, p := range []int32{1, 3} {
		want := written[p*5 : p*5+5]
		if len(got[p]) != len(want) {
			t.Fatalf("partition %d: the copy holds %d records, want %d", p, len(got[p]), len(want))
		}
		var wantBytes int64
		for i, w := range want {
			g := got[p][i]
			if !sameBytes(g.Key, w.Key) || !sameBytes(g.Value, w.Value) || !g.Timestamp.Equal(w.Timestamp) || !sameHeaders(g.Headers, w.Headers) {
				t.Fatalf("partition %d record %d: copied key %q value %q ts %v headers %v; the source's %q %q %v %v",
					p, i, g.Key, g.Value, g.Timestamp, g.Headers, w.Key, w.Value, w.Timestamp, w.Headers)
			}
			if tw := told[p]; len(tw) != len(want) || !sameBytes(tw[i].Key, g.Key) || !sameBytes(tw[i].Value, g.Value) ||
				!tw[i].Timestamp.Equal(g.Timestamp) || !sameHeaders(tw[i].Headers, g.Headers) {
				t.Fatalf("partition %d record %d: Written was told %d records, not the %d the copy holds in its order", p, i, len(tw), len(want))
			}
			wantBytes += int64(len(w.Key) + len(w.Value))
			for _, h := range w.Headers {
				wantBytes += int64(len(h.Key) + len(h.Value))
			}
		}
		if s := stats[p]; s.Records != 5 || s.Bytes != wantBytes {
			t.Fatalf("partition %d: reported %d records, %d bytes; wrote 5, %d", p, s.Records, s.Bytes, wantBytes)
		}
	}
	if len(stats) != 2 || len(told) != 2 {
		t.Fatalf("stats for %d partitions, want the 2 copied", len(stats))
	}
	ends, err := f.adm.ListEndOffsets(ctx, "src")
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset != 5 {
			t.Fatalf("source partition %d ends at %d after the copy, want 5", o.Partition, o.Offset)
		}
	})
}

// sameBytes is bytes.Equal that also tells nil (no key, a tombstone) from
// empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func sameHeaders(a, b []kgo.RecordHeader) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// srcAndDst creates the topics "src" and "dst" of partitions partitions
// on f's cluster.
func (f *ownedFixture) srcAndDst(t *testing.T, partitions int32) {
	t.Helper()
	for _, name := range []string{"src", "dst"} {
		if _, err := f.adm.CreateTopic(context.Background(), partitions, 1, nil, name); err != nil {
			t.Fatal(err)
		}
		if err := AwaitTopic(context.Background(), f.adm, name, partitions); err != nil {
			t.Fatal(err)
		}
	}
}

// producer is a client of f's cluster that writes to the partition each
// record names, closed when the test ends.
func (f *ownedFixture) producer(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := NewClient(f.cfg, append([]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// batchCounter counts the record batches a client fetches.
type batchCounter struct{ n, bytes int64 }

func (b *batchCounter) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	b.n++
	b.bytes += int64(m.UncompressedBytes)
}

// meanBatch is the mean uncompressed bytes of partition 0's batches of
// topic, and how many records it holds, in order, with their values.
func meanBatch(t *testing.T, cfg Config, topic string, records int64) (float64, [][]byte) {
	t.Helper()
	var bc batchCounter
	var values [][]byte
	err := ScanRange(context.Background(), cfg, topic, map[int32]OffsetRange{0: {From: 0, To: records}}, time.Second,
		func(r *kgo.Record) { values = append(values, r.Value) }, nil, kgo.WithHooks(&bc))
	if err != nil || bc.n == 0 {
		t.Fatalf("reading %s: %v (%d batches)", topic, err, bc.n)
	}
	return float64(bc.bytes) / float64(bc.n), values
}

// TestCopyWritesBatchesOfTheSourcesSize: a source written in small
// batches (as Kafka Streams' producer writes its changelogs, 16 KiB at
// most) is copied in batches of about its size, not in batches of the
// 1 MiB limit (the batch size moves a restore's time); a record larger than those batches
// is copied in its place, in a batch of its own. Batches sent as soon as a
// request can go would be part-filled every other time.
func TestCopyWritesBatchesOfTheSourcesSize(t *testing.T) {
	f := newOwnedFixture(t)
	ctx := context.Background()
	f.srcAndDst(t, 1)
	cl := f.producer(t, kgo.ProducerBatchMaxBytes(32<<10))
	var written []*kgo.Record
	for i := range 20000 {
		v := bytes.Repeat([]byte{byte(i)}, 500)
		if i == 1000 {
			v = bytes.Repeat([]byte{'L'}, 100_000) // larger than the source's batches
		}
		written = append(written, &kgo.Record{Topic: "src", Key: []byte(fmt.Sprintf("k%d", i)), Value: v})
	}
	big, alone := written[1000], kgo.Record{Topic: "src", Key: written[1000].Key, Value: written[1000].Value}
	if err := cl.ProduceSync(ctx, written[:1000]...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	one := f.producer(t)
	if err := one.ProduceSync(ctx, &alone).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, written[1001:]...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	source, _ := meanBatch(t, f.cfg, "src", 20000)
	if _, err := CopyPartitions(ctx, f.cfg, "src", "dst", map[int32]OffsetRange{0: {From: 0, To: 20000}}, CopyOptions{Idle: time.Second}); err != nil {
		t.Fatal(err)
	}
	copied, values := meanBatch(t, f.cfg, "dst", 20000)
	if copied > 1.25*source || copied < 0.8*source {
		t.Errorf("the copy's batches average %.0f B, the source's %.0f B: want the source's, within -20%% and +25%%", copied, source)
	}
	if len(values) != 20000 || !bytes.Equal(values[1000], big.Value) || !bytes.Equal(values[999], written[999].Value) || !bytes.Equal(values[1001], written[1001].Value) {
		t.Fatalf("the copy holds %d records; the large one in its place: %v", len(values), len(values) > 1000 && bytes.Equal(values[1000], big.Value))
	}
}

// TestCopyBatchLimitFitsTheSourcesRecords: the copy's batch limit is the
// source's mean batch by bytes, so a source of one 20 KB record a batch
// (Kafka Streams' 16 KiB batch.size under larger values) is copied in
// batches that fit such a record, not one acknowledged write a record;
// transaction markers (a few dozen bytes a batch) barely move it; the
// limit is at least 16 KiB and at most the topic's.
func TestCopyBatchLimitFitsTheSourcesRecords(t *testing.T) {
	feed := func(sizes ...int) *sourceBatches {
		b := &sourceBatches{}
		for _, n := range sizes {
			b.OnFetchBatchRead(kgo.BrokerMetadata{}, "t", 0, kgo.FetchBatchMetrics{UncompressedBytes: n})
		}
		return b
	}
	rec := &kgo.Record{Key: []byte("k1"), Value: bytes.Repeat([]byte{1}, 20_000)}
	ones := feed(20_027, 20_027, 20_027)
	if l := ones.limit(1 << 20); oversize(rec, l) {
		t.Errorf("batches of one 20 KB record: limit %d does not fit such a record", l)
	}
	if l := feed(99_000, 20, 99_000, 20, 99_000, 20).limit(1 << 20); l < 99_000 || l > 100_000 {
		t.Errorf("99 KB batches with transaction markers: limit %d, want about 99 KB", l)
	}
	if l := feed(200, 200).limit(1 << 20); l != minCopyBatchBytes {
		t.Errorf("batches of 200 B: limit %d, want the 16 KiB floor", l)
	}
	if l := feed(4 << 20).limit(1 << 20); l != 1<<20 {
		t.Errorf("batches over the topic's limit: %d, want it", l)
	}
	if l := feed().limit(1 << 20); l != 1<<20 {
		t.Errorf("no batch read: %d, want the topic's limit", l)
	}
}

// TestCopyOfManyLargeRecordsKeepsTheirOrder: a source whose records are
// often larger than its mean batch (more than 1 % of them) is copied
// with the rest in large batches after the first few alone, every record
// in its place.
func TestCopyOfManyLargeRecordsKeepsTheirOrder(t *testing.T) {
	f := newOwnedFixture(t)
	ctx := context.Background()
	f.srcAndDst(t, 1)
	cl := f.producer(t, kgo.ProducerBatchMaxBytes(32<<10))
	big := f.producer(t)
	var want [][]byte
	for i := range 3000 {
		v := bytes.Repeat([]byte{byte(i)}, 200)
		w := cl
		if i%50 == 25 {
			v, w = append(bytes.Repeat([]byte{'L'}, 60_000), byte(i)), big
		}
		want = append(want, v)
		if err := w.ProduceSync(ctx, &kgo.Record{Topic: "src", Key: []byte(fmt.Sprintf("k%d", i)), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := CopyPartitions(ctx, f.cfg, "src", "dst", map[int32]OffsetRange{0: {From: 0, To: 3000}}, CopyOptions{Idle: time.Second}); err != nil {
		t.Fatal(err)
	}
	_, got := meanBatch(t, f.cfg, "dst", 3000)
	if len(got) != len(want) {
		t.Fatalf("the copy holds %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d of the copy is not the source's (%d B, want %d B)", i, len(got[i]), len(want[i]))
		}
	}
}
