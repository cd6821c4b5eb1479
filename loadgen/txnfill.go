package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TransactionalID is the transactional.id a fill of topic produces with:
// one per topic, so a new fill fences an interrupted one's producer (whose
// open transaction the broker then aborts) instead of writing beside it.
func TransactionalID(topic string) string { return "restorebench-fill-" + topic }

// TransactionalProducerOpts are ProducerOpts with the fill's
// transactional.id (Kafka's transactional producer: idempotent, acks=all).
func TransactionalProducerOpts(compression, topic string) ([]kgo.Opt, error) {
	opts, err := ProducerOpts(compression)
	if err != nil {
		return nil, err
	}
	return append(opts, kgo.TransactionalID(TransactionalID(topic))), nil
}

// ProduceTransactional writes a transactional spec's fill to topic with
// cl, made with TransactionalProducerOpts: the Stream's transactions in
// order, each begun, its records produced and flushed (so an aborted
// transaction's records are in the log, as those of an application that
// failed mid-transaction are), then committed or aborted, before the next
// begins; so every partition's log is laid out as Derive says. The totals
// count the committed records, as Derive's do. The topic must exist with
// spec.Partitions partitions.
func ProduceTransactional(ctx context.Context, cl *kgo.Client, topic string, spec Spec, progress Progress) (FillTotals, error) {
	if !spec.Transactional {
		return FillTotals{}, errors.New("produce: the spec is not transactional (use Produce)")
	}
	st, err := NewStream(spec)
	if err != nil {
		return FillTotals{}, err
	}
	tot := newFillTotals(spec.Partitions)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	acks := &acker{cancel: cancel, progress: progress}
	open := false
	for ctx.Err() == nil {
		w, ok := st.Next()
		if !ok {
			break
		}
		if w.End {
			if err := endTransaction(ctx, cl, acks, w.Aborted); err != nil {
				return tot, fmt.Errorf("produce to %s: transaction %d: %w", topic, w.Txn, err)
			}
			open = false
			continue
		}
		if !open {
			if err := cl.BeginTransaction(); err != nil {
				return tot, fmt.Errorf("produce to %s: transaction %d: %w", topic, w.Txn, err)
			}
			open = true
		}
		if !w.Aborted {
			tot.add(w.Record)
		}
		r := w.Record
		kr := &kgo.Record{Topic: topic, Partition: r.Partition, Key: bytes.Clone(r.Key), Value: bytes.Clone(r.Value)}
		stampRecord(kr, r)
		cl.Produce(ctx, kr, acks.onAck)
	}
	if open { // interrupted mid-transaction: leave nothing open behind
		cl.AbortBufferedRecords(context.WithoutCancel(ctx))
		cl.EndTransaction(context.WithoutCancel(ctx), kgo.TryAbort)
	}
	if err := acks.err(ctx, nil); err != nil {
		return tot, fmt.Errorf("produce to %s: %w", topic, err)
	}
	return tot, nil
}

// endTransaction flushes the open transaction's records and ends it:
// committed, or aborted when abort is set (or when one of its records
// failed, which is then the error).
func endTransaction(ctx context.Context, cl *kgo.Client, acks *acker, abort bool) error {
	flushErr := cl.Flush(context.WithoutCancel(ctx))
	if err := acks.err(ctx, flushErr); err != nil {
		cl.EndTransaction(context.WithoutCancel(ctx), kgo.TryAbort)
		return err
	}
	how := kgo.TryCommit
	if abort {
		how = kgo.TryAbort
	}
	// Not cancelled with ctx: an EndTxn cut short leaves the transaction's
	// outcome unknown (see kgo's EndTransaction).
	return cl.EndTransaction(context.WithoutCancel(ctx), how)
}
