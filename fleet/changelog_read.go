package fleet

import (
	"context"
	"fmt"
	"sync"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
)

// ChangelogRead is how a model restore read its changelog (rec.Read):
// its isolation level, the offsets it spanned, the markers it met, and
// the note a read_uncommitted read over transactional batches gets.
func ChangelogRead(r *engine.Restored) *runs.ChangelogRead {
	return newChangelogRead(r.Isolation, r.Offsets(), r.Txn)
}

func newChangelogRead(isolation string, offsets int64, txn engine.TxnCounts) *runs.ChangelogRead {
	c := &runs.ChangelogRead{
		IsolationLevel: isolation, Offsets: offsets,
		Markers: txn.Markers, AbortMarkers: txn.AbortMarkers, TransactionalRecords: txn.Records,
	}
	c.SetNote()
	return c
}

// WarnRead says aloud, in the run's log, a read the record notes (see
// runs.ChangelogRead.SetNote): one that may have restored aborted records.
func WarnRead(env *Env, rec *runs.Restore) {
	if rec.Read != nil && rec.Read.Note != "" {
		env.Logf("restore: warning: case %s #%d restored %s", rec.Case, rec.Repeat, rec.Read.Note)
	}
}

// changelogReads caches countChangelog's answers by broker, topic,
// offsets and isolation level.
var changelogReads sync.Map

// CountChangelog reads the changelog between offsets as a restore of case
// c reads it (its isolation level) and says what it read: its key+value
// bytes and how (rec.Read), for the kafka-streams engine, whose instance
// reports record counts only. Kafka Streams decides its isolation level from
// the same properties (config.Case.IsolationLevel), so the read is its.
func CountChangelog(ctx context.Context, env *Env, offsets cluster.TopicOffsets, c config.Case) (int64, *runs.ChangelogRead, error) {
	iso := c.IsolationLevel()
	if bytes, spanned, ok := knownReads(env.Cluster.Brokers, offsets, iso); ok {
		return bytes, newChangelogRead(iso, spanned, engine.TxnCounts{}), nil
	}
	key := offsetsKey(env.Cluster.Brokers, offsets) + "|" + iso
	if n, ok := changelogReads.Load(key); ok {
		cnt := n.(engine.ChangelogCount)
		return cnt.Bytes, newChangelogRead(iso, cnt.Offsets, cnt.Txn), nil
	}
	counter := config.DefaultCase()
	if iso == config.ReadCommitted {
		counter.Streams = map[string]string{config.PropProcessingGuarantee: config.ExactlyOnceV2}
	}
	in := &engine.Instance{Cluster: env.Cluster, AppID: "restorebench-count", Case: counter, StallTimeout: env.StallTimeout}
	cnt, err := in.Count(ctx, offsets)
	if err != nil {
		return 0, nil, err
	}
	if cnt.Isolation != iso {
		return 0, nil, fmt.Errorf("counting the changelog read %s, the restore %s", cnt.Isolation, iso)
	}
	changelogReads.Store(key, cnt)
	return cnt.Bytes, newChangelogRead(iso, cnt.Offsets, cnt.Txn), nil
}

// partitionReads are the key+value bytes of the reads KnowReads was told
// of, keyed as offsetsKey keys one partition's offsets, with the isolation
// level.
var partitionReads sync.Map

// KnowReads records the partitions of topic that a read restorebench made
// anyway (the independent read a restore is verified against, the check
// of a sample's copy; topicshape.TopicState.Restored) found, at isolation
// level iso, so that CountChangelog of exactly those offsets takes their
// figures instead of reading the changelog again. A partition whose read
// met a transaction is left to the count, which tallies its markers.
func KnowReads(brokers []string, topic, iso string, reads map[int32]topicshape.RestoreCount) {
	for p, r := range reads {
		if !r.Transactional {
			partitionReads.Store(partitionKey(brokers, topic, p, r.From, r.To, iso), r.Bytes)
		}
	}
}

// knownReads is the key+value bytes and offsets spanned of a read of
// offsets at iso when every partition of it that holds any is one
// KnowReads recorded; ok false otherwise.
func knownReads(brokers []string, offsets cluster.TopicOffsets, iso string) (bytes, spanned int64, ok bool) {
	for p, end := range offsets.End {
		start := offsets.Start[p]
		if end <= start {
			continue
		}
		b, known := partitionReads.Load(partitionKey(brokers, offsets.Topic, p, start, end, iso))
		if !known {
			return 0, 0, false
		}
		bytes, spanned = bytes+b.(int64), spanned+end-start
	}
	return bytes, spanned, true
}

// partitionKey is offsetsKey's key of partition p of topic from from to
// to, read at iso.
func partitionKey(brokers []string, topic string, p int32, from, to int64, iso string) string {
	one := cluster.TopicOffsets{Topic: topic, Start: map[int32]int64{p: from}, End: map[int32]int64{p: to}}
	return offsetsKey(brokers, one) + "|" + iso
}
