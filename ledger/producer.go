package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientOptions are the producer client's options beyond the cluster's:
// franz-go's idempotent producer (its default; acks=all), keys hashed with
// murmur2 as Java's default partitioner does, and a short linger. With
// idempotence a retried batch is written once, so an acknowledged
// transaction is in the log exactly once: that is what makes the
// acknowledged log the ground truth.
func ClientOptions() []kgo.Opt {
	return []kgo.Opt{
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(2 * time.Millisecond),
		kgo.RequiredAcks(kgo.AllISRAcks()),
	}
}

// pace is how often the producer tops up to the transactions due by now.
const pace = 2 * time.Millisecond

// Result is what a producer wrote.
type Result struct {
	// Sent were handed to the client; Acked acknowledged by the broker (in
	// the Book); Failed came back with an error.
	Sent, Acked, Failed int64
	// Seconds runs from Start to Stop; Rate is Acked over it.
	Seconds float64
	Rate    float64
}

// Producer writes a Generator's transactions to a topic at a steady rate
// and records each acknowledged one in a Book. Start it, Stop it once.
type Producer struct {
	cl    *kgo.Client
	topic string
	gen   *Generator
	rate  float64
	book  *Book

	start time.Time
	stop  chan struct{}
	done  chan struct{}

	mu       sync.Mutex
	sent     int64
	failed   int64
	firstErr error
	stopped  time.Time
}

// Start begins writing gen's transactions to topic with cl (made with
// ClientOptions) at rate transactions a second, recording acknowledged
// ones in book. When the client cannot keep up it writes as fast as it
// can. ctx ending stops the writing and fails what is not yet sent.
func Start(ctx context.Context, cl *kgo.Client, topic string, gen *Generator, rate float64, book *Book) *Producer {
	p := &Producer{cl: cl, topic: topic, gen: gen, rate: rate, book: book,
		start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(ctx)
	return p
}

// run hands the client every transaction due by now, every pace, until
// stopped, then waits for every acknowledgement.
func (p *Producer) run(ctx context.Context) {
	defer close(p.done)
	tick := time.NewTicker(pace)
	defer tick.Stop()
	for !p.ending(ctx) {
		due := int64(p.rate * time.Since(p.start).Seconds())
		for p.Sent() < due && !p.ending(ctx) {
			p.produce(ctx, p.gen.Next())
		}
		select {
		case <-p.stop:
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	p.mu.Lock()
	p.stopped = time.Now()
	p.mu.Unlock()
	if err := p.cl.Flush(context.WithoutCancel(ctx)); err != nil {
		p.fail(err)
	}
}

// produce hands one transaction to the client; its promise books it.
func (p *Producer) produce(ctx context.Context, t Txn) {
	p.mu.Lock()
	p.sent++
	p.mu.Unlock()
	p.cl.Produce(ctx, &kgo.Record{Topic: p.topic, Key: t.Key(), Value: t.Value()}, func(_ *kgo.Record, err error) {
		if err != nil {
			p.fail(fmt.Errorf("transaction %d: %w", t.ID, err))
			p.mu.Lock()
			p.failed++
			p.mu.Unlock()
			return
		}
		p.book.Ack(t)
	})
}

// ending reports whether the writing must end: Stop was called, ctx ended
// or a transaction failed.
func (p *Producer) ending(ctx context.Context) bool {
	select {
	case <-p.stop:
		return true
	default:
	}
	return ctx.Err() != nil || p.err() != nil
}

func (p *Producer) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.firstErr == nil {
		p.firstErr = err
	}
}

func (p *Producer) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstErr
}

// Sent is how many transactions were handed to the client until the call.
func (p *Producer) Sent() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

// Stop ends the writing, waits until every transaction handed to the
// client is acknowledged or failed, and says what was written. An error
// means some transaction failed: it may or may not be in the log, so the
// Book no longer holds the whole truth.
func (p *Producer) Stop() (Result, error) {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Result{Sent: p.sent, Acked: p.book.Len(), Failed: p.failed, Seconds: p.stopped.Sub(p.start).Seconds()}
	if r.Seconds > 0 {
		r.Rate = float64(r.Acked) / r.Seconds
	}
	if p.firstErr != nil {
		return r, fmt.Errorf("ledger producer to %s: %d of %d transactions not acknowledged, first: %w", p.topic, r.Sent-r.Acked, r.Sent, p.firstErr)
	}
	if r.Acked != r.Sent {
		return r, errors.New("ledger producer: acknowledgements missing after flush")
	}
	return r, nil
}
