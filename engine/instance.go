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

	"github.com/twmb/franz-go/pkg/kadm"
	"golang.org/x/sync/errgroup"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/internal/statedir"
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
	// Progress, if set, is told the records and bytes restored as the
	// restore goes.
	Progress func(records, bytes int64)
	// OnStore, if set, is told of each task's store as it can be read: while
	// it restores (restoring true; only stores written in place, put and
	// memory: a bulk or ingest load has none to read until it finishes),
	// and once restored (false). Interactive queries read through it.
	OnStore func(partition int32, s Store, restoring bool)

	// wiped, once WipeAfterCrash ran, is why the next WarmRestore finds no
	// store on disk: each task's Fallback.
	wiped string
}

// WipeAfterCrash removes every task's stores from the state directory, as
// Kafka Streams does on restarting after a crash under exactly-once
// (recovery.Whole): the next WarmRestore restores each task as a cold
// restore would, from the log start, with why as the task's Fallback.
func (in *Instance) WipeAfterCrash(why string) error {
	entries, err := os.ReadDir(in.AppDir())
	if err != nil {
		return fmt.Errorf("wiping the stores after the crash: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := os.RemoveAll(filepath.Join(in.AppDir(), e.Name())); err != nil {
				return fmt.Errorf("wiping the stores after the crash: %w", err)
			}
		}
	}
	in.wiped = why
	return nil
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
	for _, e := range ents {
		if !statedir.IsOwnFile(e.Name()) {
			return fmt.Errorf("%s: %w", dir, ErrStateDirNotEmpty)
		}
	}
	return nil
}

// Restored is a finished restore: its measurements and its open stores,
// which the caller verifies and then closes.
type Restored struct {
	// Stores are the restored stores by partition (task 0_<partition>).
	Stores map[int32]Store
	// Tasks are the tasks restored: the offsets each read, whether it
	// restored warm, and the records it applied.
	Tasks []Task
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
	// Isolation is the isolation.level the restore read with; Txn what it
	// met of transactions (counted under mu while it runs).
	Isolation  string
	Txn        TxnCounts
	Series     []measure.Point
	PollWait   *measure.Histogram
	BatchWrite *measure.Histogram

	mu       sync.Mutex
	restored map[int32]int64 // records applied per partition, as the consumers report them
	applied  map[int32]int64 // the next offset each partition has to apply
}

// Close closes every store.
func (r *Restored) Close() {
	for _, s := range r.Stores {
		s.Close()
	}
}

// Offsets is the offsets the restore spanned, over its tasks: records,
// compaction gaps, and transaction markers and aborted records, which take
// offsets too.
func (r *Restored) Offsets() int64 {
	var n int64
	for _, t := range r.Tasks {
		n += max(t.To-t.From, 0)
	}
	return n
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
	tasks := ColdTasks(offsets)
	if err := in.seekByRetention(ctx, tasks); err != nil {
		return nil, err
	}
	return in.restore(ctx, tasks, loaderSpec{Mode: LoadStores})
}

// Checkpointer is a store that records which changelog offset it has
// applied (RocksDB stores; an in-memory store restores fully every time).
type Checkpointer interface {
	CommitOffset(key string, offset int64) error
	CommittedOffset(key string) (int64, bool, error)
}

// WarmRestore is the restart of an instance whose state directory was kept
// (a persistent volume): each task's store is reopened and restored from
// the offset it committed up to the end offsets captured now. As Kafka
// Streams 4.4 does, a store whose offset lies below the changelog's log
// start (deleted away) restores from the log start: under exactly-once
// wiped first, under at-least-once on top of what it kept; a store without
// a committed offset is wiped. The task's Fallback says which. A task
// without a store on disk, and every in-memory store, restores from the
// log start (a window or session store's from the first record within
// its retention, as a cold one: seekFallbacksByRetention).
func (in *Instance) WarmRestore(ctx context.Context, offsets cluster.TopicOffsets) (*Restored, error) {
	if s := in.Case.Strategy; s != config.StrategyPut && s != config.StrategyMemory {
		return nil, fmt.Errorf("a warm restore writes into the kept stores with put; strategy %s cannot", s)
	}
	tasks, existing, err := in.openKept(offsets)
	in.wiped = ""
	if err != nil {
		return nil, err
	}
	if err := in.seekFallbacksByRetention(ctx, tasks); err != nil {
		for _, st := range existing {
			st.Close()
		}
		return nil, err
	}
	return in.restore(ctx, tasks, loaderSpec{Mode: LoadStores, Existing: existing})
}

// openKept reopens the stores kept in the state directory and decides
// where each task's restore starts (see WarmRestore).
func (in *Instance) openKept(offsets cluster.TopicOffsets) ([]Task, map[int32]Store, error) {
	tasks := ColdTasks(offsets)
	existing := map[int32]Store{}
	closeAll := func() {
		for _, st := range existing {
			st.Close()
		}
	}
	for i := range tasks {
		t := &tasks[i]
		if in.Case.Memory() {
			t.Fallback = "in-memory stores restore from the log start"
			continue
		}
		st, err := openKeptStore(in.Case, in.AppDir(), t.ID, in.StoreName)
		if errors.Is(err, errNoKeptStore) {
			t.Fallback = err.Error()
			if in.wiped != "" {
				t.Fallback = in.wiped
			}
			continue
		}
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		off, ok, err := st.CommittedOffset(t.OffsetKey())
		switch {
		case err != nil:
			st.Close()
			closeAll()
			return nil, nil, fmt.Errorf("task %s: %w", t.ID, err)
		case !ok:
			t.Fallback = "the store has no committed offset: wiped, as Kafka Streams does with a corrupted task"
			if in.wiped != "" {
				t.Fallback = in.wiped
			}
		case off+1 < t.From && !in.Case.ExactlyOnce():
			// Kafka Streams under at_least_once resets only the offsets of
			// a task whose offset is out of range: the store keeps its data
			// and the log is applied on top, from its new start.
			t.Fallback = fmt.Sprintf("committed offset %d lies below the log start offset %d: offsets reset, the log restored "+
				"from its start on top of the kept store (at_least_once)", off, t.From)
			existing[t.ID.Partition] = st
			continue
		case off+1 < t.From:
			t.Fallback = fmt.Sprintf("committed offset %d lies below the log start offset %d: store wiped (exactly-once) and restored from the log start", off, t.From)
		case off+1 > t.To:
			t.Fallback = fmt.Sprintf("committed offset %d lies beyond the end offset %d (a different changelog?): wiped", off, t.To)
		default:
			t.From, t.Warm = off+1, true
			existing[t.ID.Partition] = st
			continue
		}
		st.Close()
		if err := os.RemoveAll(taskDir(in.AppDir(), t.ID)); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return tasks, existing, nil
}

// restore runs the tasks' restores with loaders of the given mode and
// finishes them; on success the stores are open in the result, with the
// offsets they applied committed.
func (in *Instance) restore(ctx context.Context, tasks []Task, spec loaderSpec) (*Restored, error) {
	if err := in.stableEnds(ctx, tasks); err != nil {
		for _, st := range spec.Existing {
			st.Close()
		}
		return nil, err
	}
	r, err := in.start(ctx, tasks, spec, nil)
	if err != nil {
		return nil, err
	}
	return r.wait(ctx)
}

// stableEnds lowers, under read_committed, each task's end offset to its
// partition's last stable offset, as Kafka Streams' restore consumer's end
// offsets are then: the records of a transaction still open lie beyond it,
// and a read_committed fetch never returns them. Under read_uncommitted the
// ends stay the high watermarks captured.
func (in *Instance) stableEnds(ctx context.Context, tasks []Task) error {
	if in.Case.IsolationLevel() != config.ReadCommitted || len(tasks) == 0 {
		return nil
	}
	cl, err := cluster.NewClient(in.Cluster)
	if err != nil {
		return err
	}
	defer cl.Close()
	topic := tasks[0].Changelog
	lso, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = lso.Error()
	}
	if err != nil {
		return fmt.Errorf("last stable offsets of %s: %w", topic, err)
	}
	for i := range tasks {
		t := &tasks[i]
		if o, ok := lso.Lookup(topic, t.ID.Partition); ok && o.Offset < t.To {
			t.To = max(o.Offset, t.From)
		}
	}
	return nil
}

// run is a restore (or a standby) under way: its consumers, one per stream
// thread, and what they write into.
type run struct {
	in       *Instance
	tasks    []Task
	spec     loaderSpec
	res      *Restored
	loaders  map[int32]Loader
	counter  measure.Counter
	samplers []*keySampler
	g        *errgroup.Group
	start    time.Time
}

// start opens the tasks' loaders and starts a consumer per stream thread;
// follow, when set, makes them a standby's.
func (in *Instance) start(ctx context.Context, tasks []Task, spec loaderSpec, follow *follower) (*run, error) {
	if err := in.Case.Validate(); err != nil {
		for _, st := range spec.Existing {
			st.Close()
		}
		return nil, err
	}
	spec.Case, spec.AppDir, spec.Store, spec.Tasks = in.Case, in.AppDir(), in.StoreName, len(tasks)
	r := &run{in: in, tasks: tasks, spec: spec, loaders: map[int32]Loader{}}
	r.res = &Restored{Stores: map[int32]Store{}, PollWait: measure.NewHistogram(), BatchWrite: measure.NewHistogram(),
		Isolation: in.Case.IsolationLevel(), restored: map[int32]int64{}, applied: map[int32]int64{}}
	for p, st := range spec.Existing {
		r.loaders[p] = keptLoader(in.Case, st)
		if in.OnStore != nil {
			in.OnStore(p, st, true)
		}
	}
	for _, t := range tasks {
		if _, ok := r.loaders[t.ID.Partition]; ok {
			continue
		}
		l, err := newLoader(spec, t.ID)
		if err != nil {
			r.abort()
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		r.loaders[t.ID.Partition] = l
		if st, ok := readable(l); ok && in.OnStore != nil {
			in.OnStore(t.ID.Partition, st, true)
		}
	}
	r.counter.Start(time.Second)
	r.start = time.Now()
	threads := in.threadTasks(tasks)
	r.samplers = make([]*keySampler, len(threads))
	g, gctx := errgroup.WithContext(ctx)
	r.g = g
	for i, ts := range threads {
		if spec.Mode == LoadStores {
			// Limit measurements serve no reads: no sampling on their hot path.
			r.samplers[i] = newKeySampler(maxSampleKeys/len(threads)+1, int64(i)+1)
		}
		c := restoreConsumer{in: in, tasks: ts, loaders: r.loaders, res: r.res, counter: &r.counter, sampler: r.samplers[i], follow: follow}
		g.Go(func() error { return c.run(gctx) })
	}
	return r, nil
}

func (r *run) abort() {
	for _, l := range r.loaders {
		l.Abort()
	}
}

// wait waits for the consumers, finishes the loads and commits each
// store's applied offset: the offset before a task's end offset for a
// restore, the last offset applied for a standby.
func (r *run) wait(ctx context.Context) (*Restored, error) {
	res := r.res
	err := r.g.Wait()
	res.Load = time.Since(r.start)
	res.Series = r.counter.Stop()
	res.Records, res.Bytes = r.counter.Totals()
	if err != nil {
		r.abort()
		return nil, err
	}
	finishStart := time.Now()
	if err := r.in.finishAll(ctx, r.tasks, r.loaders, res); err != nil {
		r.abort()
		res.Close()
		return nil, err
	}
	res.Finish = time.Since(finishStart)
	res.Duration = res.Load + res.Finish
	res.Tasks = append([]Task(nil), r.tasks...)
	for i := range res.Tasks {
		t := &res.Tasks[i]
		t.Restored = res.restored[t.ID.Partition]
		if next, ok := res.applied[t.ID.Partition]; ok && next > t.To {
			t.To = next // a standby went past the end offsets it started with
		}
		if r.spec.Mode != LoadStores || t.To <= 0 {
			continue
		}
		if cp, ok := res.Stores[t.ID.Partition].(Checkpointer); ok {
			if err := cp.CommitOffset(t.OffsetKey(), t.To-1); err != nil {
				res.Close()
				return nil, err
			}
		}
	}
	for _, ks := range r.samplers {
		if ks != nil {
			res.SampleKeys = append(res.SampleKeys, ks.keys...)
		}
	}
	return res, nil
}

// Standby is an instance's standby tasks at work: their stores follow the
// changelog as it grows, as Kafka Streams' standby replicas do, until Stop.
type Standby struct {
	run    *run
	follow *follower
	stop   chan struct{}
	ctx    context.Context
}

// StartStandby opens the tasks' stores (reopening kept ones from their
// committed offsets, as WarmRestore does) and starts applying the changelog
// from there on, without an end.
func (in *Instance) StartStandby(ctx context.Context, offsets cluster.TopicOffsets) (*Standby, error) {
	tasks, existing, err := in.openKept(offsets)
	if err != nil {
		return nil, err
	}
	f := &follower{hwm: map[int32]int64{}, next: map[int32]int64{}}
	for _, t := range tasks {
		f.next[t.ID.Partition] = t.From
		f.hwm[t.ID.Partition] = t.To
	}
	stop := make(chan struct{})
	f.stop = stop
	r, err := in.start(ctx, tasks, loaderSpec{Mode: LoadStores, Existing: existing}, f)
	if err != nil {
		return nil, err
	}
	return &Standby{run: r, follow: f, stop: stop, ctx: ctx}, nil
}

// Lag returns, per partition and in all, the records the broker holds that
// the standby has not applied yet (as of the last fetch's high watermark).
func (s *Standby) Lag() (total int64, perPartition map[int32]int64) {
	perPartition = s.follow.lag()
	for _, l := range perPartition {
		total += l
	}
	return total, perPartition
}

// WaitApplied waits until the standby has applied every partition up to
// the given end offsets (taken from the broker: a fetch's high watermark can
// lag behind writes), for up to limit; it reports whether it got there.
func (s *Standby) WaitApplied(ctx context.Context, ends map[int32]int64, limit time.Duration) bool {
	return poll.Until(ctx, 20*time.Millisecond, limit, "standby did not apply up to the ends", func(context.Context) (bool, error) {
		s.follow.mu.Lock()
		defer s.follow.mu.Unlock()
		for p, end := range ends {
			if s.follow.next[p] < end {
				return false, nil
			}
		}
		return true, nil
	}) == nil
}

// Applied returns the records and key+value bytes applied until the call.
func (s *Standby) Applied() (records, bytes int64) { return s.run.counter.Totals() }

// Stop stops applying, commits each store's applied offset and returns the
// stores, open, with what was applied (Load is the time the standby ran).
func (s *Standby) Stop() (*Restored, error) {
	close(s.stop)
	return s.run.wait(s.ctx)
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
			if in.OnStore != nil {
				in.OnStore(t.ID.Partition, s, false)
			}
			return nil
		})
	}
	return g.Wait()
}
