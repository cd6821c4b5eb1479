package topicshape

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
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
	// Seconds is how long the read took.
	Seconds float64 `json:"seconds"`
}

// BytesPerRecord is Bytes over Records.
func (s Shape) BytesPerRecord() float64 {
	if s.Records == 0 {
		return 0
	}
	return float64(s.Bytes) / float64(s.Records)
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
}

// ErrEmpty is returned for a topic that holds no records.
var ErrEmpty = errors.New("holds no records between its log start and end offsets")

// Read reads topic from its log start offsets to the end offsets it has when
// the read begins, as a restore would, and returns its shape.
func Read(ctx context.Context, cfg cluster.Config, topic string, o Options) (Shape, error) {
	begin := time.Now()
	if o.Idle <= 0 {
		o.Idle = 5 * time.Second
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = MaxKeys
	}
	offsets, err := topicOffsets(ctx, cfg, topic)
	if err != nil {
		return Shape{}, err
	}
	s := Shape{Topic: topic, Partitions: len(offsets.End)}
	ranges := map[int32]cluster.OffsetRange{}
	for p, end := range offsets.End {
		if start := offsets.Start[p]; end > start {
			s.Offsets += end - start
			ranges[p] = cluster.OffsetRange{From: start, To: end}
		}
	}
	if len(ranges) == 0 {
		return s, fmt.Errorf("topic %s %w", topic, ErrEmpty)
	}
	k := newKeySet(o.MaxKeys)
	lastProgress := time.Now()
	progress := func(left int) {
		if o.Progress == nil || o.ProgressEvery <= 0 || time.Since(lastProgress) < o.ProgressEvery {
			return
		}
		lastProgress = time.Now()
		fmt.Fprintf(o.Progress, "reading %s: %d of %d offsets (%.0f%%), %d partitions left\n", topic, s.Records, s.Offsets, 100*float64(s.Records)/float64(s.Offsets), left)
	}
	if err := cluster.ScanRange(ctx, cfg, topic, ranges, o.Idle, func(r *kgo.Record) { s.add(k, r) }, progress, kgo.FetchMaxBytes(64<<20)); err != nil {
		return s, err
	}
	k.finish(&s)
	s.Seconds = time.Since(begin).Seconds()
	if s.Records == 0 {
		return s, fmt.Errorf("topic %s %w", topic, ErrEmpty)
	}
	return s, nil
}

func topicOffsets(ctx context.Context, cfg cluster.Config, topic string) (cluster.TopicOffsets, error) {
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return cluster.TopicOffsets{}, err
	}
	defer cl.Close()
	return cluster.Offsets(ctx, kadm.NewClient(cl), topic)
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
