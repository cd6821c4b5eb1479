package topicshape

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// MaxStateKeys is the most live keys State keeps (about 40 B each): a
// topic with more is not verified (ErrTooManyKeys) rather than read into
// unbounded memory.
const MaxStateKeys = 16 << 20

// ErrTooManyKeys is State's error for a topic with more live keys than it
// keeps.
var ErrTooManyKeys = errors.New("has more live keys than an independent read keeps in memory")

// StateOptions tune State.
type StateOptions struct {
	// ReadCommitted reads as Kafka Streams' restore consumer does under
	// exactly_once_v2: the records of aborted transactions are left out
	// and each partition is read to its last stable offset. False reads
	// read_uncommitted, as the restore consumer does under at_least_once:
	// an aborted transaction's records are restored too.
	ReadCommitted bool
	// TimestampedValue digests each value behind its record's timestamp
	// (8 bytes, big-endian milliseconds), as a timestamped key-value
	// store keeps it (loadgen.AppendTimestamped). Default false: the
	// value as the changelog holds it.
	TimestampedValue bool
	// WindowRetentionMs, above 0, reads the topic as a window store's
	// changelog (Stores.persistentWindowStore without duplicates) of that
	// retention: each key is the record key, the window start and a
	// sequence number (loadgen.SplitWindowKey); an entry is digested under
	// the record key and window start (loadgen.WindowDigestKey), and a
	// window starting at or before its partition's stream time (the
	// largest window start read) minus the retention is left out, as the
	// store's all() leaves it out after a restore. 0 (default): a
	// key-value store's changelog.
	WindowRetentionMs int64
	// SessionRetentionMs, above 0, reads the topic as a session store's
	// changelog (Stores.persistentSessionStore) of that retention: each
	// key is the record key, the session end and its start
	// (loadgen.SplitSessionKey), digested whole, and a session ending at
	// or before its partition's stream time (the largest session end
	// read) minus the retention is left out, as the store's fetch leaves
	// it out after a restore. 0 (default): not a session store's. At most
	// one of it and WindowRetentionMs is set.
	SessionRetentionMs int64
	// Idle, MaxKeys: as Options (MaxKeys default MaxStateKeys).
	Idle    time.Duration
	MaxKeys int
	// Partitions, when set, are the only partitions read (a restore of a
	// sample of the topic's partitions is verified against them): the
	// others are never fetched, and the state holds these only. One the
	// topic does not have fails the read. Nil (default): every partition.
	Partitions []int32
}

// TopicState is what a correct restore of a topic ends with, and the end
// offsets it was read to.
type TopicState struct {
	Partitions []loadgen.PartitionState
	// Ends are the offsets read to: a restore that captures other ends
	// (the topic was written meanwhile) restores another state.
	Ends map[int32]int64
	// Records are the records read (markers, and under ReadCommitted the
	// records of aborted transactions, apart), NullKeys those without a key.
	Records, NullKeys int64
	// HotRecords are the records whose key is among the
	// loadgen.HotKeyWindow records of its partition before it
	// (loadgen.HotKeys): how skewed the keys are, as a restore meets them.
	HotRecords int64
	// Seconds is how long the read took.
	Seconds float64
	// Restored is, per partition read, what a cold restore of it from the
	// same log start to the same end reads, as the engines count it
	// (engine.Count): so a restore's count of the bytes it read can be
	// taken from this read instead of reading again.
	Restored map[int32]RestoreCount
}

// RestoreCount is what a cold restore of one partition reads of it
// between From and To, counted as the engines count a restore: the
// records with a key (Kafka Streams skips the others) and their key+value
// bytes. Transactional says the read met a marker or a transactional
// record, which a restore's count also tallies and this one does not.
type RestoreCount struct {
	From, To       int64
	Records, Bytes int64
	Transactional  bool
}

// entry is one key's latest record: its pair's hash (loadgen.EntryHash),
// key+value bytes and, read as a window store's changelog, its window's
// start.
type entry struct {
	hash   uint64
	bytes  int64
	window int64
}

// State reads topic from its log start to the end offsets it has when the
// read begins, independently of any restore (a consumer of its own, no
// group), and returns per partition the state a correct restore of it
// ends with, as Kafka Streams applies a changelog: the last value of each
// key, a tombstone deleting it, a record without a key skipped (Kafka
// Streams skips null keys when it restores), aborted transactions as
// StateOptions.ReadCommitted says; read as a window store's changelog
// (StateOptions.WindowRetentionMs), the windows the store no longer serves
// left out. The digest is the one both engines
// report of their stores (loadgen.Digest over loadgen.EntryHash), so a
// restore of a topic restorebench did not fill is verified like a fill's.
// Keys are kept by a 64-bit hash (two keys sharing one, about 3 in a
// million at 10 M keys, would fail a correct restore, never pass a wrong
// one). A topic changed while it is read fails (ErrChanged), as Read does.
func State(ctx context.Context, cfg cluster.Config, topic string, o StateOptions) (TopicState, error) {
	begin := time.Now()
	if err := o.check(); err != nil {
		return TopicState{}, err
	}
	if o.Idle <= 0 {
		o.Idle = stateIdle
	}
	o.MaxKeys = o.maxKeys()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return TopicState{}, err
	}
	defer cl.Close()
	before, err := listTopic(ctx, cl, topic)
	if err != nil {
		return TopicState{}, err
	}
	if before, err = before.only(o.Partitions); err != nil {
		return TopicState{}, err
	}
	ends, ranges, offsets := stateRanges(before, o.ReadCommitted)
	st := TopicState{Ends: ends}
	// A topic past MaxKeys stops the read at once: its answer is known.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// The shape names the read in the topic check's errors: what it had read.
	lk := newLiveKeys(topic, o, before, &st, &Shape{Offsets: offsets}, stop)
	reached := map[int32]int64{}
	for p, r := range ranges {
		reached[p] = r.From
	}
	each := func(r *kgo.Record) {
		reached[r.Partition] = r.Offset + 1
		lk.add(r)
	}
	err = before.scan(ctx, cl, cfg, lk.shape, ranges, reached, o.Idle, each, nil, o.readOpts()...)
	if lk.failed != nil {
		return st, lk.failed
	}
	if err != nil {
		return st, err
	}
	st = lk.state()
	st.Seconds = time.Since(begin).Seconds()
	return st, nil
}

// only is the listing restricted to partitions ps (nil: all of them), so
// a read of it fetches nothing else; a partition the topic lacks is an
// error naming it and the topic's partition count.
func (l listing) only(ps []int32) (listing, error) {
	if ps == nil {
		return l, nil
	}
	for _, p := range ps {
		if _, ok := l.End[p]; !ok {
			return l, fmt.Errorf("topic %s has no partition %d (it has %d partitions)", l.Topic, p, len(l.End))
		}
	}
	l.TopicOffsets = l.TopicOffsets.Only(ps)
	stable := map[int32]int64{}
	for _, p := range ps {
		stable[p] = l.stable[p]
	}
	l.stable = stable
	return l, nil
}

// check refuses options that read the topic as two kinds of store.
func (o StateOptions) check() error {
	if o.WindowRetentionMs > 0 && o.SessionRetentionMs > 0 {
		return errors.New("topicshape: a topic is read as a window store's changelog or a session store's, not both")
	}
	return nil
}

// maxKeys is MaxKeys with its default; a nil o's is the default.
func (o *StateOptions) maxKeys() int {
	if o == nil || o.MaxKeys <= 0 {
		return MaxStateKeys
	}
	return o.MaxKeys
}

// stateIdle is StateOptions.Idle's default.
const stateIdle = 5 * time.Second

// readOpts are the consumer options of a read as the restore consumer
// reads: its isolation level, control records kept (a transaction's
// markers move the offsets), no reset past the log start.
func (o StateOptions) readOpts() []kgo.Opt {
	iso := kgo.ReadUncommitted()
	if o.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	return []kgo.Opt{kgo.FetchMaxBytes(64 << 20), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(kgo.NoResetOffset())}
}

// storedValue is r's value as the store keeps it: behind its timestamp
// when o.TimestampedValue (built in buf, returned for reuse), else as the
// changelog holds it.
func (o StateOptions) storedValue(r *kgo.Record, buf []byte) (v, reuse []byte) {
	if !o.TimestampedValue {
		return r.Value, buf
	}
	buf = loadgen.AppendTimestamped(buf[:0], r.Timestamp.UnixMilli(), r.Value)
	return buf, buf
}

// stateRanges are the offsets State reads of each partition listed: ends
// each one's end offset, or under read_committed its last stable offset
// (not below its log start); ranges those from the log start to it of the
// partitions that hold any, offsets their sum.
func stateRanges(before listing, readCommitted bool) (ends map[int32]int64, ranges map[int32]cluster.OffsetRange, offsets int64) {
	ends = map[int32]int64{}
	ranges = map[int32]cluster.OffsetRange{}
	for p, end := range before.End {
		if readCommitted {
			end = min(end, max(before.stable[p], before.Start[p]))
		}
		ends[p] = end
		if start := before.Start[p]; end > start {
			offsets += end - start
			ranges[p] = cluster.OffsetRange{From: start, To: end}
		}
	}
	return ends, ranges, offsets
}

// liveKeys applies a topic's records as a restore does, keeping each
// partition's live keys by hash with their latest record, and counts the
// records read into st and shape. Past o.MaxKeys live keys, or at a key
// that is not a window store's when o reads one, it stops the read (stop)
// and says why in failed, reading nothing more.
type liveKeys struct {
	topic string
	o     StateOptions
	seed  maphash.Seed
	live  map[int32]map[uint64]entry
	// kept is the live keys over all partitions; buf holds a timestamped
	// value.
	kept  int
	buf   []byte
	hot   loadgen.HotKeys
	st    *TopicState
	shape *Shape
	stop  context.CancelFunc
	// clock is each partition's stream time, expired the stream time its
	// entries of windows no longer served were last forgotten at (read as
	// a window store's changelog).
	clock, expired streamClock
	// failed is why the read stopped early: too many live keys, or a key
	// that is not a window store's.
	failed error
	// counts are each partition's RestoreCount so far.
	counts map[int32]*RestoreCount
}

// newLiveKeys is a liveKeys with no key yet of each partition listed.
func newLiveKeys(topic string, o StateOptions, before listing, st *TopicState, shape *Shape, stop context.CancelFunc) *liveKeys {
	lk := &liveKeys{topic: topic, o: o, seed: maphash.MakeSeed(), live: map[int32]map[uint64]entry{}, st: st, shape: shape, stop: stop,
		clock: streamClock{}, expired: streamClock{}, counts: map[int32]*RestoreCount{}}
	for p := range before.End {
		lk.live[p] = map[uint64]entry{}
		lk.counts[p] = &RestoreCount{From: before.Start[p], To: st.Ends[p]}
	}
	return lk
}

// add applies r: a marker is skipped, a record without a key counted and
// skipped, a tombstone deletes its key, any other record sets its key's
// entry (its value behind its timestamp when o.TimestampedValue). Read as
// a window store's changelog, r moves its partition's stream time, and a
// record of a window no longer served changes nothing.
func (lk *liveKeys) add(r *kgo.Record) {
	if lk.failed != nil {
		return
	}
	lk.count(r)
	if r.Attrs.IsControl() {
		return
	}
	lk.st.Records++
	lk.shape.Records = lk.st.Records
	lk.hot.Add(r.Partition, r.Key)
	lk.st.HotRecords = lk.hot.Hot
	if r.Key == nil {
		lk.st.NullKeys++
		return
	}
	c, live, err := lk.o.changeOf(lk.topic, r, lk.clock, &lk.buf)
	if err != nil {
		lk.fail(err)
		return
	}
	lk.expire(r.Partition)
	if !live {
		return
	}
	m := lk.live[r.Partition]
	h := maphash.Bytes(lk.seed, c.key)
	_, had := m[h]
	if c.value == nil {
		if had {
			delete(m, h)
			lk.kept--
		}
		return
	}
	m[h] = entry{hash: loadgen.EntryHash(c.key, c.value), bytes: int64(len(c.key) + len(c.value)), window: c.window}
	if !had {
		if lk.kept++; lk.kept > lk.o.MaxKeys {
			lk.fail(fmt.Errorf("topic %s %w (%d)", lk.topic, ErrTooManyKeys, lk.o.MaxKeys))
		}
	}
}

// count adds r to its partition's RestoreCount as a restore counts it:
// a marker or a transactional record marks the count Transactional; a
// record with a key (a tombstone too) counts, with its key+value bytes.
func (lk *liveKeys) count(r *kgo.Record) {
	c := lk.counts[r.Partition]
	if c == nil {
		return
	}
	if r.Attrs.IsControl() || r.Attrs.IsTransactional() {
		c.Transactional = true
	}
	if !r.Attrs.IsControl() && r.Key != nil {
		c.Records++
		c.Bytes += int64(len(r.Key) + len(r.Value))
	}
}

// fail stops the read with err: nothing more is applied.
func (lk *liveKeys) fail(err error) {
	lk.failed = err
	lk.stop()
}

// expire forgets partition p's entries of windows no longer served, read
// as a window store's changelog, once its stream time has moved a
// retention past the last time it did: the entries a window store's
// changelog holds past the store's retention (its topic keeps them a day
// longer) need not fill memory.
func (lk *liveKeys) expire(p int32) {
	if !lk.o.windowed() {
		return
	}
	st := lk.clock.at(p)
	if last, ok := lk.expired[p]; ok && st-last < lk.o.retention() {
		return
	}
	lk.expired[p] = st
	for h, e := range lk.live[p] {
		if !lk.o.served(e.window, st) {
			delete(lk.live[p], h)
			lk.kept--
		}
	}
}

// state is what the records applied leave: the counts so far with each
// partition's state and restore count.
func (lk *liveKeys) state() TopicState {
	st := *lk.st
	st.Partitions = lk.partitionStates()
	st.Restored = map[int32]RestoreCount{}
	for p, c := range lk.counts {
		st.Restored[p] = *c
	}
	return st
}

// partitionStates are the partitions' states in partition order: each
// one's live keys, their bytes and their digest.
func (lk *liveKeys) partitionStates() []loadgen.PartitionState {
	parts := make([]int32, 0, len(lk.live))
	for p := range lk.live {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	var out []loadgen.PartitionState
	for _, p := range parts {
		ps := loadgen.PartitionState{Partition: p}
		for _, e := range lk.live[p] {
			if !lk.o.served(e.window, lk.clock.at(p)) {
				continue
			}
			ps.Keys++
			ps.LiveBytes += e.bytes
			ps.Digest += loadgen.Digest(e.hash)
		}
		out = append(out, ps)
	}
	return out
}
