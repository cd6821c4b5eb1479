package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Compressions are the producer compression codecs (Kafka's compression.type).
var Compressions = []string{"none", "gzip", "snappy", "lz4", "zstd"}

// CompressionOpt returns the producer option for a compression.type name.
func CompressionOpt(name string) (kgo.Opt, error) {
	switch name {
	case "", "none":
		return kgo.ProducerBatchCompression(kgo.NoCompression()), nil
	case "gzip":
		return kgo.ProducerBatchCompression(kgo.GzipCompression()), nil
	case "snappy":
		return kgo.ProducerBatchCompression(kgo.SnappyCompression()), nil
	case "lz4":
		return kgo.WithCompressor(newJavaLz4()), nil
	case "zstd":
		return kgo.ProducerBatchCompression(kgo.ZstdCompression()), nil
	}
	return nil, fmt.Errorf("compression: %q is not one of none, gzip, snappy, lz4, zstd", name)
}

// ProducerOpts are the client options a fill's producer needs: records go to
// the partition the generator chose (Kafka's default murmur2 partitioner),
// in order, acknowledged by all in-sync replicas (acks=all, idempotent).
func ProducerOpts(compression string) ([]kgo.Opt, error) {
	c, err := CompressionOpt(compression)
	if err != nil {
		return nil, err
	}
	return []kgo.Opt{
		c,
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.MaxBufferedBytes(64 << 20),
		kgo.ProducerBatchMaxBytes(1 << 20),
	}, nil
}

// Progress receives fill progress: records and key+value bytes acknowledged
// until the call. It is called from the producer's callback goroutines.
type Progress func(records, bytes int64)

// Produce writes every record of spec to topic with cl (built with
// ProducerOpts) and returns when all are acknowledged or the first fails.
// The topic must already exist with spec.Partitions partitions.
func Produce(ctx context.Context, cl *kgo.Client, topic string, spec Spec, progress Progress) (FillTotals, error) {
	return ProduceFrom(ctx, cl, topic, spec, 0, progress)
}

// ProduceFrom writes the records of spec from index from on: with from set
// to the number of records a topic already holds from spec's generator, it
// extends that fill (a longer Records) as if it had been written in one go.
// The totals count only what it wrote.
func ProduceFrom(ctx context.Context, cl *kgo.Client, topic string, spec Spec, from int64, progress Progress) (FillTotals, error) {
	return ProduceAt(ctx, cl, topic, spec, from, 0, nil, progress)
}

// ProduceAt is ProduceFrom at a steady rate: perSecond records a second
// (0: as fast as the producer goes), as an application writing its
// changelog would. When the producer cannot keep up it writes as fast as it
// can: the totals' records over the elapsed time say what rate it reached.
// Closing stop ends the writing early but cleanly: what was handed to the
// producer is flushed, so the totals are exactly what the topic received.
func ProduceAt(ctx context.Context, cl *kgo.Client, topic string, spec Spec,
	from int64, perSecond float64, stop <-chan struct{}, progress Progress) (FillTotals, error) {
	return produce(ctx, []*kgo.Client{cl}, topic, spec, from, perSecond, stop, progress, changelogKey)
}

// changelogKey is the key a record has in the changelog.
func changelogKey(r Record) []byte { return r.Key }

// ProduceSpread is Produce over several clients (each built with
// ProducerOpts), partition p's records all through clients[p % len]: each
// partition receives exactly the records, in exactly the order, that
// Produce writes, while each client compresses and sends its batches on
// its own connection goroutine. A single client builds every produce
// request, compression included, on one goroutine per broker, which on
// one broker leaves the fill of a compressed topic bound to one core.
func ProduceSpread(ctx context.Context, clients []*kgo.Client, topic string, spec Spec, progress Progress) (FillTotals, error) {
	if len(clients) == 0 {
		return FillTotals{}, errors.New("produce: no client")
	}
	return produce(ctx, clients, topic, spec, 0, 0, nil, progress, changelogKey)
}

// produce writes spec's records from index from on through clients (see
// ProduceAt and ProduceSpread), each under key(record).
func produce(ctx context.Context, clients []*kgo.Client, topic string, spec Spec,
	from int64, perSecond float64, stop <-chan struct{}, progress Progress,
	key func(Record) []byte) (FillTotals, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return FillTotals{}, err
	}
	if err := g.SkipTo(from); err != nil {
		return FillTotals{}, err
	}
	tot := newFillTotals(spec.Partitions)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	acks := &acker{cancel: cancel, progress: progress}
	start := time.Now()
	var slab recordSlab
	for {
		rec, ok := g.Next()
		if !ok {
			break
		}
		if ctx.Err() != nil || stopped(stop) {
			break
		}
		if perSecond > 0 && !pace(ctx, stop, start, tot.Records, perSecond) {
			break
		}
		k, value := slab.hold(key(rec), rec.Value)
		kr := &kgo.Record{Topic: topic, Partition: rec.Partition, Key: k, Value: value}
		stampRecord(kr, rec)
		tot.add(rec)
		clients[int(rec.Partition)%len(clients)].Produce(ctx, kr, acks.onAck)
	}
	var flushErr error
	for _, cl := range clients {
		if err := cl.Flush(context.WithoutCancel(ctx)); err != nil && flushErr == nil {
			flushErr = err
		}
	}
	if err := acks.err(ctx, flushErr); err != nil {
		return tot, fmt.Errorf("produce to %s: %w", topic, err)
	}
	return tot, nil
}

// recordSlab copies the generator's reused key and value buffers into
// shared blocks, so that a record handed to the producer owns its bytes
// without two allocations of its own. A block stays alive while any
// record in it is buffered; the producer's MaxBufferedBytes bounds how
// many that can be.
type recordSlab struct{ block []byte }

// slabBlock is the size of the blocks recordSlab carves records from.
const slabBlock = 1 << 20

// hold returns copies of key and value. A nil value stays nil (a
// tombstone) and an empty one empty but non-nil (a live key with an
// empty value): in Kafka they differ.
func (s *recordSlab) hold(key, value []byte) ([]byte, []byte) {
	n := len(key) + len(value)
	if n > cap(s.block)-len(s.block) {
		s.block = make([]byte, 0, max(slabBlock, n))
	}
	at := len(s.block)
	s.block = append(append(s.block, key...), value...)
	k := s.block[at : at+len(key) : at+len(key)]
	if value == nil {
		return k, nil
	}
	return k, s.block[at+len(key) : at+n : at+n]
}

// pace waits until the n-th record of a write at perSecond records a
// second from start is due, unless it is due within a millisecond: a
// steady rate, however fast the producer. It reports false when, waiting,
// ctx ended or stop closed.
func pace(ctx context.Context, stop <-chan struct{}, start time.Time, n int64, perSecond float64) bool {
	due := start.Add(time.Duration(float64(n) / perSecond * float64(time.Second)))
	if time.Until(due) <= time.Millisecond {
		return true
	}
	select {
	case <-time.After(time.Until(due)):
	case <-ctx.Done():
	case <-stop:
	}
	return ctx.Err() == nil && !stopped(stop)
}

// acker collects the producer's acknowledgements of a fill, which arrive
// on the producer's callback goroutines: it counts what was acknowledged
// for progress, and keeps the first error, cancelling the fill with it.
type acker struct {
	cancel   context.CancelFunc
	progress Progress

	mu       sync.Mutex
	firstErr error
	acked    struct{ records, bytes int64 }
}

func (a *acker) onAck(r *kgo.Record, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		if a.firstErr == nil {
			a.firstErr = err
			a.cancel()
		}
		return
	}
	a.acked.records++
	a.acked.bytes += int64(len(r.Key) + len(r.Value))
	if a.progress != nil {
		a.progress(a.acked.records, a.acked.bytes)
	}
}

// err is what ended the fill, once flushed with flushErr: the first failed
// acknowledgement, else flushErr, else ctx's end. A failure that is only
// the fill's own cancellation reports the cause of ctx's end instead, when
// ctx's parent ended with one of its own.
func (a *acker) err(ctx context.Context, flushErr error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if flushErr != nil && a.firstErr == nil {
		a.firstErr = flushErr
	}
	if a.firstErr != nil {
		err := a.firstErr
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			if parentErr := context.Cause(ctx); parentErr != nil && !errors.Is(parentErr, context.Canceled) {
				err = parentErr
			}
		}
		return err
	}
	return ctx.Err()
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// stampRecord gives kr rec's event time when its kind sets one; otherwise
// the producer stamps it with its clock.
func stampRecord(kr *kgo.Record, rec Record) {
	if rec.Timestamp != 0 {
		kr.Timestamp = time.UnixMilli(rec.Timestamp)
	}
}
