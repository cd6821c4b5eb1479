package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// OffsetRange is a half-open range of offsets [From, To).
type OffsetRange struct{ From, To int64 }

// ReadRange returns, per partition, the records of topic whose offsets lie
// in the partition's range, as the log holds them now (compaction may have
// removed some). It returns once every partition has delivered a record at
// or past its last offset in range, or when nothing new arrived for idle.
// opts are further consumer options (kgo.KeepControlRecords to see
// transaction markers, which take offsets).
func ReadRange(ctx context.Context, cfg Config, topic string,
	ranges map[int32]OffsetRange, idle time.Duration, opts ...kgo.Opt) (map[int32][]*kgo.Record, error) {
	out := map[int32][]*kgo.Record{}
	err := ScanRange(ctx, cfg, topic, ranges, idle, func(r *kgo.Record) { out[r.Partition] = append(out[r.Partition], r) }, nil, opts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanRange hands each record of topic whose offset lies in its
// partition's range to each, in offset order per partition, keeping none.
// It returns once every partition has delivered a record at or past its
// last offset in range, or when nothing new arrived for idle (what is left
// are compaction gaps or transaction markers). After each poll, polled
// (when set) is told how many partitions are still being read.
func ScanRange(ctx context.Context, cfg Config, topic string,
	ranges map[int32]OffsetRange, idle time.Duration,
	each func(*kgo.Record), polled func(left int), opts ...kgo.Opt) error {
	assign := map[int32]kgo.Offset{}
	for p, r := range ranges {
		if r.To > r.From {
			assign[p] = kgo.NewOffset().At(r.From)
		}
	}
	if len(assign) == 0 {
		return nil
	}
	cl, err := NewClient(cfg, append([]kgo.Opt{kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign})}, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	lastSeen := time.Now()
	for len(assign) > 0 {
		pollCtx, cancel := context.WithTimeout(ctx, min(idle, time.Second))
		fetches := cl.PollFetches(pollCtx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fetchError(topic, fetches); err != nil {
			return err
		}
		got := false
		fetches.EachRecord(func(r *kgo.Record) {
			rg, ok := ranges[r.Partition]
			if !ok || r.Offset < rg.From {
				return
			}
			got = true
			if r.Offset < rg.To {
				each(r)
			}
			if r.Offset >= rg.To-1 {
				delete(assign, r.Partition) // the range is behind us
			}
		})
		if got {
			lastSeen = time.Now()
		} else if time.Since(lastSeen) >= idle {
			break
		}
		if polled != nil {
			polled(len(assign))
		}
	}
	return nil
}

// fetchError is a poll's first error other than its own deadline.
func fetchError(topic string, fetches kgo.Fetches) error {
	var ferr error
	fetches.EachError(func(_ string, p int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && ferr == nil {
			ferr = fmt.Errorf("topic %s partition %d: %w", topic, p, err)
		}
	})
	return ferr
}
