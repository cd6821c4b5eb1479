package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// Instance models one Kafka Streams client: its state directory, its stream
// threads (each with its own restore consumer) and the tasks it is assigned.
type Instance struct {
	// Cluster is how to reach the brokers.
	Cluster cluster.Config
	// StateDir is Kafka Streams' state.dir; the instance's stores live at
	// <state.dir>/<application.id>/<task>/rocksdb/<store>.
	StateDir string
	// AppID is Kafka Streams' application.id.
	AppID string
	// StoreName is the state store's name.
	StoreName string
	// Case is every setting the instance restores with.
	Case config.Case
	// StallTimeout fails a restore when no record arrives for this long
	// while records are still owed (a broker gone away). Default 60 s.
	StallTimeout time.Duration
	// Progress, if set, is told the records and bytes restored so far.
	Progress func(records, bytes int64)
}

// DefaultStallTimeout is how long a restore waits for records still owed.
const DefaultStallTimeout = 60 * time.Second

// AppDir is the application's state directory, <state.dir>/<application.id>.
func (in *Instance) AppDir() string { return filepath.Join(in.StateDir, in.AppID) }

// ErrStateDirNotEmpty is returned when a cold restore would write into
// existing state.
var ErrStateDirNotEmpty = errors.New("state directory is not empty")

// CheckStateDirEmpty fails when the application's state directory already
// holds anything: a cold restore starts from nothing.
func (in *Instance) CheckStateDirEmpty() error {
	dir := in.AppDir()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("%s: %w", dir, ErrStateDirNotEmpty)
	}
	return nil
}

// Restored is a finished restore: its measurements and its open stores,
// which the caller verifies and then closes.
type Restored struct {
	// Stores are the restored stores by partition (task 0_<partition>).
	Stores map[int32]Store
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

// StoreStats sums the stores' figures.
func (r *Restored) StoreStats() measure.StoreStats {
	var t measure.StoreStats
	for _, s := range r.Stores {
		t.Add(s.Stats())
	}
	return t
}

// ColdRestore restores every partition of the changelog into fresh stores,
// as a Kafka Streams instance with no local state does: the end offsets were
// captured first (offsets), then each stream thread's restore consumer reads
// its tasks' partitions from the log start to those offsets, each poll's
// records becoming one WriteBatch per store.
func (in *Instance) ColdRestore(ctx context.Context, offsets cluster.TopicOffsets) (*Restored, error) {
	if err := in.CheckStateDirEmpty(); err != nil {
		return nil, err
	}
	return in.restore(ctx, ColdTasks(offsets), loaderSpec{Mode: LoadStores})
}

// restore runs the tasks' restores with loaders of the given mode and
// finishes them; on success the stores are open in the result.
func (in *Instance) restore(ctx context.Context, tasks []Task, spec loaderSpec) (*Restored, error) {
	if err := in.Case.Validate(); err != nil {
		return nil, err
	}
	spec.Case, spec.AppDir, spec.Store, spec.Tasks = in.Case, in.AppDir(), in.StoreName, len(tasks)
	res := &Restored{Stores: map[int32]Store{}, PollWait: measure.NewHistogram(), BatchWrite: measure.NewHistogram()}
	loaders := map[int32]Loader{}
	abort := func() {
		for _, l := range loaders {
			l.Abort()
		}
	}
	var counter measure.Counter
	counter.Start(time.Second)
	start := time.Now()
	for _, t := range tasks {
		l, err := newLoader(spec, t.ID)
		if err != nil {
			counter.Stop()
			abort()
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		loaders[t.ID.Partition] = l
	}
	threads := in.threadTasks(tasks)
	samplers := make([]*keySampler, len(threads))
	g, gctx := errgroup.WithContext(ctx)
	for i, ts := range threads {
		if spec.Mode == LoadStores {
			// Limit measurements serve no reads: no sampling on their hot path.
			samplers[i] = newKeySampler(maxSampleKeys/len(threads)+1, int64(i)+1)
		}
		c := restoreConsumer{in: in, tasks: ts, loaders: loaders, res: res, counter: &counter, sampler: samplers[i]}
		g.Go(func() error { return c.run(gctx) })
	}
	err := g.Wait()
	res.Load = time.Since(start)
	res.Series = counter.Stop()
	res.Records, res.Bytes = counter.Totals()
	if err != nil {
		abort()
		return nil, err
	}
	finishStart := time.Now()
	if err := in.finishAll(ctx, tasks, loaders, res); err != nil {
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

// threadTasks deals the tasks round-robin to the stream threads, as Kafka
// Streams spreads tasks over its threads; threads without tasks are left out.
func (in *Instance) threadTasks(tasks []Task) [][]Task {
	n := min(in.Case.Threads, max(len(tasks), 1))
	out := make([][]Task, n)
	for i, t := range tasks {
		out[i%n] = append(out[i%n], t)
	}
	return out
}

// finishAll finishes every task's load, Threads at a time, as each stream
// thread would finish its own tasks. The ingest strategy, which Kafka
// Streams does not have, finishes on every core: its finish is CPU work
// (merging and writing SST files) once the changelog is read.
func (in *Instance) finishAll(ctx context.Context, tasks []Task, loaders map[int32]Loader, res *Restored) error {
	workers := in.Case.Threads
	if in.Case.Strategy == config.StrategyIngest {
		workers = max(workers, runtime.NumCPU())
	}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(max(workers, 1))
	for _, t := range tasks {
		g.Go(func() error {
			mu.Lock()
			l := loaders[t.ID.Partition]
			mu.Unlock()
			s, err := l.Finish(ctx)
			mu.Lock()
			defer mu.Unlock()
			delete(loaders, t.ID.Partition)
			if err != nil {
				return fmt.Errorf("task %s: finish %s load: %w", t.ID, in.Case.Strategy, err)
			}
			res.Stores[t.ID.Partition] = s
			return nil
		})
	}
	return g.Wait()
}
