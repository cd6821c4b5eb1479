package loadgen

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// InputKey is the key of the input record an application processes into
// rec: the record key, without the window start and sequence number of a
// window store's changelog key or the session end and start of a session
// store's (Kafka Streams' store adds them from the record's timestamp).
// It shares rec.Key's bytes. rec is one of the spec's records.
func (s Spec) InputKey(rec Record) []byte { return rec.Key[:s.KeyWidth()] }

// ProduceInputAt is ProduceAt writing what an application's input topic
// holds for those changelog records: each under its Spec.InputKey, with its
// timestamp and value, in the partition of its changelog record (the
// input topic is co-partitioned with the changelog, and a record's
// partition is its record key's). A processor that puts every input
// record into a store of the spec's kind, in its window or session by
// the timestamp, makes Kafka Streams append the records ProduceAt would.
func ProduceInputAt(ctx context.Context, cl *kgo.Client, topic string, spec Spec,
	from int64, perSecond float64, stop <-chan struct{}, progress Progress) (FillTotals, error) {
	return produce(ctx, []*kgo.Client{cl}, topic, spec, from, perSecond, stop, progress, spec.InputKey)
}
