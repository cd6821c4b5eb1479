package cluster

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// CopyOptions configure CopyPartitions.
type CopyOptions struct {
	// ReadCommitted reads the source as a read_committed consumer: the
	// records of aborted transactions are not copied. Default: every
	// record (read_uncommitted). Transaction markers are never copied.
	ReadCommitted bool
	// Idle ends the read of a partition that delivered nothing for that
	// long (ScanRange); default 5 s.
	Idle time.Duration
	// MaxBatchBytes is the largest batch written (kgo.ProducerBatchMaxBytes):
	// at least the source topic's max.message.bytes, so any record it
	// holds fits. The copy's batches are as large as the source's on
	// average (sourceBatches), within it; a record too large for them is
	// written in a batch of its own. Default 1 MiB.
	MaxBatchBytes int32
	// Copied, when set, is told the records copied so far.
	Copied func(records int64)
	// Written, when set, is handed each record as it is written to the
	// copy (a transaction marker is not written), in each partition's
	// order: so a caller knows what the copy holds without reading it back
	// (bench folds it with topicshape.Fold). Default: nothing is told.
	Written func(*kgo.Record)
}

// CopyStats are what CopyPartitions wrote of one partition.
type CopyStats struct {
	// Records written; Bytes their key+value+header bytes.
	Records, Bytes int64
}

// CopyPartitions copies verbatim the records of topic from whose offsets
// lie in ranges to the same partitions of topic to (which restorebench
// created): each record's key, value, headers and timestamp as they are,
// a record without a key or a value (a tombstone) as one, in offset order,
// with the compression codec of the first record read. Offsets are not
// kept (a compacted source's gaps close up), nor are transaction markers.
// It returns once every range is read and every record acknowledged by
// the brokers (acks=all, idempotent), with what each partition received.
// Memory is bounded by a fetch and the producer's buffer.
func CopyPartitions(ctx context.Context, cfg Config, from, to string, ranges map[int32]OffsetRange, o CopyOptions) (map[int32]CopyStats, error) {
	if o.Idle <= 0 {
		o.Idle = 5 * time.Second
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = 1 << 20
	}
	w := &copyWriter{cfg: cfg, to: to, o: o, stats: map[int32]CopyStats{}, batches: &sourceBatches{}}
	defer w.close()
	iso := kgo.ReadUncommitted()
	if o.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	opts := []kgo.Opt{kgo.FetchMaxBytes(64 << 20), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.WithHooks(w.batches)}
	err := ScanRange(ctx, cfg, from, ranges, o.Idle, func(r *kgo.Record) { w.write(ctx, r) }, nil, opts...)
	if err == nil {
		err = w.flush(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("copying %s to %s: %w", from, to, err)
	}
	return w.stats, nil
}

// copyWriter writes CopyPartitions' records, its producer opened at the
// first record (with that record's compression codec, and batches of the
// size the source's read until then average).
type copyWriter struct {
	cfg     Config
	to      string
	o       CopyOptions
	batches *sourceBatches
	cl      *kgo.Client
	// batchBytes is cl's batch limit; alone, opened for the first record
	// too large for it, writes such records one at a time with
	// MaxBatchBytes, alones of them so far.
	batchBytes int32
	alone      *kgo.Client
	alones     int64
	// unsent and unsentBytes are the records cl holds since its last
	// flush, and their key and value bytes.
	unsent, unsentBytes int64
	stats               map[int32]CopyStats
	n                   int64
	mu                  sync.Mutex
	err                 error // the first error: opening the producer or a write
}

// sourceBatches counts the source's record batches as the copy fetches
// them (kgo's fetch-batch hook): the copy writes batches as large as
// theirs on average, because how many batches a megabyte holds moves a
// restore's time. Kafka Streams' producer writes batches of up to 16 KiB
// (batch.size); a restore of 512 MB of 500 B records in 16 KiB batches
// took 3.1-3.3 s here, the same records in 1 MB batches 3.3-4.5 s. The
// mean is weighted by bytes (the size of the batch an average byte is
// in: Σ b² / Σ b), so a transaction's marker, a batch of a few dozen
// bytes, barely moves it.
type sourceBatches struct {
	mu            sync.Mutex
	bytes, square float64
}

func (b *sourceBatches) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	n := float64(m.UncompressedBytes)
	b.mu.Lock()
	b.bytes, b.square = b.bytes+n, b.square+n*n
	b.mu.Unlock()
}

// batchHeaderBytes is a record batch's header (magic 2), which a batch
// limit counts and a fetched batch's uncompressed bytes do not.
const batchHeaderBytes = 61

// minCopyBatchBytes is the smallest batch limit a copy takes: Kafka
// Streams' producer's batch.size default (16 KiB). A source of smaller
// batches (an application that writes a record at a time) is copied in
// batches this large, because a copy of batches of one record would take
// a produce round trip a record.
const minCopyBatchBytes = 16 << 10

// limit is the batch limit that writes batches of the source's mean size
// so far (its records, one record's overhead and the header, so a record
// as large as a mean batch fits one), at least minCopyBatchBytes and at
// most most; most before any batch.
func (b *sourceBatches) limit(most int32) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bytes <= 0 {
		return most
	}
	mean := int64(b.square/b.bytes) + batchHeaderBytes + recordOverheadBytes
	return int32(min(int64(most), max(mean, minCopyBatchBytes)))
}

// recordOverheadBytes bounds what a record adds to a batch beyond its
// key, value and headers: its length, attributes, timestamp and offset
// deltas and the key, value and header lengths, as varints.
const recordOverheadBytes = 32

// oversize says r does not fit a batch of limit bytes by itself.
func oversize(r *kgo.Record, limit int32) bool {
	n := batchHeaderBytes + recordOverheadBytes + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value) + 2*binary.MaxVarintLen32
	}
	return n > int(limit)
}

// write copies r, unless it is a transaction marker.
func (w *copyWriter) write(ctx context.Context, r *kgo.Record) {
	if r.Attrs.IsControl() || w.failed() != nil {
		return
	}
	if w.cl == nil {
		w.batchBytes = w.batches.limit(w.o.MaxBatchBytes)
		if w.cl = w.producer(r, w.batchBytes); w.cl == nil {
			return
		}
	}
	out := &kgo.Record{Topic: w.to, Partition: r.Partition, Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp}
	st := w.stats[r.Partition]
	st.Records++
	st.Bytes += int64(len(r.Key) + len(r.Value))
	for _, h := range r.Headers {
		st.Bytes += int64(len(h.Key) + len(h.Value))
	}
	w.stats[r.Partition] = st
	if w.o.Written != nil {
		w.o.Written(out)
	}
	if oversize(out, w.batchBytes) && w.batchBytes < w.o.MaxBatchBytes {
		w.writeAlone(ctx, r, out)
		if w.alones++; w.alones >= tooManyAlone && w.alones*100 > w.n {
			w.largeBatches()
		}
	} else {
		w.produce(ctx, w.cl, out)
		if w.unsent, w.unsentBytes = w.unsent+1, w.unsentBytes+int64(len(out.Key)+len(out.Value)); w.unsent >= flushRecords ||
			w.unsentBytes >= flushBytes {
			w.flushBuffered(ctx)
		}
	}
	if w.n++; w.o.Copied != nil && w.n%1000 == 0 {
		w.o.Copied(w.n)
	}
}

// The copy's producer flushes by hand (kgo.ManualFlushing), once it holds
// flushBytes or flushRecords unsent, so that its batches fill to the
// limit: left to send a batch whenever a request can go, it wrote a copy
// of 994 KB batches in batches of 4 KB to 994 KB, 546 KB on average
// (every other one part-filled), which restored 11 % faster than the
// source (3.02 s against 3.41 s, median of 8). Each flush leaves at most
// one part-filled batch a partition.
const (
	flushBytes   = 32 << 20
	flushRecords = 256 << 10
)

// producer opens a producer of batches of up to batchBytes, compressed
// with r's codec; nil (and the writer failed) when it cannot.
func (w *copyWriter) producer(r *kgo.Record, batchBytes int32) *kgo.Client {
	cl, err := NewClient(w.cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(batchBytes),
		kgo.ManualFlushing(), kgo.MaxBufferedBytes(2*flushBytes), kgo.MaxBufferedRecords(2*flushRecords),
		kgo.ProducerBatchCompression(codecOf(r)), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		w.fail(err)
		return nil
	}
	return cl
}

// tooManyAlone is how many records written alone (over 1 % of those
// written) make the copy give up batches of the source's size: one
// acknowledged write a record is far slower than batches of any size.
const tooManyAlone = 10

// largeBatches writes the rest of the copy in batches of up to
// MaxBatchBytes, through the producer that wrote the records too large
// for the source's batch size (every earlier record is acknowledged).
func (w *copyWriter) largeBatches() {
	if w.alone == nil {
		return
	}
	w.cl.Close()
	w.cl, w.alone, w.batchBytes = w.alone, nil, w.o.MaxBatchBytes
}

// flushBuffered sends what cl holds and waits for it to be acknowledged.
func (w *copyWriter) flushBuffered(ctx context.Context) {
	if err := w.cl.Flush(ctx); err != nil {
		w.fail(err)
	}
	w.unsent, w.unsentBytes = 0, 0
}

// writeAlone writes out (read as r), too large for the copy's batches, in
// a batch of its own, in its place: after every record before it is
// acknowledged, and acknowledged before the next is written.
func (w *copyWriter) writeAlone(ctx context.Context, r, out *kgo.Record) {
	if w.flushBuffered(ctx); w.failed() != nil {
		return
	}
	if w.alone == nil {
		if w.alone = w.producer(r, w.o.MaxBatchBytes); w.alone == nil {
			return
		}
	}
	w.produce(ctx, w.alone, out)
	if err := w.alone.Flush(ctx); err != nil {
		w.fail(err)
	}
}

// produce hands out to cl, the writer failing if its write does.
func (w *copyWriter) produce(ctx context.Context, cl *kgo.Client, out *kgo.Record) {
	cl.Produce(ctx, out, func(_ *kgo.Record, err error) {
		if err != nil {
			w.fail(fmt.Errorf("writing to %s partition %d: %w", w.to, out.Partition, err))
		}
	})
}

// flush waits until every record written is acknowledged.
func (w *copyWriter) flush(ctx context.Context) error {
	if w.cl != nil {
		if err := w.cl.Flush(ctx); err != nil {
			return err
		}
	}
	if w.o.Copied != nil {
		w.o.Copied(w.n)
	}
	return w.failed()
}

func (w *copyWriter) close() {
	for _, cl := range []*kgo.Client{w.cl, w.alone} {
		if cl != nil {
			cl.Close()
		}
	}
}

func (w *copyWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *copyWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// codecOf is the compression codec of r's batch, so the copy's batches are
// decompressed as the source's are when restored.
func codecOf(r *kgo.Record) kgo.CompressionCodec {
	switch r.Attrs.CompressionType() {
	case 1:
		return kgo.GzipCompression()
	case 2:
		return kgo.SnappyCompression()
	case 3:
		return kgo.Lz4Compression()
	case 4:
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}
