package topicshape

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/loadgen"
)

// windowed says the topic is read as a window or session store's
// changelog (StateOptions.WindowRetentionMs, SessionRetentionMs): its
// entries expire by stream time.
func (o StateOptions) windowed() bool { return o.retention() > 0 }

// retention is the window or session store's retention the topic is read
// with (0: a key-value store's changelog).
func (o StateOptions) retention() int64 { return max(o.WindowRetentionMs, o.SessionRetentionMs) }

// change is what one keyed record does to its partition's store: key is
// what its entry is digested under, window the time it expires by (read as
// a window store's changelog its window's start, as a session store's its
// session's end), value what the store keeps (nil deletes).
type change struct {
	key, value []byte
	window     int64
}

// changeOf is what keyed record r does to its partition's store, read as
// o says: its entry's key, as the changelog holds it or, read as a window
// store's changelog, the record key and window start
// (loadgen.WindowDigestKey), which a window store's all() returns (a
// session store's entry keeps its changelog key: record key, end, start);
// its value, behind its timestamp when o.TimestampedValue (built in buf);
// live false when it changes nothing the store serves, its window or
// session already past the retention of its partition's stream time, which
// r moves on in clock. A key too short to be a window or session store's
// is an error naming its partition and offset: Kafka Streams' restore of
// it fails too.
func (o StateOptions) changeOf(topic string, r *kgo.Record, clock streamClock, buf *[]byte) (c change, live bool, err error) {
	c.key = r.Key
	if o.windowed() {
		if o.SessionRetentionMs > 0 {
			// Stream time is the largest session end (SessionKeySchema's segment time).
			if _, _, c.window, err = loadgen.SplitSessionKey(r.Key); err != nil {
				return c, false, fmt.Errorf("topic %s partition %d offset %d, read as a session store's changelog: %w", topic, r.Partition, r.Offset, err)
			}
		} else {
			if _, c.window, err = loadgen.SplitWindowKey(r.Key); err != nil {
				return c, false, fmt.Errorf("topic %s partition %d offset %d, read as a window store's changelog: %w", topic, r.Partition, r.Offset, err)
			}
			c.key = loadgen.WindowDigestKey(r.Key)
		}
		clock.advance(r.Partition, c.window)
		if !o.served(c.window, clock.at(r.Partition)) {
			return c, false, nil
		}
	}
	if r.Value != nil {
		c.value, *buf = o.storedValue(r, *buf)
	}
	return c, true, nil
}

// served says whether a window store serves, at stream time stream, an
// entry of the window starting at window (a session store an entry of the
// session ending at window): from stream − retention + 1 on (a key-value
// store's entries always). Stream time never goes back on a restore, so
// an entry not served when its record arrives never is: such a record
// changes nothing the store serves.
func (o StateOptions) served(window, stream int64) bool {
	return !o.windowed() || window >= stream-o.retention()+1
}

// streamClock is each partition's stream time as a window or session
// store's restore moves it: the largest window start (session end) read
// (the segmented store's observedStreamTime, -1 before any record).
type streamClock map[int32]int64

// advance moves partition p's stream time to window when it is later.
func (c streamClock) advance(p int32, window int64) {
	if st, ok := c[p]; !ok || window > st {
		c[p] = window
	}
}

// at is partition p's stream time (-1 before any record).
func (c streamClock) at(p int32) int64 {
	if st, ok := c[p]; ok {
		return st
	}
	return -1
}
