package loadgen

import (
	"bytes"
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
		return kgo.ProducerBatchCompression(kgo.Lz4Compression()), nil
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
// so far. It is called from the producer's callback goroutines.
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
func ProduceAt(ctx context.Context, cl *kgo.Client, topic string, spec Spec, from int64, perSecond float64, stop <-chan struct{}, progress Progress) (FillTotals, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return FillTotals{}, err
	}
	if err := g.SkipTo(from); err != nil {
		return FillTotals{}, err
	}
	tot := FillTotals{PerPart: make([]PartitionCount, spec.Partitions)}
	for p := range tot.PerPart {
		tot.PerPart[p].Partition = int32(p)
	}
	var (
		mu       sync.Mutex
		firstErr error
		acked    struct{ records, bytes int64 }
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	onAck := func(r *kgo.Record, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = err
				cancel()
			}
			return
		}
		acked.records++
		acked.bytes += int64(len(r.Key) + len(r.Value))
		if progress != nil {
			progress(acked.records, acked.bytes)
		}
	}
	start := time.Now()
	for {
		rec, ok := g.Next()
		if !ok {
			break
		}
		if ctx.Err() != nil || stopped(stop) {
			break
		}
		if perSecond > 0 {
			// Pace: the n-th record is due n/perSecond after the start.
			if due := start.Add(time.Duration(float64(tot.Records) / perSecond * float64(time.Second))); time.Until(due) > time.Millisecond {
				select {
				case <-time.After(time.Until(due)):
				case <-ctx.Done():
				case <-stop:
				}
				if ctx.Err() != nil || stopped(stop) {
					break
				}
			}
		}
		// bytes.Clone keeps an empty value empty (a live key with an empty
		// value) and a nil one nil (a tombstone): in Kafka they differ.
		kr := &kgo.Record{Topic: topic, Partition: rec.Partition, Key: bytes.Clone(rec.Key), Value: bytes.Clone(rec.Value)}
		if rec.Value == nil {
			tot.Tombstones++
		}
		tot.Records++
		tot.Bytes += int64(len(rec.Key) + len(rec.Value))
		tot.PerPart[rec.Partition].Records++
		cl.Produce(ctx, kr, onAck)
	}
	if err := cl.Flush(context.WithoutCancel(ctx)); err != nil && firstErr == nil {
		firstErr = err
	}
	mu.Lock()
	defer mu.Unlock()
	if firstErr != nil {
		if errors.Is(firstErr, context.Canceled) && ctx.Err() != nil {
			if parentErr := context.Cause(ctx); parentErr != nil && !errors.Is(parentErr, context.Canceled) {
				firstErr = parentErr
			}
		}
		return tot, fmt.Errorf("produce to %s: %w", topic, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return tot, fmt.Errorf("produce to %s: %w", topic, err)
	}
	return tot, nil
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
