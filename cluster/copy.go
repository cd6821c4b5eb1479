package cluster

import (
	"context"
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
	// holds fits. Default 1 MiB.
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
	w := &copyWriter{cfg: cfg, to: to, o: o, stats: map[int32]CopyStats{}}
	defer w.close()
	iso := kgo.ReadUncommitted()
	if o.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	opts := []kgo.Opt{kgo.FetchMaxBytes(64 << 20), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(kgo.NoResetOffset())}
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
// first record (with that record's compression codec).
type copyWriter struct {
	cfg   Config
	to    string
	o     CopyOptions
	cl    *kgo.Client
	stats map[int32]CopyStats
	n     int64
	mu    sync.Mutex
	err   error // the first error: opening the producer or a write
}

// write copies r, unless it is a transaction marker.
func (w *copyWriter) write(ctx context.Context, r *kgo.Record) {
	if r.Attrs.IsControl() || w.failed() != nil {
		return
	}
	if w.cl == nil {
		cl, err := NewClient(w.cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(w.o.MaxBatchBytes),
			kgo.ProducerBatchCompression(codecOf(r)), kgo.RequiredAcks(kgo.AllISRAcks()))
		if err != nil {
			w.fail(err)
			return
		}
		w.cl = cl
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
	w.cl.Produce(ctx, out, func(_ *kgo.Record, err error) {
		if err != nil {
			w.fail(fmt.Errorf("writing to %s partition %d: %w", w.to, r.Partition, err))
		}
	})
	if w.n++; w.o.Copied != nil && w.n%1000 == 0 {
		w.o.Copied(w.n)
	}
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
	if w.cl != nil {
		w.cl.Close()
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
