package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
// are compaction gaps or transaction markers). The idle counts from the
// broker's first answer to a fetch: connecting and the first fetch of a
// loaded broker or machine can take longer than the idle that ends a read
// between records, and a read that gave up then would find a topic empty
// (without an answer it ends after firstAnswerWait, or idle if longer).
// After each poll, polled (when set) is told how many partitions are still
// being read.
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
	answered := &fetchAnswered{}
	cl, err := NewClient(cfg, append([]kgo.Opt{kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}), kgo.WithHooks(answered)}, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	lastSeen := time.Now() // before the first record: when the scan began
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
		} else {
			since, wait := lastSeen, max(idle, firstAnswerWait)
			if a := answered.at(); !a.IsZero() {
				wait = idle
				if a.After(since) {
					since = a // idle from the first answer
				}
			}
			if time.Since(since) >= wait {
				return nil
			}
		}
		if polled != nil {
			polled(len(assign))
		}
	}
	return nil
}

// firstAnswerWait bounds ScanRange's wait for the broker's first answer
// to a fetch.
const firstAnswerWait = 30 * time.Second

// fetchAnswered notes when the broker first answered a fetch (a kgo
// HookBrokerRead).
type fetchAnswered struct{ first atomic.Int64 }

// OnBrokerRead notes the first fetch response read without error.
func (f *fetchAnswered) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == int16(kmsg.Fetch) && err == nil {
		f.first.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// at is when the first answer came; zero before.
func (f *fetchAnswered) at() time.Time {
	if n := f.first.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
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
