package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
)

// seekByRetention moves each cold window- or session-store task's start
// past the records its retention has expired, as Kafka Streams 4.4 does on
// a cold restore of a window store (StoreChangelogReader's
// seekByRetentionFromPolledRecords, also in 4.2.2; not in 3.9-4.1 or
// 4.3): it reads the partition's last record and starts at the first
// record whose timestamp is at least that record's timestamp minus the
// retention (offsetsForTimes), when that time is positive; otherwise, or
// when the partition's last offset holds no record (a transaction
// marker), from the log start. The records skipped are never read. A case
// with ReadExpired reads from the log start, as the releases without the
// seek do.
// Kafka Streams does so for every store whose innermost store reports a
// positive retention (WithRetentionPeriod: RocksDBSegmentedBytesStore
// under RocksDBSessionStore, InMemorySessionStore, as under window
// stores), so a session store's changelog is read the same way (checked
// in the 4.4 jar). It goes by record timestamps, a session fill's being
// its sessions' ends: every record it skips ends before the last end
// minus the retention, expired anyway.
func (in *Instance) seekByRetention(ctx context.Context, tasks []Task) error {
	if !in.Case.StoreKind.Segmented() || in.Case.ReadExpired || len(tasks) == 0 {
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
	from := map[int32]int64{} // the time each partition's restore starts from
	for _, t := range tasks {
		rs := recs[t.ID.Partition]
		if len(rs) == 0 || rs[len(rs)-1].Offset != t.To-1 {
			continue
		}
		if ms := rs[len(rs)-1].Timestamp.UnixMilli() - retention; ms > 0 {
			from[t.ID.Partition] = ms
		}
	}
	if len(from) == 0 {
		return nil
	}
	starts, err := in.offsetsForTimes(ctx, topic, from)
	if err != nil {
		return err
	}
	for i := range tasks {
		t := &tasks[i]
		if o, ok := starts[t.ID.Partition]; ok && o > t.From {
			t.From = min(o, t.To)
		}
	}
	return nil
}

// offsetsForTimes is, per partition of topic, the first offset whose
// record's timestamp is at least the partition's time in ms (the
// consumer's offsetsForTimes), asked in one ListOffsets request that the
// client splits by partition leader.
func (in *Instance) offsetsForTimes(ctx context.Context, topic string, ms map[int32]int64) (map[int32]int64, error) {
	cl, err := cluster.NewClient(in.Cluster)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for p, t := range ms {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = p, t
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("window store: offsets of %s by time: %w", topic, err)
	}
	out := map[int32]int64{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, fmt.Errorf("window store: offset of %s partition %d by time: %w", topic, p.Partition, err)
			}
			out[p.Partition] = p.Offset
		}
	}
	return out, nil
}
