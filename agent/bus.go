package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
)

// TopicRetention is how long the control and events topics keep records
// when this package creates them: a run reads only what is written while
// it runs, so an hour is plenty and keeps the topics small.
const TopicRetention = time.Hour

// bus is one client that writes to and reads from the control and events
// topics, reading each from where it ended when the bus opened: nothing
// older is ever acted on.
type bus struct {
	cl *kgo.Client
	// sig signs every record written; each reader verifies what it acts
	// on with its own verifier (see sign.go).
	sig *signer
}

// openBus creates the topics if missing and starts reading them at their
// current ends. A topic that exists is used as it is (one partition or
// several: each partition's order is kept, and every key maps to one).
func openBus(ctx context.Context, cfg cluster.Config, key *Key, topics ...string) (*bus, error) {
	adm, admCl, err := cluster.NewAdmin(cfg)
	if err != nil {
		return nil, err
	}
	defer admCl.Close()
	start := map[string]map[int32]kgo.Offset{}
	for _, topic := range topics {
		if err := ensureTopic(ctx, adm, topic); err != nil {
			return nil, err
		}
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
		}
		start[topic] = map[int32]kgo.Offset{}
		ends.Each(func(o kadm.ListedOffset) {
			start[topic][o.Partition] = kgo.NewOffset().At(o.Offset)
		})
	}
	cl, err := cluster.NewClient(cfg,
		kgo.ConsumePartitions(start),
		kgo.ProducerLinger(0),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.RecordRetries(10),
	)
	if err != nil {
		return nil, err
	}
	return &bus{cl: cl, sig: newSigner(key)}, nil
}

// ensureTopic creates topic (one partition, TopicRetention) unless it
// exists, and waits until it is listed.
func ensureTopic(ctx context.Context, adm *kadm.Client, topic string) error {
	ret := fmt.Sprint(TopicRetention.Milliseconds())
	resp, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"retention.ms": &ret, "cleanup.policy": kadm.StringPtr("delete")}, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	// A broker that has just started, or one of several that has not yet
	// heard of the new topic, may not list it at once: ask again for a
	// while before calling it missing.
	deadline := time.Now().Add(topicListWait)
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err != nil {
			return fmt.Errorf("topic %s: %w", topic, err)
		}
		if d, ok := td[topic]; ok && d.Err == nil && len(d.Partitions) > 0 {
			return cluster.AwaitTopic(ctx, adm, topic, int32(len(d.Partitions)))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topic %s is not listed %s after creating it: does this principal have Describe on it?", topic, topicListWait)
		}
		pause(ctx, 200*time.Millisecond)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// topicListWait bounds the wait for a created topic to be listed.
const topicListWait = 30 * time.Second

// send writes one signed record and waits until the brokers have it.
func (b *bus) send(ctx context.Context, topic, key string, value []byte) error {
	errc := make(chan error, 1)
	b.sendAsync(ctx, topic, key, value, func(err error) { errc <- err })
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("write to %s: %w", topic, err)
		}
		return nil
	case <-ctx.Done():
		// The client fails a record whose context ended only once it is
		// not in flight: with the broker gone, that can be never, and a
		// shutdown must not wait for it.
		return fmt.Errorf("write to %s: %w", topic, ctx.Err())
	}
}

// sendAsync writes one signed record without waiting; done, if set, is
// told how it went. Signing and handing the record to the client happen
// under one lock, so a stream's records reach the log in counter order.
func (b *bus) sendAsync(ctx context.Context, topic, key string, value []byte, done func(error)) {
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: value}
	b.sig.mu.Lock()
	defer b.sig.mu.Unlock()
	b.sig.sign(r)
	b.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
		if done != nil {
			done(err)
		}
	})
}

// errClosed is poll's error once the bus is closed.
var errClosed = kgo.ErrClientClosed

// poll returns the next records read (waiting for some), or the error
// that stopped reading: ctx ending, or the client closed.
func (b *bus) poll(ctx context.Context) ([]*kgo.Record, error) {
	fs := b.cl.PollFetches(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fs.IsClientClosed() {
		return nil, errClosed
	}
	var errs []error
	fs.EachError(func(topic string, p int32, err error) {
		if !errors.Is(err, context.Canceled) {
			errs = append(errs, fmt.Errorf("read %s[%d]: %w", topic, p, err))
		}
	})
	return fs.Records(), errors.Join(errs...)
}

// flush waits for every record written to be acknowledged.
func (b *bus) flush(ctx context.Context) error { return b.cl.Flush(ctx) }

// close ends the client.
func (b *bus) close() { b.cl.Close() }

// pollErrorPause is how long a reader waits after a failed fetch (the
// broker unreachable, say) before it polls again, so that a lasting
// failure is not a busy loop of errors.
const pollErrorPause = 500 * time.Millisecond

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
