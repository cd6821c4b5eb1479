package topicshape

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// MaxEntriesKeys is the most live keys Entries keeps (keys themselves,
// not hashes: a partition with more is not read key by key).
const MaxEntriesKeys = 4 << 20

// ErrTooManyEntries is Entries' error for a partition with more live keys
// than it keeps.
var ErrTooManyEntries = errors.New("has more live keys than a read key by key keeps in memory")

// Entries reads one partition of topic from its log start to end, as
// State does (the same folding: the last value of each key, tombstones
// deleting, null keys skipped, StateOptions' isolation, timestamped values
// and windows), and returns each live key with its entry's hash
// (loadgen.EntryHash). It is the second, key-by-key read that names the
// key a restore got wrong once State's digest of the partition did not
// match: State keeps hashes of keys only, to stay small.
func Entries(ctx context.Context, cfg cluster.Config, topic string, partition int32, end int64, o StateOptions) (map[string]uint64, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = MaxEntriesKeys
	}
	if o.Idle <= 0 {
		o.Idle = stateIdle
	}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	before, err := listTopic(ctx, cl, topic)
	if err != nil {
		return nil, err
	}
	start, ok := before.Start[partition]
	if !ok {
		return nil, fmt.Errorf("topic %s has no partition %d", topic, partition)
	}
	out := map[string]uint64{}
	if end <= start {
		return out, nil
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	ranges := map[int32]cluster.OffsetRange{partition: {From: start, To: end}}
	reached := map[int32]int64{partition: start}
	var buf []byte
	var failed error
	// Read as a window store's changelog: the partition's stream time, and
	// each entry's window start, for the entries served at its end.
	clock := streamClock{}
	windows := map[string]int64{}
	each := func(r *kgo.Record) {
		reached[r.Partition] = r.Offset + 1
		if r.Partition != partition || r.Offset >= end || r.Attrs.IsControl() || r.Key == nil || failed != nil {
			return
		}
		c, live, err := o.changeOf(topic, r, clock, &buf)
		if err != nil {
			failed = err
			stop()
			return
		}
		if !live {
			return
		}
		if c.value == nil {
			delete(out, string(c.key))
			return
		}
		out[string(c.key)] = loadgen.EntryHash(c.key, c.value)
		if o.windowed() {
			windows[string(c.key)] = c.window
		}
		if len(out) > o.MaxKeys {
			failed = fmt.Errorf("partition %d of topic %s %w (%d)", partition, topic, ErrTooManyEntries, o.MaxKeys)
			stop()
		}
	}
	err = before.scan(ctx, cl, cfg, &Shape{Offsets: end - start}, ranges, reached, o.Idle, each, nil, o.readOpts()...)
	if failed != nil {
		return nil, failed
	}
	if err != nil {
		return nil, err
	}
	for k, w := range windows {
		if !o.served(w, clock.at(partition)) {
			delete(out, k)
		}
	}
	return out, nil
}
