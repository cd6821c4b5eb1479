package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
)

// seekByRetention moves each cold window-store task's start past the
// records its retention has expired, as Kafka Streams 4.4 does on a cold
// restore of a window store (StoreChangelogReader's
// seekByRetentionFromPolledRecords, also in 4.2.2; not in 3.9-4.1 or
// 4.3): it reads the partition's last record and starts at the first
// record whose timestamp is at least that record's timestamp minus the
// retention (offsetsForTimes), when that time is positive; otherwise, or
// when the partition's last offset holds no record (a transaction
// marker), from the log start. The records skipped are never read.
func (in *Instance) seekByRetention(ctx context.Context, tasks []Task) error {
	if in.Case.StoreKind != config.StoreWindow || len(tasks) == 0 {
		return nil
	}
	retention := in.Case.Retention.D().Milliseconds()
	topic := tasks[0].Changelog
	last := map[int32]cluster.OffsetRange{}
	for _, t := range tasks {
		if t.To > t.From {
			last[t.ID.Partition] = cluster.OffsetRange{From: t.To - 1, To: t.To}
		}
	}
	recs, err := cluster.ReadRange(ctx, in.Cluster, topic, last, 5*time.Second)
	if err != nil {
		return fmt.Errorf("window store: last records of %s: %w", topic, err)
	}
	cl, err := cluster.NewClient(in.Cluster)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for i := range tasks {
		t := &tasks[i]
		rs := recs[t.ID.Partition]
		if len(rs) == 0 || rs[len(rs)-1].Offset != t.To-1 {
			continue
		}
		from := rs[len(rs)-1].Timestamp.UnixMilli() - retention
		if from <= 0 {
			continue
		}
		offs, err := adm.ListOffsetsAfterMilli(ctx, from, topic)
		if err == nil {
			err = offs.Error()
		}
		if err != nil {
			return fmt.Errorf("window store: offsets of %s after %d ms: %w", topic, from, err)
		}
		if o, ok := offs.Lookup(topic, t.ID.Partition); ok && o.Offset > t.From {
			t.From = min(o.Offset, t.To)
		}
	}
	return nil
}
