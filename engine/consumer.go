package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/measure"
)

// restoreConsumer is one stream thread's restore consumer: it owns tasks,
// is assigned their changelog partitions directly (no group), and runs
// until each has reached its captured end offset.
//
// Fetching and writing overlap as in Kafka's Java consumer, which refetches
// each partition as soon as its buffered data is drained while the stream
// thread writes: a fetcher goroutine drains the client into a queue one
// fetch deep, and run takes "polls" of up to BatchRecords records from it
// (max.poll.records), writing each poll's records as one WriteBatch per store.
type restoreConsumer struct {
	in      *Instance
	tasks   []Task
	loaders map[int32]Loader // read-only here: one entry per task, written by this consumer only
	res     *Restored
	counter *measure.Counter
	sampler *keySampler
}

func (c *restoreConsumer) run(ctx context.Context) error {
	if len(c.tasks) == 0 {
		return nil
	}
	topic := c.tasks[0].Changelog
	assign := map[int32]kgo.Offset{}
	remaining := map[int32]int64{} // partition -> end offset still owed
	for _, t := range c.tasks {
		if t.To <= t.From {
			continue // nothing to restore
		}
		assign[t.ID.Partition] = kgo.NewOffset().At(t.From)
		remaining[t.ID.Partition] = t.To
	}
	if len(remaining) == 0 {
		return nil
	}
	cs := c.in.Case
	cl, err := cluster.NewClient(c.in.Cluster,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.FetchMaxBytes(int32(cs.FetchMaxBytes)),
		kgo.FetchMaxPartitionBytes(int32(cs.MaxPartitionFetchBytes)),
		// Control records (transaction markers) are kept so a partition whose
		// log ends in a marker is still seen to reach its end offset.
		kgo.KeepControlRecords(),
	)
	if err != nil {
		return err
	}
	defer cl.Close()

	ctx, cancel := context.WithCancel(ctx)
	fetched := make(chan fetchResult, 1)
	var fetcher sync.WaitGroup
	fetcher.Add(1)
	go func() {
		defer fetcher.Done()
		fetchLoop(ctx, cl, topic, fetched)
	}()
	defer fetcher.Wait() // runs after cancel: the fetcher is always joined
	defer cancel()

	stall := c.in.StallTimeout
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	batches := map[int32][]Entry{}
	var queue []*kgo.Record
	lastProgress := time.Now()
	for len(remaining) > 0 {
		t0 := time.Now()
		if len(queue) == 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("restore of %s interrupted: %w", topic, ctx.Err())
			case f := <-fetched:
				if f.err != nil {
					return f.err
				}
				queue = f.records
			case <-time.After(time.Second):
				if time.Since(lastProgress) > stall {
					return fmt.Errorf("restore of %s stalled: no records for %s with %s still owed; is the broker up?",
						topic, stall.Round(time.Second), describeOwed(remaining))
				}
				continue
			}
		}
		// One poll: up to max.poll.records from the buffered fetches.
		take := queue[:min(len(queue), cs.BatchRecords)]
		queue = queue[len(take):]
		c.res.PollWait.Record(time.Since(t0))
		lastProgress = time.Now()
		for p := range batches {
			batches[p] = batches[p][:0]
		}
		var n, b int64
		for _, r := range take {
			end, owed := remaining[r.Partition]
			if !owed || r.Offset >= end {
				continue // beyond the captured end offset: not part of this restore
			}
			if r.Offset == end-1 {
				delete(remaining, r.Partition)
			}
			if r.Attrs.IsControl() {
				continue
			}
			batches[r.Partition] = append(batches[r.Partition], Entry{Key: r.Key, Value: r.Value})
			if r.Value != nil {
				c.sampler.offer(r.Partition, r.Key)
			}
			n++
			b += int64(len(r.Key) + len(r.Value))
		}
		for p, entries := range batches {
			if len(entries) == 0 {
				continue
			}
			t1 := time.Now()
			if err := c.loaders[p].Write(entries); err != nil {
				return err
			}
			c.res.BatchWrite.Record(time.Since(t1))
		}
		c.counter.Add(n, b)
		if c.in.Progress != nil {
			c.in.Progress(c.counter.Totals())
		}
		// Stop fetching partitions that are done, as Kafka Streams pauses
		// restored changelogs.
		var done []int32
		for p := range assign {
			if _, owed := remaining[p]; !owed {
				done = append(done, p)
				delete(assign, p)
			}
		}
		if len(done) > 0 {
			cl.PauseFetchPartitions(map[string][]int32{topic: done})
		}
	}
	return nil
}

// fetchResult is what the fetcher hands the restore loop: the records of
// everything the client had buffered, or the fetch error that ends the restore.
type fetchResult struct {
	records []*kgo.Record
	err     error
}

// fetchLoop drains the client's buffered fetches into out until ctx ends,
// so the client issues its next fetch while earlier records are written.
func fetchLoop(ctx context.Context, cl *kgo.Client, topic string, out chan<- fetchResult) {
	for ctx.Err() == nil {
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		fetches := cl.PollFetches(pollCtx)
		cancel()
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		var res fetchResult
		fetches.EachError(func(t string, p int32, err error) {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return
			}
			if res.err == nil {
				res.err = fmt.Errorf("restore of %s partition %d: fetch: %w", t, p, err)
			}
		})
		if res.err == nil {
			res.records = fetches.Records()
			if len(res.records) == 0 {
				continue
			}
		}
		select {
		case out <- res:
		case <-ctx.Done():
			return
		}
		if res.err != nil {
			return
		}
	}
}

func describeOwed(remaining map[int32]int64) string {
	ps := make([]int, 0, len(remaining))
	for p := range remaining {
		ps = append(ps, int(p))
	}
	sort.Ints(ps)
	return fmt.Sprintf("%d partition(s) %v", len(ps), ps)
}
