package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/measure"
)

// Entry is one key-value change. A nil Value deletes the key (a tombstone);
// an empty, non-nil Value is a live key with an empty value, as in Kafka.
type Entry struct {
	Key   []byte
	Value []byte
	// Timestamp is the changelog record's timestamp in milliseconds: what
	// a timestamped store keeps beside the value.
	Timestamp int64
}

// Store is a key-value state store: what a restore writes into and what
// verification and the ready phase read.
type Store interface {
	// Write applies entries atomically, in order (one WriteBatch).
	Write(entries []Entry) error
	// Get returns key's value and whether the key is live.
	Get(key []byte) ([]byte, bool, error)
	// ForEach visits every live entry in key order. The slices are only
	// valid during the call.
	ForEach(fn func(key, value []byte) error) error
	// Stats returns the store's own figures (zero for stores without any).
	Stats() measure.StoreStats
	// Flush writes buffered writes (memtables) to disk and waits.
	Flush() error
	// Settled reports whether the store has no background work running or
	// owed: no flush or compaction running or pending, no compaction debt,
	// and level 0 below its slowdown trigger. Stores without background
	// work are always settled.
	Settled() bool
	// Close releases the store.
	Close() error
}

// WaitSettled polls s every interval until it reports Settled stable times
// in a row (a compaction is scheduled just after the flush that causes it, so
// one quiet reading is not enough), or ctx ends, or timeout passes.
func WaitSettled(ctx context.Context, s Store, every time.Duration, stable int, timeout time.Duration) error {
	quiet := 0
	err := poll.Until(ctx, every, timeout, "store not settled", func(context.Context) (bool, error) {
		if !s.Settled() {
			quiet = 0
			return false, nil
		}
		quiet++
		return quiet >= stable, nil
	})
	if errors.Is(err, poll.ErrTimeout) {
		st := s.Stats()
		return &SettleTimeoutError{Timeout: timeout, PendingBytes: st.PendingCompactionBytes, L0Files: st.L0Files}
	}
	return err
}

// SettleTimeoutError is a store whose compactions did not settle in time:
// compaction debt that large would stall the application.
type SettleTimeoutError struct {
	Timeout      time.Duration
	PendingBytes int64
	L0Files      int64
}

func (e *SettleTimeoutError) Error() string {
	return fmt.Sprintf("compactions did not settle within %s (pending %d bytes, %d L0 files)", e.Timeout, e.PendingBytes, e.L0Files)
}
