package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/measure"
)

// RestoreConfig says what to restore and how. Defaults (see
// DefaultRestoreConfig) follow Kafka Streams.
type RestoreConfig struct {
	// Topic is the changelog to restore from.
	Topic string
	// StateDir is Kafka Streams' state.dir; stores live at
	// <state.dir>/<application.id>/0_<partition>/rocksdb/<store>.
	StateDir string
	// AppID is Kafka Streams' application.id. Default "restorebench".
	AppID string
	// StoreName is the store's name. Default "balances".
	StoreName string
	// Store is "rocksdb" (default) or "memory".
	Store string
	// Strategy is how records reach the store: put (default), bulk, ingest
	// or memory. See the Strategy constants.
	Strategy string
	// SortBufferBytes bounds the memory of the ingest strategy's external
	// sort for the whole restore, shared evenly by the partitions (at least
	// 1 MiB each); sorted runs beyond it spill to disk. Default 64 MiB.
	SortBufferBytes int64
	// RocksDB are the options each RocksDB store opens with.
	RocksDB RocksOptions
	// BatchRecords is the restore consumer's max.poll.records: each poll's
	// records become one WriteBatch per store. Default 1000.
	BatchRecords int
	// Threads is how many restore consumers run in parallel, each owning a
	// share of the partitions, as Kafka Streams' stream threads. Default 1.
	Threads int
	// FetchMaxBytes is fetch.max.bytes. Default 52428800 (Kafka's).
	FetchMaxBytes int32
	// MaxPartitionFetchBytes is max.partition.fetch.bytes. Default 1048576.
	MaxPartitionFetchBytes int32
	// StallTimeout fails the restore when no record arrives for this long
	// while records are still owed (a broker gone away). Default 60 s.
	StallTimeout time.Duration
	// Progress, if set, is told the records and bytes restored so far.
	Progress func(records, bytes int64)

	// partitions is the number of partitions being restored (set by ColdRestore).
	partitions int
}

// DefaultRestoreConfig returns Kafka Streams' defaults for a topic.
func DefaultRestoreConfig(topic, stateDir string) RestoreConfig {
	return RestoreConfig{
		Topic:                  topic,
		StateDir:               stateDir,
		AppID:                  "restorebench",
		StoreName:              "balances",
		Store:                  "rocksdb",
		Strategy:               StrategyPut,
		SortBufferBytes:        64 << 20,
		RocksDB:                KStreamsRocksOptions(),
		BatchRecords:           1000,
		Threads:                1,
		FetchMaxBytes:          52428800,
		MaxPartitionFetchBytes: 1048576,
		StallTimeout:           60 * time.Second,
	}
}

// Validate names the first invalid setting.
func (c RestoreConfig) Validate() error {
	switch {
	case c.Topic == "":
		return errors.New("topic: empty")
	case c.StateDir == "":
		return errors.New("state.dir: empty")
	case c.BatchRecords <= 0:
		return fmt.Errorf("batch_records: %d must be positive", c.BatchRecords)
	case c.Threads <= 0:
		return fmt.Errorf("threads: %d must be positive", c.Threads)
	case c.FetchMaxBytes <= 0:
		return fmt.Errorf("fetch.max.bytes: %d must be positive", c.FetchMaxBytes)
	case c.MaxPartitionFetchBytes <= 0:
		return fmt.Errorf("max.partition.fetch.bytes: %d must be positive", c.MaxPartitionFetchBytes)
	case c.Store != "rocksdb" && c.Store != "memory":
		return fmt.Errorf("store: %q is not rocksdb or memory", c.Store)
	case c.Strategy != "" && !isStrategy(c.Strategy):
		return fmt.Errorf("strategy: %q is not one of put, bulk, ingest, memory", c.Strategy)
	case c.Strategy == StrategyIngest && c.SortBufferBytes < 1<<20:
		return fmt.Errorf("sort_buffer: %d bytes is under 1 MiB", c.SortBufferBytes)
	}
	return nil
}

// TaskDir is the task directory of partition p, as Kafka Streams names it
// (sub-topology 0).
func (c RestoreConfig) TaskDir(p int32) string {
	return filepath.Join(c.StateDir, c.AppID, "0_"+strconv.Itoa(int(p)))
}

// StorePath is where partition p's RocksDB store lives.
func (c RestoreConfig) StorePath(p int32) string {
	return filepath.Join(c.TaskDir(p), "rocksdb", c.StoreName)
}

func isStrategy(s string) bool {
	return slices.Contains(Strategies, s) || s == strategyDiscard || s == strategyDump
}

// Restored is a finished restore: its measurements and its open stores,
// which the caller verifies and then closes.
type Restored struct {
	Stores  map[int32]Store
	Offsets cluster.TopicOffsets
	// Duration is the restore phase: Load plus Finish.
	Duration time.Duration
	// Load runs from opening the stores to the last record written.
	Load time.Duration
	// Finish is the strategy's work after the last record (bulk compaction,
	// ingest sort and ingestion); zero for put.
	Finish time.Duration
	// SampleKeys are up to 10,000 live keys seen during the restore, chosen
	// uniformly (reservoir sampling), for read-latency probes.
	SampleKeys []SampledKey
	Records    int64
	Bytes      int64
	Series     []measure.Point
	PollWait   *measure.Histogram
	BatchWrite *measure.Histogram
}

// Close closes every store.
func (r *Restored) Close() {
	for _, s := range r.Stores {
		s.Close()
	}
}

// RocksStats sums RocksDB's figures over the stores (zero for memory stores).
func (r *Restored) RocksStats() measure.RocksDBStats {
	var t measure.RocksDBStats
	for _, s := range r.Stores {
		rs, ok := s.(*RocksStore)
		if !ok {
			continue
		}
		st := rs.Stats()
		t.LiveSSTBytes += st.LiveSSTBytes
		t.TotalSSTBytes += st.TotalSSTBytes
		t.L0Files += st.L0Files
		t.PendingCompactionBytes += st.PendingCompactionBytes
		t.MemtableBytes += st.MemtableBytes
		t.EstimatedKeys += st.EstimatedKeys
		t.StallSeconds += st.StallSeconds
		t.FlushBytes += st.FlushBytes
		t.CompactionWriteBytes += st.CompactionWriteBytes
		t.IngestedBytes += st.IngestedBytes
		t.SortSpillBytes += st.SortSpillBytes
	}
	return t
}

// ErrStateDirNotEmpty is returned when a cold restore would write into
// existing state.
var ErrStateDirNotEmpty = errors.New("state directory is not empty")

// CheckStateDirEmpty fails when the application's state directory already
// holds anything: a cold restore starts from nothing.
func CheckStateDirEmpty(c RestoreConfig) error {
	dir := filepath.Join(c.StateDir, c.AppID)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("%s: %w (use --force to wipe it)", dir, ErrStateDirNotEmpty)
	}
	return nil
}

// ColdRestore restores every partition of the changelog into fresh stores,
// as a Kafka Streams instance with no local state does: the end offsets are
// captured first, then each restore consumer reads its partitions from the
// log start to those offsets, and each poll's records become one WriteBatch
// per store.
func ColdRestore(ctx context.Context, cc cluster.Config, offsets cluster.TopicOffsets, c RestoreConfig) (*Restored, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := CheckStateDirEmpty(c); err != nil {
		return nil, err
	}
	parts := offsets.Partitions()
	c.partitions = len(parts)
	res := &Restored{
		Stores:     map[int32]Store{},
		Offsets:    offsets,
		PollWait:   measure.NewHistogram(),
		BatchWrite: measure.NewHistogram(),
	}
	var counter measure.Counter
	counter.Start(time.Second)
	start := time.Now()
	loaders := map[int32]Loader{}
	abort := func() {
		for _, l := range loaders {
			l.Abort()
		}
	}
	for _, p := range parts {
		l, err := newLoader(c, p)
		if err != nil {
			counter.Stop()
			abort()
			return nil, err
		}
		loaders[p] = l
	}
	samplers := make([]*keySampler, c.Threads)

	// Partitions go round-robin to threads, as tasks spread over stream threads.
	owned := make([][]int32, c.Threads)
	for i, p := range parts {
		owned[i%c.Threads] = append(owned[i%c.Threads], p)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for i, ps := range owned {
		if len(ps) == 0 {
			continue
		}
		if c.Strategy != strategyDiscard && c.Strategy != strategyDump {
			// Limit measurements serve no reads: no sampling on their hot path.
			samplers[i] = newKeySampler(maxSampleKeys/c.Threads+1, int64(i)+1)
		}
		wg.Add(1)
		go func(ps []int32, ks *keySampler) {
			defer wg.Done()
			if err := restoreThread(ctx, cc, c, offsets, ps, loaders, res, &counter, ks); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				errMu.Unlock()
			}
		}(ps, samplers[i])
	}
	wg.Wait()
	res.Load = time.Since(start)
	res.Series = counter.Stop()
	res.Records, res.Bytes = counter.Totals()
	if firstErr != nil {
		abort()
		return nil, firstErr
	}
	finishStart := time.Now()
	if err := finishAll(ctx, c, parts, loaders, res); err != nil {
		abort()
		res.Close()
		return nil, err
	}
	res.Finish = time.Since(finishStart)
	res.Duration = res.Load + res.Finish
	for _, ks := range samplers {
		if ks != nil {
			res.SampleKeys = append(res.SampleKeys, ks.keys...)
		}
	}
	return res, nil
}

// restoreThread is one restore consumer: it owns partitions ps and runs
// until each has reached its captured end offset.
//
// Fetching and writing overlap as in Kafka's Java consumer, which refetches
// each partition as soon as its buffered data is drained while the stream
// thread writes: a fetcher goroutine drains the client into a queue one
// fetch deep, and this goroutine takes "polls" of up to c.BatchRecords
// records from it (max.poll.records), writing each poll's records as one
// WriteBatch per store.
func restoreThread(ctx context.Context, cc cluster.Config, c RestoreConfig, offsets cluster.TopicOffsets, ps []int32,
	loaders map[int32]Loader, res *Restored, counter *measure.Counter, sampler *keySampler) error {
	assign := map[int32]kgo.Offset{}
	remaining := map[int32]int64{} // partition -> end offset still owed
	for _, p := range ps {
		start, end := offsets.Start[p], offsets.End[p]
		if end <= start {
			continue // empty partition: nothing to restore
		}
		assign[p] = kgo.NewOffset().At(start)
		remaining[p] = end
	}
	if len(remaining) == 0 {
		return nil
	}
	cl, err := cluster.NewClient(cc,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.Topic: assign}),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		// Control records (transaction markers) are kept so a partition whose
		// log ends in a marker is still seen to reach its end offset.
		kgo.KeepControlRecords(),
	)
	if err != nil {
		return err
	}
	defer cl.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fetched := make(chan fetchResult, 1)
	go fetchLoop(ctx, cl, c.Topic, fetched)

	stall := c.StallTimeout
	if stall <= 0 {
		stall = 60 * time.Second
	}
	batches := map[int32][]Entry{}
	var queue []*kgo.Record
	lastProgress := time.Now()
	for len(remaining) > 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("restore of %s interrupted: %w", c.Topic, err)
		}
		t0 := time.Now()
		if len(queue) == 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("restore of %s interrupted: %w", c.Topic, ctx.Err())
			case f := <-fetched:
				if f.err != nil {
					return f.err
				}
				queue = f.records
			case <-time.After(time.Second):
				if time.Since(lastProgress) > stall {
					return fmt.Errorf("restore of %s stalled: no records for %s with %s still owed; is the broker up?",
						c.Topic, stall.Round(time.Second), describeOwed(remaining))
				}
				continue
			}
		}
		// One poll: up to max.poll.records from the buffered fetches.
		take := queue[:min(len(queue), c.BatchRecords)]
		queue = queue[len(take):]
		res.PollWait.Record(time.Since(t0))
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
				sampler.offer(r.Partition, r.Key)
			}
			n++
			b += int64(len(r.Key) + len(r.Value))
		}
		for p, entries := range batches {
			if len(entries) == 0 {
				continue
			}
			t1 := time.Now()
			if err := loaders[p].Write(entries); err != nil {
				return err
			}
			res.BatchWrite.Record(time.Since(t1))
		}
		counter.Add(n, b)
		if c.Progress != nil {
			c.Progress(counter.Totals())
		}
		// Stop fetching partitions that are done, as Kafka Streams pauses
		// restored changelogs.
		var done []int32
		for _, p := range ps {
			if _, owed := remaining[p]; !owed {
				if _, was := assign[p]; was {
					done = append(done, p)
					delete(assign, p)
				}
			}
		}
		if len(done) > 0 {
			cl.PauseFetchPartitions(map[string][]int32{c.Topic: done})
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

// finishAll finishes every partition's load, c.Threads at a time, as each
// stream thread would finish its own tasks. The ingest strategy, which Kafka
// Streams does not have, finishes on every core: its finish is CPU work
// (merging and writing SST files) once the changelog is read.
func finishAll(ctx context.Context, c RestoreConfig, parts []int32, loaders map[int32]Loader, res *Restored) error {
	workers := c.Threads
	if c.Strategy == StrategyIngest {
		workers = max(workers, runtime.NumCPU())
	}
	var mu sync.Mutex
	return eachPartition(parts, workers, func(p int32) error {
		mu.Lock()
		l := loaders[p]
		mu.Unlock()
		s, err := l.Finish(ctx)
		mu.Lock()
		defer mu.Unlock()
		delete(loaders, p)
		if err != nil {
			return fmt.Errorf("partition %d: finish %s load: %w", p, c.Strategy, err)
		}
		res.Stores[p] = s
		return nil
	})
}

// eachPartition runs fn for every partition on up to workers goroutines and
// returns the first error; every partition is still visited.
func eachPartition(parts []int32, workers int, fn func(p int32) error) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	work := make(chan int32)
	for i := 0; i < max(workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if err := fn(p); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range parts {
		work <- p
	}
	close(work)
	wg.Wait()
	return first
}
