package scenario

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

// load writes the fill's generator records, continued, to the kv
// topology's input topic at a steady rate until stopped: the write load
// Kafka Streams processes (and appends to the changelog) while instances
// come and go.
type load struct {
	topic   string
	rate    float64
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	written int64
	chunk   int64 // the records of one AppendVia call
	err     error
	// startNs and endNs are when writing began and ended (CLOCK_MONOTONIC).
	startNs, endNs int64
}

// startLoad starts writing at rate records a second (nothing at 0).
func startLoad(ctx context.Context, ch Changer, by, topic string, rate float64) *load {
	l := &load{topic: topic, rate: rate, stop: make(chan struct{}), done: make(chan struct{}), startNs: ksdriver.NowMonoNs()}
	if rate <= 0 {
		l.endNs = l.startNs
		close(l.done)
		return l
	}
	chunk := max(int64(rate*loadChunkSeconds), 1000)
	l.chunk = chunk
	go func() {
		defer close(l.done)
		defer func() { l.endNs = ksdriver.NowMonoNs() }()
		for {
			n, err := ch.AppendVia(ctx, by, topic, chunk, rate, l.stop)
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
func (l *load) running() bool {
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

// finish stops the writing and waits for it; what was written is then in
// the manifest and acknowledged by the broker.
func (l *load) finish() (int64, error) {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written, l.err
}

// mayHaveWritten bounds the records written until now: those of the chunks
// done and the whole chunk under way (its count is known only at its end).
func (l *load) mayHaveWritten() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written + l.chunk
}

// record describes the load for results.json.
func (l *load) record() *runs.WriteLoad {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &runs.WriteLoad{Topic: l.topic, TargetRate: l.rate, Records: l.written, Seconds: float64(l.endNs-l.startNs) / 1e9}
	w.Rate = runs.PerSec(w.Records, w.Seconds)
	return w
}
