package topicshape

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/loadgen"
)

// windowed says the topic is read as a window store's changelog
// (StateOptions.WindowRetentionMs).
func (o StateOptions) windowed() bool { return o.WindowRetentionMs > 0 }

// storeKey is the key r's entry is digested under and, read as a window
// store's changelog, its window's start: the record key and window start
// (loadgen.WindowDigestKey), which a window store's all() returns; else
// the key as the changelog holds it. A key too short to be a window
// store's is an error naming its partition and offset: Kafka Streams'
// restore of it fails too.
func (o StateOptions) storeKey(topic string, r *kgo.Record) (key []byte, window int64, err error) {
	if !o.windowed() {
		return r.Key, 0, nil
	}
	if _, window, err = loadgen.SplitWindowKey(r.Key); err != nil {
		return nil, 0, fmt.Errorf("topic %s partition %d offset %d, read as a window store's changelog: %w", topic, r.Partition, r.Offset, err)
	}
	return loadgen.WindowDigestKey(r.Key), window, nil
}

// served says whether a window store serves, at stream time stream, an
// entry of the window starting at window: from stream − retention + 1 on
// (a key-value store's entries always). Stream time never goes back on a
// restore, so an entry not served when its record arrives never is: such
// a record changes nothing the store serves.
func (o StateOptions) served(window, stream int64) bool {
	return !o.windowed() || window >= stream-o.WindowRetentionMs+1
}

// streamClock is each partition's stream time as a window store's restore
// moves it: the largest window start read (the segmented store's
// observedStreamTime, -1 before any record).
type streamClock map[int32]int64

// advance moves partition p's stream time to window when it is later, and
// says whether it moved.
func (c streamClock) advance(p int32, window int64) bool {
	st, ok := c[p]
	if ok && window <= st {
		return false
	}
	c[p] = window
	return true
}

// at is partition p's stream time (-1 before any record).
func (c streamClock) at(p int32) int64 {
	if st, ok := c[p]; ok {
		return st
	}
	return -1
}
