package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

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
	for i := range tasks {
		tasks[i].Probed = tasks[i].To > tasks[i].From
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

// probeFetchWait is how long a broker holds a fetch at a partition's end
// before answering it empty: the restore consumer's fetch.max.wait.ms,
// Kafka's default (Kafka Streams does not set it).
const probeFetchWait = 500 * time.Millisecond

// awaitProbeFetch does on the wire what Kafka Streams 4.4's restore
// consumer does after its seek by retention, inside the restore (between
// the listener's onRestoreStart and onRestoreEnd): its probe poll
// (StoreChangelogReader.seekNewPartitions, a poll at each partition's
// last record) returned records, so the classic consumer at once sent the
// next fetch, at the partitions' end offsets; the broker holds a fetch
// with nothing to return for fetch.max.wait.ms, and the consumer sends no
// other fetch to a broker while one is outstanding
// (AbstractFetch.prepareFetchRequests), so the restore's first fetch
// waits for it. Here the same fetch is sent to each leader of the probed
// tasks' partitions, and the restore starts once all have answered. It
// is a real wait on the broker, not a pause: a partition written to
// meanwhile answers sooner, as Kafka Streams' would.
func awaitProbeFetch(ctx context.Context, cfg cluster.Config, tasks []Task, isolation int8) error {
	var probed []Task
	for _, t := range tasks {
		if t.Probed {
			probed = append(probed, t)
		}
	}
	if len(probed) == 0 {
		return nil
	}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	topic := probed[0].Changelog
	meta, err := kadm.NewClient(cl).Metadata(ctx, topic)
	if err == nil {
		err = meta.Topics.Error()
	}
	if err != nil {
		return fmt.Errorf("window store: metadata of %s: %w", topic, err)
	}
	td := meta.Topics[topic]
	byLeader := map[int32]*kmsg.FetchRequest{}
	for _, t := range probed {
		pd, ok := td.Partitions[t.ID.Partition]
		if !ok {
			return fmt.Errorf("window store: %s partition %d is not in the metadata", topic, t.ID.Partition)
		}
		req := byLeader[pd.Leader]
		if req == nil {
			req = kmsg.NewPtrFetchRequest()
			req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.IsolationLevel = -1, int32(probeFetchWait.Milliseconds()), 1, isolation
			req.SessionEpoch = -1
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = topic, td.ID
			req.Topics = append(req.Topics, rt)
			byLeader[pd.Leader] = req
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = t.ID.Partition, t.To, 1<<20
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, rp)
	}
	g, gctx := errgroup.WithContext(ctx)
	for leader, req := range byLeader {
		g.Go(func() error {
			_, err := req.RequestWith(gctx, cl.Broker(int(leader)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("window store: the fetch at %s's end after the probe: %w", topic, err)
	}
	return nil
}
