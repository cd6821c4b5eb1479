package bench

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/loadgen"
)

// AppendVia is Append through another topic: it writes the next n records
// of the fill's generator (each to the partition the generator names) to
// topic instead of the changelog, as input records (loadgen.ProduceInputAt:
// a window or session store's under the record key alone), at perSecond records a second (0: as
// fast as it goes), and records them in the manifest as appended to the
// changelog. It is for Kafka Streams' kv topology, whose input topic has
// the changelog's partitions and whose processor puts every record into
// the store, so Kafka Streams itself appends each one to the changelog, in
// order per partition: the state the changelog must hold stays derivable
// from the fill's spec. Closing stop (nil: never) ends the writing early;
// the manifest then records what was written.
func (c *Changer) AppendVia(ctx context.Context, by, topic string, n int64, perSecond float64, stop <-chan struct{}) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	// The intent first, as Append does. Unsettled from now on: the
	// changelog holds these records only as far as Kafka Streams processed
	// them, which the next fill cannot know.
	from, cl, err := c.startAppend(by, n)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	tot, err := loadgen.ProduceInputAt(ctx, cl, topic, c.Spec(), from, perSecond, stop, nil)
	if short := n - tot.Records; short > 0 {
		if merr := c.mark(by, func(ch *loadgen.Changes) { ch.Appended -= short }); merr != nil && err == nil {
			err = merr
		}
	}
	if err != nil {
		return tot.Records, fmt.Errorf("append to %s through %s: %w", c.fill.Manifest.Topic, topic, err)
	}
	return tot.Records, nil
}
