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
	// Idle, MaxKeys: as Options (MaxKeys default MaxStateKeys).
	Idle    time.Duration
	MaxKeys int
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
	// Seconds is how long the read took.
	Seconds float64
}

// entry is one key's latest record: its pair's hash (loadgen.EntryHash)
// and key+value bytes; bytes -1 is a tombstone.
type entry struct {
	hash  uint64
	bytes int64
}

// State reads topic from its log start to the end offsets it has when the
// read begins, independently of any restore (a consumer of its own, no
// group), and returns per partition the state a correct restore of it
// ends with, as Kafka Streams applies a changelog: the last value of each
// key, a tombstone deleting it, a record without a key skipped (Kafka
// Streams skips null keys when it restores), aborted transactions as
// StateOptions.ReadCommitted says. The digest is the one both engines
// report of their stores (loadgen.Digest over loadgen.EntryHash), so a
// restore of a topic restorebench did not fill is verified like a fill's.
// Keys are kept by a 64-bit hash (two keys sharing one, about 3 in a
// million at 10 M keys, would fail a correct restore, never pass a wrong
// one). A topic changed while it is read fails (ErrChanged), as Read does.
func State(ctx context.Context, cfg cluster.Config, topic string, o StateOptions) (TopicState, error) {
	begin := time.Now()
	if o.Idle <= 0 {
		o.Idle = 5 * time.Second
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = MaxStateKeys
	}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return TopicState{}, err
	}
	defer cl.Close()
	before, err := listTopic(ctx, cl, topic)
	if err != nil {
		return TopicState{}, err
	}
	st := TopicState{Ends: map[int32]int64{}}
	ranges := map[int32]cluster.OffsetRange{}
	var offsets int64
	for p, end := range before.End {
		if o.ReadCommitted {
			end = min(end, max(before.stable[p], before.Start[p]))
		}
		st.Ends[p] = end
		if start := before.Start[p]; end > start {
			offsets += end - start
			ranges[p] = cluster.OffsetRange{From: start, To: end}
		}
	}
	// A topic past MaxKeys stops the read at once: its answer is known.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	seed := maphash.MakeSeed()
	live := map[int32]map[uint64]entry{}
	for p := range before.End {
		live[p] = map[uint64]entry{}
	}
	var kept int
	var buf []byte
	var tooMany error
	// shape names the read in the topic check's errors: what it had read.
	shape := &Shape{Offsets: offsets}
	reached := map[int32]int64{}
	for p, r := range ranges {
		reached[p] = r.From
	}
	each := func(r *kgo.Record) {
		reached[r.Partition] = r.Offset + 1
		if r.Attrs.IsControl() || tooMany != nil {
			return
		}
		st.Records++
		shape.Records = st.Records
		if r.Key == nil {
			st.NullKeys++
			return
		}
		m := live[r.Partition]
		h := maphash.Bytes(seed, r.Key)
		_, had := m[h]
		if r.Value == nil {
			if had {
				delete(m, h)
				kept--
			}
			return
		}
		v := r.Value
		if o.TimestampedValue {
			buf = loadgen.AppendTimestamped(buf[:0], r.Timestamp.UnixMilli(), r.Value)
			v = buf
		}
		m[h] = entry{hash: loadgen.EntryHash(r.Key, v), bytes: int64(len(r.Key) + len(v))}
		if !had {
			if kept++; kept > o.MaxKeys {
				tooMany = fmt.Errorf("topic %s %w (%d)", topic, ErrTooManyKeys, o.MaxKeys)
				stop()
			}
		}
	}
	iso := kgo.ReadUncommitted()
	if o.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	opts := []kgo.Opt{kgo.FetchMaxBytes(64 << 20), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(kgo.NoResetOffset())}
	err = before.scan(ctx, cl, cfg, shape, ranges, reached, o.Idle, each, nil, opts...)
	if tooMany != nil {
		return st, tooMany
	}
	if err != nil {
		return st, err
	}
	parts := make([]int32, 0, len(live))
	for p := range live {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		ps := loadgen.PartitionState{Partition: p}
		for _, e := range live[p] {
			ps.Keys++
			ps.LiveBytes += e.bytes
			ps.Digest += loadgen.Digest(e.hash)
		}
		st.Partitions = append(st.Partitions, ps)
	}
	st.Seconds = time.Since(begin).Seconds()
	return st, nil
}
