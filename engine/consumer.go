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
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// restoreConsumer is one stream thread's restore consumer: it owns tasks
// and is assigned their changelog partitions directly (no group). Restoring,
// it runs until each has reached its captured end offset; following (a
// standby), it applies the changelog as it grows until told to stop.
//
// Fetching and writing overlap as in Kafka's Java consumer, which refetches
// each partition as soon as its buffered data is drained while the stream
// thread writes: a fetcher goroutine drains the client into a queue one
// fetch deep, and the loop takes "polls" of up to BatchRecords records from
// it (max.poll.records), writing each poll's records as one WriteBatch per
// store.
type restoreConsumer struct {
	in      *Instance
	tasks   []Task
	loaders map[int32]Loader // read-only here: one entry per task, written by this consumer only
	res     *Restored
	counter *measure.Counter
	sampler *keySampler
	// follow, when set, makes the consumer a standby's: no end offsets,
	// lag reported, stopped by closing follow.stop.
	follow *follower
}

// follower is a standby consumer's state: the partitions' high watermarks
// and the next offset each has to apply.
type follower struct {
	stop <-chan struct{}
	mu   sync.Mutex
	hwm  map[int32]int64
	next map[int32]int64
}

// lag is, per partition, the records the broker holds that the store has
// not applied yet.
func (f *follower) lag() map[int32]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[int32]int64, len(f.next))
	for p, n := range f.next {
		out[p] = max(f.hwm[p]-n, 0)
	}
	return out
}

// run restores (or, following, applies) the tasks' changelog partitions:
// it assigns them, starts the fetcher and takes polls until done (consume).
func (c *restoreConsumer) run(ctx context.Context) error {
	assign, remaining := c.assignment()
	if len(remaining) == 0 {
		return nil
	}
	topic := c.tasks[0].Changelog
	if c.follow == nil {
		if err := awaitProbeFetch(ctx, c.in.Cluster, c.tasks, c.isolation()); err != nil {
			return err
		}
	}
	cl, err := cluster.NewClient(c.in.Cluster, c.clientOpts(topic, assign)...)
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
	return c.consume(ctx, cl, topic, assign, remaining, fetched)
}

// assignment is where each task's partition starts (its From offset) and
// the end offset it still owes (its To). A restore leaves out tasks with
// nothing to restore; a standby follows every task.
func (c *restoreConsumer) assignment() (assign map[int32]kgo.Offset, remaining map[int32]int64) {
	assign = map[int32]kgo.Offset{}
	remaining = map[int32]int64{} // partition -> end offset still owed
	for _, t := range c.tasks {
		if c.follow == nil && t.To <= t.From {
			continue // nothing to restore
		}
		assign[t.ID.Partition] = kgo.NewOffset().At(t.From)
		remaining[t.ID.Partition] = t.To
	}
	return assign, remaining
}

// clientOpts are the restore consumer's client options: the partitions of
// assign consumed directly, with the case's fetch sizes and the isolation
// level Kafka Streams' restore consumer has under the case's
// processing.guarantee (config.Case.IsolationLevel): read_committed under
// exactly_once_v2, so the records of aborted transactions are fetched but
// dropped, never restored.
func (c *restoreConsumer) clientOpts(topic string, assign map[int32]kgo.Offset) []kgo.Opt {
	cs := c.in.Case
	opts := []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.FetchMaxBytes(int32(cs.FetchMaxBytes)),
		kgo.FetchMaxPartitionBytes(int32(cs.MaxPartitionFetchBytes)),
		// Control records (transaction markers) are kept so a partition whose
		// log ends in a marker is still seen to reach its end offset.
		kgo.KeepControlRecords(),
	}
	if cs.IsolationLevel() == config.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if c.follow != nil {
		// A standby waits for new records: answer within half a second so
		// its lag is current (Kafka's fetch.max.wait.ms is 500 ms too).
		opts = append(opts, kgo.FetchMaxWait(500*time.Millisecond))
	}
	return opts
}

// isolation is the restore consumer's isolation level as the Fetch
// protocol numbers it: 1 read_committed, 0 read_uncommitted.
func (c *restoreConsumer) isolation() int8 {
	if c.in.Case.IsolationLevel() == config.ReadCommitted {
		return 1
	}
	return 0
}

// consume takes polls of up to BatchRecords records from what the fetcher
// hands over and writes them (apply) until no partition owes records
// (restoring) or the standby is stopped (following). A restore that gets
// no records for the stall timeout fails, naming the partitions still
// owed; a restored partition's fetching is paused.
func (c *restoreConsumer) consume(ctx context.Context, cl *kgo.Client, topic string,
	assign map[int32]kgo.Offset, remaining map[int32]int64, fetched <-chan fetchResult) error {
	stall := c.in.StallTimeout
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	batches := map[int32][]Entry{}
	var queue []*kgo.Record
	var stop <-chan struct{}
	if c.follow != nil {
		stop = c.follow.stop
	}
	lastProgress := time.Now()
	for len(remaining) > 0 {
		t0 := time.Now()
		if len(queue) == 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("restore of %s interrupted: %w", topic, ctx.Err())
			case <-stop:
				return nil
			case f := <-fetched:
				if f.err != nil {
					return f.err
				}
				c.noteWatermarks(f.hwm)
				queue = f.records
			case <-time.After(time.Second):
				if c.follow == nil && time.Since(lastProgress) > stall {
					return fmt.Errorf("restore of %s stalled: no records for %s with %s still owed; is the broker up?",
						topic, stall.Round(time.Second), describeOwed(remaining))
				}
				continue
			}
			if len(queue) == 0 {
				continue
			}
		}
		// One poll: up to max.poll.records from the buffered fetches.
		take := queue[:min(len(queue), c.in.Case.BatchRecords)]
		queue = queue[len(take):]
		c.res.PollWait.Record(time.Since(t0))
		lastProgress = time.Now()
		if err := c.apply(take, remaining, batches); err != nil {
			return err
		}
		if c.follow == nil {
			pauseRestored(cl, topic, assign, remaining)
		}
	}
	return nil
}

// pauseRestored stops fetching the partitions of assign that no longer owe
// records, as Kafka Streams pauses restored changelogs, and drops them from
// assign.
func pauseRestored(cl *kgo.Client, topic string, assign map[int32]kgo.Offset, remaining map[int32]int64) {
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

// apply writes one poll's records, each partition's as one WriteBatch. A
// restore takes records only below the end offsets it captured and drops a
// partition from remaining once it reached it; a standby takes them all.
func (c *restoreConsumer) apply(take []*kgo.Record, remaining map[int32]int64, batches map[int32][]Entry) error {
	n, b, txn, next := c.split(take, remaining, batches)
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
	c.res.mu.Lock()
	c.res.Txn.add(txn)
	for p, entries := range batches {
		c.res.restored[p] += int64(len(entries))
	}
	for p, o := range next {
		c.res.applied[p] = o
	}
	c.res.mu.Unlock()
	if c.follow != nil {
		c.follow.mu.Lock()
		for p, o := range next {
			c.follow.next[p] = o
		}
		c.follow.mu.Unlock()
	}
	if c.in.Progress != nil {
		c.in.Progress(c.counter.Totals())
	}
	return nil
}

// split sorts one poll's records into batches by partition (emptied
// first) and returns what it took: records, their key+value bytes, the
// transactional data, and the next offset of each partition. A poll
// holds runs of one partition's records (a fetch returns each
// partition's together), so the partition's batch, end offset and next
// offset are looked up once per run, not once per record.
func (c *restoreConsumer) split(take []*kgo.Record, remaining map[int32]int64, batches map[int32][]Entry) (n, b int64, txn TxnCounts, next map[int32]int64) {
	for p := range batches {
		batches[p] = batches[p][:0]
	}
	next = map[int32]int64{}
	cur := partitionRun{p: -1}
	for _, r := range take {
		if r.Partition != cur.p {
			cur.end(batches, next)
			cur = partitionRun{p: r.Partition, batch: batches[r.Partition], next: -1}
			cur.to, cur.owed = remaining[r.Partition]
		}
		if c.follow == nil {
			if !cur.owed || r.Offset >= cur.to {
				continue // beyond the captured end offset: not part of this restore
			}
			if r.Offset == cur.to-1 {
				delete(remaining, r.Partition)
				cur.owed = false
			}
		}
		cur.next = r.Offset + 1
		if r.Attrs.IsControl() {
			txn.marker(r.Key)
			continue
		}
		if r.Key == nil {
			// Kafka Streams skips a changelog record without a key when it
			// restores (StoreChangelogReader: "Read changelog record with
			// null key ... skipping it for restoration"), active and
			// standby alike: it is neither applied nor counted restored,
			// and its offset is still passed.
			continue
		}
		if r.Attrs.IsTransactional() {
			txn.Records++
		}
		cur.batch = append(cur.batch, Entry{Key: r.Key, Value: r.Value, Timestamp: r.Timestamp.UnixMilli()})
		if r.Value != nil {
			c.sampler.offer(r.Partition, r.Key)
		}
		n++
		b += int64(len(r.Key) + len(r.Value))
	}
	cur.end(batches, next)
	return n, b, txn, next
}

// partitionRun is split's state for the run of one partition's records
// it is in: the partition's batch, its end offset (to, when owed) and
// the next offset after the last record taken (-1: none yet).
type partitionRun struct {
	p     int32
	batch []Entry
	to    int64
	owed  bool
	next  int64
}

// end stores the run's batch and next offset back (nothing for the
// no-partition run split starts with).
func (r partitionRun) end(batches map[int32][]Entry, next map[int32]int64) {
	if r.p < 0 {
		return
	}
	batches[r.p] = r.batch
	if r.next >= 0 {
		next[r.p] = r.next
	}
}

// noteWatermarks records the partitions' high watermarks a fetch reported.
func (c *restoreConsumer) noteWatermarks(hwm map[int32]int64) {
	if c.follow == nil || len(hwm) == 0 {
		return
	}
	c.follow.mu.Lock()
	for p, w := range hwm {
		c.follow.hwm[p] = max(c.follow.hwm[p], w)
	}
	c.follow.mu.Unlock()
}

// fetchResult is what the fetcher hands the loop: the records of everything
// the client had buffered with the partitions' high watermarks, or the
// fetch error that ends the restore.
type fetchResult struct {
	records []*kgo.Record
	hwm     map[int32]int64
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
			fetches.EachPartition(func(p kgo.FetchTopicPartition) {
				if p.Err == nil {
					if res.hwm == nil {
						res.hwm = map[int32]int64{}
					}
					res.hwm[p.Partition] = p.HighWatermark
				}
			})
			res.records = fetches.Records()
			if len(res.records) == 0 && len(res.hwm) == 0 {
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

// TxnCounts are the transactional data a restore met: the transaction
// markers (control records) it read, how many of them ended an aborted
// transaction, and the records of transactional batches it applied (under
// read_committed, committed ones only; under read_uncommitted, aborted
// ones too).
type TxnCounts struct {
	Markers, AbortMarkers, Records int64
}

// marker counts the control record of key: Kafka's control key is a
// version int16 and a type int16, 0 for abort and 1 for commit.
func (t *TxnCounts) marker(key []byte) {
	t.Markers++
	if len(key) >= 4 && key[2] == 0 && key[3] == 0 {
		t.AbortMarkers++
	}
}

func (t *TxnCounts) add(o TxnCounts) {
	t.Markers += o.Markers
	t.AbortMarkers += o.AbortMarkers
	t.Records += o.Records
}
