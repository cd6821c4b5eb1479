package fleet

import (
	"context"
	"sync"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// loadChunkSeconds is how many seconds of records one AppendVia call
// writes: the manifest records each chunk's intent before writing it, so a
// run killed mid-load overstates the changelog by at most one chunk.
const loadChunkSeconds = 10

// Load writes the fill's generator records, continued, to the kv
// topology's input topic at a steady rate until stopped: the write load
// Kafka Streams processes (and appends to the changelog) while instances
// come and go.
type Load struct {
	topic   string
	rate    float64
	Stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	written int64
	chunk   int64 // the records of one AppendVia call
	err     error
	// StartNs and endNs are when writing began and ended (CLOCK_MONOTONIC).
	StartNs, EndNs int64
}

// StartLoad starts writing at rate records a second (nothing at 0).
func StartLoad(ctx context.Context, ch Changer, by, topic string, rate float64) *Load {
	l := &Load{topic: topic, rate: rate, Stop: make(chan struct{}), done: make(chan struct{}), StartNs: ksdriver.NowMonoNs()}
	if rate <= 0 {
		l.EndNs = l.StartNs
		close(l.done)
		return l
	}
	chunk := max(int64(rate*loadChunkSeconds), 1000)
	l.chunk = chunk
	go func() {
		defer close(l.done)
		defer func() { l.EndNs = ksdriver.NowMonoNs() }()
		for {
			n, err := ch.AppendVia(ctx, by, topic, chunk, rate, l.Stop)
			l.mu.Lock()
			l.written += n
			l.err = err
			l.mu.Unlock()
			if err != nil || n < chunk {
				return
			}
		}
	}()
	return l
}

// running reports whether the load is (still) writing.
func (l *Load) running() bool {
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

// Finish stops the writing and waits for it; what was written is then in
// the manifest and acknowledged by the broker.
func (l *Load) Finish() (int64, error) {
	select {
	case <-l.Stop:
	default:
		close(l.Stop)
	}
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written, l.err
}

// MayHaveWritten bounds the records written until now: those of the chunks
// done and the whole chunk under way (its count is known only at its end).
func (l *Load) MayHaveWritten() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written + l.chunk
}

// Record describes the load for results.json.
func (l *Load) Record() *runs.WriteLoad {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &runs.WriteLoad{Topic: l.topic, TargetRate: l.rate, Records: l.written, Seconds: float64(l.EndNs-l.StartNs) / 1e9}
	w.Rate = runs.PerSec(w.Records, w.Seconds)
	return w
}
