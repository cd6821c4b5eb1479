package topicshape

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// MaxKeys is the most distinct keys tracked at once (about 40 B each in
// memory); past it the key space is sampled.
const MaxKeys = 1 << 21

// Shape is what a read of a changelog found.
type Shape struct {
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	// Offsets is the end offsets minus the log start offsets: the records a
	// restore fetches through, with compaction gaps and transaction markers.
	Offsets int64 `json:"offsets"`
	// Records and Bytes (key+value) are what was read, every record counted.
	Records int64 `json:"records"`
	Bytes   int64 `json:"bytes"`
	// Tombstones are records with a null value.
	Tombstones int64 `json:"tombstones"`
	// LiveKeys and LiveBytes are the keys whose latest record is not a
	// tombstone and their latest key+value bytes; estimated from the
	// sample when SampleShare is below 1.
	LiveKeys  float64 `json:"live_keys"`
	LiveBytes float64 `json:"live_bytes"`
	// RecordsPerKey is the records read of the sampled keys over their
	// live keys (0 with no live key).
	RecordsPerKey float64 `json:"records_per_live_key"`
	// SampleShare is the share of the key space the live keys were counted
	// over: 1 when every key was tracked, 1/2^n past MaxKeys.
	SampleShare float64 `json:"sample_share"`
	// NullKeys counts records without a key (a store skips them).
	NullKeys int64 `json:"null_keys"`
	// HotRecords are the records whose key is among the
	// loadgen.HotKeyWindow records of its partition before it
	// (loadgen.HotKeys): how skewed the keys are as a restore meets them,
	// every record read counted (not a sample). Nil in a shape read
	// before it was counted.
	HotRecords *int64 `json:"hot_records,omitempty"`
	// IsolationLevel is how the topic was read: read_committed, as Kafka
	// Streams under exactly_once_v2 restores a changelog (the records of
	// aborted transactions are fetched and dropped, never counted). A
	// topic without transactions reads the same either way.
	IsolationLevel string `json:"isolation_level"`
	// Markers counts the transaction markers met, AbortMarkers those that
	// ended an aborted transaction: a topic with markers holds
	// transactions.
	Markers      int64 `json:"markers"`
	AbortMarkers int64 `json:"abort_markers"`
	// OpenOffsets are the offsets past the partitions' last stable offsets
	// when the read began (transactions still open), not read: a
	// read_committed restore ends at the last stable offset.
	OpenOffsets int64 `json:"open_offsets,omitempty"`
	// Seconds is how long the read took.
	Seconds float64 `json:"seconds"`
	// PrefixOf is, for a read bounded by Options.MaxOffsets, the offsets
	// the topic held (Offsets then counts only the prefix read: each
	// partition's first offsets, in proportion to its share); 0 for a
	// whole read. A prefix is not a sample: it holds the oldest, most
	// compacted records, so its records per live key understate the
	// whole topic's.
	PrefixOf int64 `json:"prefix_of_offsets,omitempty"`
	// ReadPartitions are the only partitions read, each whole (a sample:
	// Options.Partitions); nil when every partition was. Offsets,
	// Records, Bytes and the shape are then theirs alone; Partitions still
	// counts the topic's.
	ReadPartitions []int32 `json:"read_partitions,omitempty"`
	// CleanupPolicy is the topic's cleanup.policy as the cluster described
	// it ("compact" for a key-value store's changelog, "compact,delete"
	// for a window or session store's, whose old windows Kafka Streams
	// lets retention delete); empty when the cluster would not say (no
	// DescribeConfigs permission).
	CleanupPolicy string `json:"cleanup_policy,omitempty"`
}

// Segmented reports whether the topic is cleaned as a window or session
// store's changelog is: its cleanup.policy deletes by retention as well
// as compacting. Such a store restores into segments, not into one
// key-value store.
func (s Shape) Segmented() bool {
	return slices.Contains(strings.Split(strings.ReplaceAll(s.CleanupPolicy, " ", ""), ","), "delete")
}

// BytesPerRecord is Bytes over Records.
func (s Shape) BytesPerRecord() float64 {
	if s.Records == 0 {
		return 0
	}
	return float64(s.Bytes) / float64(s.Records)
}

// Transactional reports whether the read met transactions: markers, or a
// transaction still open at the last stable offset.
func (s Shape) Transactional() bool { return s.Markers > 0 || s.OpenOffsets > 0 }

// HotShare is HotRecords over Records, and whether the read counted them.
func (s Shape) HotShare() (float64, bool) {
	if s.HotRecords == nil || s.Records <= 0 {
		return 0, false
	}
	return float64(*s.HotRecords) / float64(s.Records), true
}

// TombstoneShare is Tombstones over Records.
func (s Shape) TombstoneShare() float64 {
	if s.Records == 0 {
		return 0
	}
	return float64(s.Tombstones) / float64(s.Records)
}

// Options tune a read.
type Options struct {
	// Progress, when set, gets a line every ProgressEvery.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Idle ends the read of a partition that delivers nothing for this long
	// before its end offset (its last offsets are transaction markers or
	// were compacted away). Default 5 s.
	Idle time.Duration
	// MaxKeys overrides the package's MaxKeys (tests).
	MaxKeys int
	// MaxOffsets, when positive, bounds the read to about that many
	// offsets: each partition's first ones, in proportion to its share
	// of the topic (Shape.PrefixOf says so). 0 reads the whole topic.
	MaxOffsets int64
	// Partitions, when set, are the only partitions read (a sample of a
	// topic too large to read whole: plan --measure --sample), each
	// whole; Shape.ReadPartitions says so. Nil (default): every partition.
	Partitions []int32
}

// ErrEmpty is returned for a topic that holds no records.
var ErrEmpty = errors.New("holds no records between its log start and end offsets")

// ErrChanged is returned when the topic was deleted, recreated or lost
// records it had not yet been read past while it was read: what was read
// is part of a topic, and no shape is answered from it.
var ErrChanged = errors.New("changed while it was read")

// Read reads topic from its log start offsets to the end offsets it has when
// the read begins, as a restore would, and returns its shape. It reads
// read_committed, as Kafka Streams' restore consumer does under
// exactly_once_v2 (a topic that holds transactions was written by such an
// application): the records of aborted transactions are not counted, and
// the read ends at each partition's last stable offset. A read that ends
// short of a partition's end is read again from where it stopped while
// that brings records; the topic is then checked to be the one whose
// offsets were listed: a topic deleted, recreated or cut below what the
// read had reached fails the read (ErrChanged), naming the topic.
func Read(ctx context.Context, cfg cluster.Config, topic string, o Options) (Shape, error) {
	s, _, err := read(ctx, cfg, topic, o, nil)
	return s, err
}

// ReadWithStates is Read that also applies each partition's records as
// State does with so (its Partitions ignored): with the shape, the state
// a correct restore of each partition read ends with, so a restore of
// them is verified without reading them again. The states are of a topic
// without transactions only (Read reads read_committed, as a restore at
// another isolation level may not): a read that met a transaction, or
// read a prefix, folds none. The folds together keep at most so's
// MaxKeys live keys, as one State read does; a partition whose fold
// would pass that, or whose state State would refuse (a record that is
// not its store kind's), is left out, and one that alone holds more live
// keys than that is named in Folded.TooManyKeys.
func ReadWithStates(ctx context.Context, cfg cluster.Config, topic string, o Options, so StateOptions) (Shape, Folded, error) {
	return read(ctx, cfg, topic, o, &so)
}

// Folded is what ReadWithStates folded of the partitions it read.
type Folded struct {
	// States are the partitions folded whole, each as State reads it.
	States map[int32]TopicState
	// TooManyKeys are the partitions that alone hold more live keys than
	// a State read keeps (StateOptions.MaxKeys): State fails on each with
	// ErrTooManyKeys, so a restore of one is counted, not verified.
	TooManyKeys []int32
	// Offsets are the log start and end offsets the partitions were read
	// between.
	Offsets cluster.TopicOffsets
	// Options are the StateOptions the states were folded with, as given;
	// MaxKeys the live keys the folds kept at most (its default filled).
	Options StateOptions
	MaxKeys int
}

// read is Read, applying each partition's records to a Fold of fold's
// options when fold is set.
func read(ctx context.Context, cfg cluster.Config, topic string, o Options, fold *StateOptions) (Shape, Folded, error) {
	begin := time.Now()
	if o.Idle <= 0 {
		o.Idle = 5 * time.Second
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = MaxKeys
	}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return Shape{}, Folded{}, err
	}
	defer cl.Close()
	before, err := listTopic(ctx, cl, topic)
	if err != nil {
		return Shape{}, Folded{}, err
	}
	s := Shape{Topic: topic, Partitions: len(before.End), IsolationLevel: "read_committed", CleanupPolicy: cleanupPolicy(ctx, cl, topic)}
	if before, err = before.only(o.Partitions); err != nil {
		return s, Folded{}, err
	}
	s.ReadPartitions = o.Partitions
	ranges := s.committedRanges(before)
	if len(ranges) == 0 {
		return s, Folded{}, fmt.Errorf("topic %s %w", topic, ErrEmpty)
	}
	if o.MaxOffsets > 0 && s.Offsets > o.MaxOffsets {
		s.prefix(ranges, o.MaxOffsets)
	}
	k := newKeySet(o.MaxKeys)
	var hot loadgen.HotKeys
	progress := progressLines(o, &s)
	// reached is, per partition, the offset after the last one read.
	reached := map[int32]int64{}
	for p, r := range ranges {
		reached[p] = r.From
	}
	folds := map[int32]*Fold{}
	if fold != nil && s.PrefixOf == 0 {
		for p := range before.End {
			if folds[p], err = NewFold(topic, *fold, []int32{p}); err != nil {
				return s, Folded{}, err
			}
		}
	}
	// The folds together keep at most what one State read keeps
	// (StateOptions.MaxKeys), as the reads they stand for are made one
	// partition at a time: past it, or at a fold's own failure, the fold
	// is dropped with its keys, and its partition is read again later.
	most := fold.maxKeys()
	budget := most
	var tooMany []int32
	each := func(r *kgo.Record) {
		reached[r.Partition] = r.Offset + 1
		if f := folds[r.Partition]; f != nil {
			kept := f.Keys()
			f.Add(r)
			budget -= f.Keys() - kept
			if f.Failed() || budget < 0 {
				if f.Keys() > most {
					tooMany = append(tooMany, r.Partition)
				}
				budget += f.Keys()
				delete(folds, r.Partition)
			}
		}
		if r.Attrs.IsControl() {
			s.marker(r.Key)
			return
		}
		s.add(k, r)
		hot.Add(r.Partition, r.Key)
	}
	opts := []kgo.Opt{
		kgo.FetchMaxBytes(64 << 20),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// Markers take offsets: kept, a partition ending in one is seen
		// to reach its end.
		kgo.KeepControlRecords(),
		// Records removed below the read's position fail the fetch
		// instead of moving it silently past them.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
	}
	if err := before.scan(ctx, cl, cfg, &s, ranges, reached, o.Idle, each, progress, opts...); err != nil {
		return s, Folded{}, err
	}
	k.finish(&s)
	s.HotRecords = &hot.Hot
	s.Seconds = time.Since(begin).Seconds()
	if s.Records == 0 {
		return s, Folded{}, fmt.Errorf("topic %s %w", topic, ErrEmpty)
	}
	if fold == nil {
		return s, Folded{}, nil
	}
	out := foldedStates(folds, before, s.Transactional(), s.Seconds)
	if out.States != nil {
		out.TooManyKeys, out.Options, out.MaxKeys = tooMany, *fold, most
		slices.Sort(out.TooManyKeys)
	}
	return s, out, nil
}

// foldedStates are the states the folds left end with, of offsets listed
// in before, each given its records' share of the read's seconds;
// nothing when the read met a transaction (a marker, an open one, or a
// record written in one: read read_committed, it may have left out
// records a fold of another isolation level would keep), each partition
// a fold refused left out.
func foldedStates(folds map[int32]*Fold, before listing, transactional bool, seconds float64) Folded {
	if transactional {
		return Folded{}
	}
	out := Folded{States: map[int32]TopicState{}, Offsets: before.TopicOffsets}
	var records int64
	for p, f := range folds {
		st, err := f.State(before.Only([]int32{p}))
		if err != nil {
			continue
		}
		if st.Restored[p].Transactional {
			return Folded{} // a transactional record whose markers are gone: read_committed may have left records out
		}
		out.States[p], records = st, records+st.Records
	}
	for p, st := range out.States {
		if records > 0 {
			st.Seconds = seconds * float64(st.Records) / float64(records)
			out.States[p] = st
		}
	}
	return out
}

// committedRanges are the offsets a read_committed read of the listed
// topic reads, each partition's from its log start to its last stable
// offset, those that hold any; it sets s's Offsets to their sum and its
// OpenOffsets to what the open transactions leave past them.
func (s *Shape) committedRanges(before listing) map[int32]cluster.OffsetRange {
	ranges := map[int32]cluster.OffsetRange{}
	for p, end := range before.End {
		if stable := before.stable[p]; stable < end {
			s.OpenOffsets += end - max(stable, before.Start[p])
			end = stable
		}
		if start := before.Start[p]; end > start {
			s.Offsets += end - start
			ranges[p] = cluster.OffsetRange{From: start, To: end}
		}
	}
	return ranges
}

// prefix cuts ranges to about maxOffsets offsets, each partition's first
// ones in proportion to its share (at least one), and says so in s:
// PrefixOf the offsets the topic held, Offsets those left to read.
func (s *Shape) prefix(ranges map[int32]cluster.OffsetRange, maxOffsets int64) {
	s.PrefixOf, s.Offsets = s.Offsets, 0
	for p, r := range ranges {
		if n := max(1, int64(float64(r.To-r.From)*float64(maxOffsets)/float64(s.PrefixOf))); r.From+n < r.To {
			r.To = r.From + n
			ranges[p] = r
		}
		s.Offsets += r.To - r.From
	}
}

// progressLines is the read's progress callback: a line to o.Progress at
// most every o.ProgressEvery with the offsets s has read and the
// partitions left; it writes nothing without both.
func progressLines(o Options, s *Shape) func(left int) {
	lastProgress := time.Now()
	return func(left int) {
		if o.Progress == nil || o.ProgressEvery <= 0 || time.Since(lastProgress) < o.ProgressEvery {
			return
		}
		lastProgress = time.Now()
		fmt.Fprintf(o.Progress, "reading %s: %d of %d offsets (%.0f%%), %d partitions left\n", s.Topic, s.Records, s.Offsets,
			100*float64(s.Records)/float64(s.Offsets), left)
	}
}

// scan reads ranges of the listed topic, calling each for every record,
// again from where a partition stopped short while that brings records,
// checking after every pass that the topic is still the one listed
// (check). reached is each partition's offset after the last one read;
// s names the read in check's errors.
func (l listing) scan(ctx context.Context, cl *kgo.Client, cfg cluster.Config, s *Shape, ranges map[int32]cluster.OffsetRange, reached map[int32]int64,
	idle time.Duration, each func(*kgo.Record), progress func(int), opts ...kgo.Opt) error {
	for left := ranges; len(left) > 0; {
		from := sumOffsets(reached)
		err := cluster.ScanRange(ctx, cfg, l.Topic, left, idle, each, progress, opts...)
		if cerr := l.check(ctx, cl, s, ranges, reached); cerr != nil {
			return cerr
		}
		if err != nil {
			return fmt.Errorf("reading topic %s: %w", l.Topic, err)
		}
		if sumOffsets(reached) == from {
			return nil // what is left brings nothing: compaction gaps at the end
		}
		left = map[int32]cluster.OffsetRange{}
		for p, r := range ranges {
			if reached[p] < r.To {
				left[p] = cluster.OffsetRange{From: reached[p], To: r.To}
			}
		}
	}
	return nil
}

func sumOffsets(m map[int32]int64) int64 {
	var n int64
	for _, o := range m {
		n += o
	}
	return n
}

// listing is what a read starts from: the topic's id, its offsets and
// its partitions' last stable offsets.
type listing struct {
	cluster.TopicOffsets
	id     [16]byte
	stable map[int32]int64
}

func listTopic(ctx context.Context, cl *kgo.Client, topic string) (listing, error) {
	l := listing{}
	adm := kadm.NewClient(cl)
	id, err := topicID(ctx, cl, topic)
	if err != nil {
		return l, err
	}
	l.id = id
	if l.TopicOffsets, err = cluster.Offsets(ctx, adm, topic); err != nil {
		return l, err
	}
	lso, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = lso.Error()
	}
	if err != nil {
		return l, fmt.Errorf("topic %s: last stable offsets: %w", topic, err)
	}
	l.stable = map[int32]int64{}
	for p, end := range l.End {
		l.stable[p] = end
		if o, ok := lso.Lookup(topic, p); ok {
			l.stable[p] = o.Offset
		}
	}
	return l, nil
}

// cleanupPolicy is topic's cleanup.policy, "" when the cluster does not
// describe it (a missing DescribeConfigs permission is not the read's
// failure: the policy only refines what the plan says).
func cleanupPolicy(ctx context.Context, cl *kgo.Client, topic string) string {
	v, _ := topicConfig(ctx, cl, topic, "cleanup.policy")
	return v
}

// topicConfig is the value of topic's config key as the cluster describes
// it (its default when the topic sets none); an error when it cannot be
// described.
func topicConfig(ctx context.Context, cl *kgo.Client, topic, key string) (string, error) {
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return "", err
	}
	rc, err := rcs.On(topic, nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		return "", err
	}
	for _, c := range rc.Configs {
		if c.Key == key && c.Value != nil {
			return *c.Value, nil
		}
	}
	return "", fmt.Errorf("the cluster does not describe its %s", key)
}

// WindowChangelogExtraRetention is how much longer Kafka Streams keeps a
// window store's changelog than the store keeps its windows:
// windowstore.changelog.additional.retention.ms's default, a day.
const WindowChangelogExtraRetention = 24 * time.Hour

// WindowRetention is the retention of the window store whose changelog
// topic is, as Kafka Streams made the topic: its retention.ms minus
// WindowChangelogExtraRetention. An error says why it cannot be told (the
// configs cannot be described, or retention.ms is not longer than a day:
// not a window store's changelog made with the default extra retention),
// for the caller to ask for the store's retention.
func WindowRetention(ctx context.Context, cfg cluster.Config, topic string) (time.Duration, error) {
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	v, err := topicConfig(ctx, cl, topic, "retention.ms")
	if err != nil {
		return 0, fmt.Errorf("topic %s: retention.ms: %w", topic, err)
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("topic %s: retention.ms %q is not a number of milliseconds", topic, v)
	}
	ret := time.Duration(ms)*time.Millisecond - WindowChangelogExtraRetention
	if ms < 0 || ret <= 0 {
		return 0, fmt.Errorf("topic %s: retention.ms is %d, not a day longer than a window or session store's retention as Kafka Streams makes its changelog "+
			"(windowstore.changelog.additional.retention.ms, a day by default)", topic, ms)
	}
	return ret, nil
}

// topicID is topic's id as the cluster has it now (a metadata request of
// its own: kadm answers from the client's metadata cache, which can
// still hold a topic deleted a moment ago), cluster.ErrTopicNotFound when
// it has none.
func topicID(ctx context.Context, cl *kgo.Client, topic string) ([16]byte, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return [16]byte{}, fmt.Errorf("topic %s: metadata: %w", topic, err)
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		err := kerr.ErrorForCode(t.ErrorCode)
		switch {
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			return [16]byte{}, fmt.Errorf("topic %s: %w", topic, cluster.ErrTopicNotFound)
		case err != nil:
			return [16]byte{}, fmt.Errorf("topic %s: metadata: %w", topic, err)
		}
		return t.TopicID, nil
	}
	return [16]byte{}, fmt.Errorf("topic %s: %w", topic, cluster.ErrTopicNotFound)
}

// check fails, with ErrChanged, a read of a topic that is no longer the
// one listed when it began: deleted, created again, or holding less than
// the ranges read (an end offset below the range's, or a log start past
// where the read of an unfinished partition had reached).
func (l listing) check(ctx context.Context, cl *kgo.Client, s *Shape, ranges map[int32]cluster.OffsetRange, reached map[int32]int64) error {
	topic := l.Topic
	read := fmt.Sprintf("%d records of %d offsets read", s.Records, s.Offsets)
	id, err := topicID(ctx, cl, topic)
	if errors.Is(err, cluster.ErrTopicNotFound) {
		return fmt.Errorf("topic %s %w: it was deleted (%s); no answer is taken from part of a topic", topic, ErrChanged, read)
	}
	if err != nil {
		return fmt.Errorf("topic %s: checking it after the read: %w", topic, err)
	}
	if id != l.id {
		return fmt.Errorf("topic %s %w: it was deleted and created again (%s); no answer is taken from part of a topic", topic, ErrChanged, read)
	}
	now, err := cluster.Offsets(ctx, kadm.NewClient(cl), topic)
	if errors.Is(err, cluster.ErrTopicNotFound) {
		return fmt.Errorf("topic %s %w: it was deleted (%s); no answer is taken from part of a topic", topic, ErrChanged, read)
	}
	if err != nil {
		return fmt.Errorf("topic %s: checking it after the read: %w", topic, err)
	}
	parts := make([]int32, 0, len(ranges))
	for p := range ranges {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		r := ranges[p]
		end, ok := now.End[p]
		switch {
		case !ok || end < r.To:
			return fmt.Errorf("topic %s %w: partition %d ends at offset %d, below the %d it ended at when the read began "+
				"(%s); no answer is taken from part of a topic", topic, ErrChanged, p, end, r.To, read)
		case reached[p] < r.To && now.Start[p] > reached[p]:
			return fmt.Errorf("topic %s %w: partition %d's log start moved to offset %d, past the %d the read had reached "+
				"(retention or a records deletion removed records before they were read; %s); no answer is taken "+
				"from part of a topic", topic, ErrChanged, p, now.Start[p], reached[p], read)
		}
	}
	return nil
}

// marker counts the control record of key: Kafka's control key is a
// version int16 and a type int16, 0 for abort and 1 for commit.
func (s *Shape) marker(key []byte) {
	s.Markers++
	if len(key) >= 4 && key[2] == 0 && key[3] == 0 {
		s.AbortMarkers++
	}
}

func (s *Shape) add(k *keySet, r *kgo.Record) {
	s.Records++
	s.Bytes += int64(len(r.Key) + len(r.Value))
	if r.Value == nil {
		s.Tombstones++
	}
	if r.Key == nil {
		s.NullKeys++
		return
	}
	k.add(r.Key, r.Value == nil, int64(len(r.Key)+len(r.Value)))
}

// keyState is what is known of one sampled key.
type keyState struct {
	records int64
	// liveBytes is the latest record's key+value bytes, -1 for a tombstone.
	liveBytes int64
}

// keySet tracks the keys of a sample of the key space: a key is in the
// sample when the low level bits of its hash are zero.
type keySet struct {
	seed  maphash.Seed
	max   int
	level uint
	keys  map[uint64]keyState
}

func newKeySet(max int) *keySet {
	return &keySet{seed: maphash.MakeSeed(), max: max, keys: map[uint64]keyState{}}
}

func (k *keySet) sampled(h uint64) bool { return h&(1<<k.level-1) == 0 }

func (k *keySet) add(key []byte, tombstone bool, bytes int64) {
	h := maphash.Bytes(k.seed, key)
	if !k.sampled(h) {
		return
	}
	st := k.keys[h]
	st.records++
	st.liveBytes = bytes
	if tombstone {
		st.liveBytes = -1
	}
	k.keys[h] = st
	for len(k.keys) > k.max {
		k.level++
		for h := range k.keys {
			if !k.sampled(h) {
				delete(k.keys, h)
			}
		}
	}
}

// finish sets the shape's live figures from the sample.
func (k *keySet) finish(s *Shape) {
	var records, live, liveBytes int64
	for _, st := range k.keys {
		records += st.records
		if st.liveBytes >= 0 {
			live++
			liveBytes += st.liveBytes
		}
	}
	scale := float64(uint64(1) << k.level)
	s.SampleShare = 1 / scale
	s.LiveKeys, s.LiveBytes = float64(live)*scale, float64(liveBytes)*scale
	if live > 0 {
		s.RecordsPerKey = float64(records) / float64(live)
	}
}
