package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/topicshape"
	"github.com/restorebench/restorebench/verify"
)

// A sample of a topic's partitions (restore --partitions) restores on the
// kafka-streams engine from a copy. Kafka Streams restores every task of
// the topic its table is built over, and its restore of a source changelog
// runs to the group's committed offset, a partition without one counting
// as 0 but then processed from auto.offset.reset (earliest by default):
// confining it to the sample on the user's topic would have the
// unsampled tasks read and process their partitions beside the sampled
// restores. So restorebench copies the sampled partitions, verbatim, into
// a topic of its own with the same partition count, in which the other
// partitions hold nothing, checks the copy against the independent read
// of those partitions, and restores the copy exactly as it restores any
// topic it did not fill (source_table.go): the sampled tasks restore their
// partitions at full size through StoreChangelogReader and the state
// updater, the others restore nothing. The restores of one sample
// (plan --measure) share the copy and the reads (SampleSource,
// sample_source.go). The copy is deleted when the restores end, fail or
// are interrupted; nothing is written to the user's topic or group.

// SampleCopyTopic is the copy's name: <application-id>-sample-<topic>,
// or, past Kafka's 249 characters, that cut short and ended by a hash of
// topic, so that two topics never share a copy.
func SampleCopyTopic(appID, topic string) string {
	name := appID + "-sample-" + topic
	if len(name) <= 249 {
		return name
	}
	sum := sha256.Sum256([]byte(topic))
	return name[:249-17] + "-" + hex.EncodeToString(sum[:8])
}

// sampleCopyTimeout bounds the deletion of the copy after the restore, on
// a context of its own (the run's may be cancelled by then).
const sampleCopyTimeout = 30 * time.Second

// copyRanges are the offsets of each sampled partition copied: from its log
// start to where the independent read ended (target.Ends: under
// read_committed the last stable offset), or its end offset when there
// was no read; and at most how many records they hold.
func copyRanges(target *fleet.Target, offsets cluster.TopicOffsets, sample []int32) (map[int32]cluster.OffsetRange, int64) {
	ranges := map[int32]cluster.OffsetRange{}
	var records int64
	for _, p := range sample {
		end := offsets.End[p]
		if e, ok := target.Ends[p]; ok {
			end = e
		}
		if end > offsets.Start[p] {
			ranges[p] = cluster.OffsetRange{From: offsets.Start[p], To: end}
			records += end - offsets.Start[p]
		}
	}
	return ranges, records
}

// checkSampleCopy checks the copy before anything restores it: each of
// its partitions holds the records held says were copied to it (its
// offsets count them, none outside held, each acknowledged by every
// in-sync replica), and the records written to the partitions copied now
// (written, folded as the restore applies them) leave the state the
// independent read of the user's topic found there (want: keys, live
// bytes, digest per partition; the records and those without a key in
// all; nil when the topic is counted, not verified). The copy is not
// read back: what the brokers acknowledged is what they hold, and the
// restore itself is verified against the independent read. It returns
// the copy's end offsets of the partitions o restores.
func (e *Env) checkSampleCopy(ctx context.Context, o RestoreTopicOptions, name string, held map[int32]cluster.CopyStats, copiedNow []int32,
	want *topicshape.TopicState, written *topicshape.Fold) (map[int32]int64, error) {
	got, err := e.Offsets(ctx, name)
	if err != nil {
		return nil, err
	}
	ends := map[int32]int64{}
	for p, end := range got.End {
		if n := held[p].Records; end-got.Start[p] != n {
			return nil, fmt.Errorf("the copy %s of %s: partition %d holds %d records, %d were copied to it", name, o.Topic, p, end-got.Start[p], n)
		}
		if slices.Contains(o.Partitions, p) {
			ends[p] = end
		}
	}
	if want == nil || len(copiedNow) == 0 {
		return ends, nil // nothing read to check it against, or nothing new in it
	}
	st, err := written.State(got.Only(copiedNow))
	if err != nil {
		return nil, fmt.Errorf("the copy %s of %s, as written: %w", name, o.Topic, err)
	}
	if ok, v := verify.Check(want.Partitions, st.Partitions); !ok {
		return nil, fmt.Errorf("the copy %s of %s does not hold what the independent read of %s found: %s", name, o.Topic, o.Topic, v.Problem)
	}
	if st.Records != want.Records || st.NullKeys != want.NullKeys {
		return nil, fmt.Errorf("the copy %s of %s holds %d records (%d without a key); the independent read of %s found %d (%d)",
			name, o.Topic, st.Records, st.NullKeys, o.Topic, want.Records, want.NullKeys)
	}
	fleet.KnowReads(e.Cluster.Brokers, name, o.Case.IsolationLevel(), st.Restored)
	return ends, nil
}

// createSampleCopy creates the copy topic (partitions as the user's topic,
// cleanup.policy=delete so records without a key are kept, no retention
// limit so none is dropped during the run, max.message.bytes as the
// user's topic, message.timestamp.type=CreateTime so the records keep
// their timestamps) and records it as restorebench's. A copy left by an
// interrupted run (restorebench's) is deleted first; a topic of that name
// that is not restorebench's is refused.
func createSampleCopy(ctx context.Context, env *fleet.Env, adm *kadm.Client, name string, partitions, maxBytes int32, of string) error {
	_, exists, err := cluster.TopicID(ctx, adm, name)
	if err != nil {
		return fmt.Errorf("copy topic %s: %w", name, err)
	}
	if exists {
		ours, err := env.Owned.Owns(ctx, adm, name)
		if err != nil {
			return fmt.Errorf("copy topic %s: %w", name, err)
		}
		if !ours {
			return fmt.Errorf("topic %s exists and restorebench did not create it (%s has no record of it): it would be restorebench's copy of "+
				"the sampled partitions of %s, so nothing was written. Restore under another --application-id", name, env.Owned.Where(), of)
		}
		if err := deleteOwned(ctx, env, adm, name); err != nil {
			return err
		}
	}
	cfg := map[string]*string{
		"cleanup.policy":    kadm.StringPtr("delete"),
		"retention.ms":      kadm.StringPtr("-1"),
		"retention.bytes":   kadm.StringPtr("-1"),
		"max.message.bytes": kadm.StringPtr(strconv.Itoa(int(maxBytes))),
		// Each record keeps the timestamp the copy wrote (the source's),
		// also on a cluster that restamps appends by default
		// (log.message.timestamp.type=LogAppendTime): a timestamped
		// store keeps it, and the copy is checked by what was written.
		"message.timestamp.type": kadm.StringPtr("CreateTime"),
	}
	// A topic just deleted can still be listed for a moment: created again
	// until the broker takes it, for cluster.TopicPropagation.
	deadline := time.Now().Add(cluster.TopicPropagation)
	for {
		resp, err := adm.CreateTopic(ctx, partitions, -1, cfg, name)
		if err == nil {
			err = resp.Err
		}
		if err == nil {
			break
		}
		if !errors.Is(err, kerr.TopicAlreadyExists) || time.Now().After(deadline) {
			return fmt.Errorf("create copy topic %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	err = cluster.AwaitTopic(ctx, adm, name, partitions)
	if err == nil {
		err = env.Owned.Record(ctx, adm, name, "the copy of the sampled partitions of "+of)
	}
	if err != nil {
		// Just created, not yet recorded: deleted here, on a context of
		// its own (ctx may be the interrupted run's).
		dctx, cancel := context.WithTimeout(context.Background(), sampleCopyTimeout)
		defer cancel()
		return errors.Join(fmt.Errorf("copy topic %s: %w", name, err), cluster.DeleteTopic(dctx, adm, name))
	}
	return nil
}

// deleteSampleCopy deletes the copy on a context of its own, whatever
// became of the run's; a copy it cannot delete is a warning naming it.
func (e *Env) deleteSampleCopy(env *fleet.Env, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), sampleCopyTimeout)
	defer cancel()
	err := env.WithAdmin(func(adm *kadm.Client) error { return deleteOwned(ctx, env, adm, name) })
	if err != nil {
		e.Logf("restore: warning: restorebench's copy topic %s was not deleted: %v; delete it (kafka-topics.sh --delete --topic %s), "+
			"or the next sampled restore of the same topic does", name, err, name)
		return
	}
	e.Logf("restore: deleted %s, the copy of the sampled partitions", name)
}

// deleteOwned deletes restorebench's topic name, waits until the brokers
// no longer list it (for cluster.TopicPropagation: a deletion is
// asynchronous) and forgets it.
func deleteOwned(ctx context.Context, env *fleet.Env, adm *kadm.Client, name string) error {
	if err := cluster.DeleteTopic(ctx, adm, name); err != nil {
		return err
	}
	deadline := time.Now().Add(cluster.TopicPropagation)
	for {
		_, exists, err := cluster.TopicID(ctx, adm, name)
		if err != nil {
			return err
		}
		if !exists {
			return env.Owned.Forget(name)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topic %s: deleted, but still listed after %s", name, cluster.TopicPropagation)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// maxMessageBytes is topic's max.message.bytes (the broker's default when
// the topic sets none): the copy takes it, so every record fits.
func maxMessageBytes(ctx context.Context, adm *kadm.Client, topic string) (int32, error) {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("topic %s: configs: %w", topic, err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		return 0, fmt.Errorf("topic %s: configs: %w", topic, err)
	}
	if rc.Err != nil {
		return 0, fmt.Errorf("topic %s: configs: %w", topic, rc.Err)
	}
	for _, c := range rc.Configs {
		if c.Key == "max.message.bytes" && c.Value != nil {
			if n, err := strconv.ParseInt(*c.Value, 10, 32); err == nil && n > 0 {
				return int32(n), nil
			}
		}
	}
	return 1 << 20, nil
}

// partitionLogBytes is the size of partitions ps of topic as one replica
// holds them on the brokers (the largest replica of each, DescribeLogDirs).
func partitionLogBytes(ctx context.Context, adm *kadm.Client, topic string, ps []int32) (int64, error) {
	set := kadm.TopicsSet{}
	set.Add(topic, ps...)
	dirs, err := adm.DescribeAllLogDirs(ctx, set)
	if err != nil {
		return 0, fmt.Errorf("topic %s: log dirs: %w", topic, err)
	}
	largest := map[int32]int64{}
	for _, d := range dirs {
		for _, ld := range d {
			for p, part := range ld.Topics[topic] {
				largest[p] = max(largest[p], part.Size)
			}
		}
	}
	var size int64
	for _, p := range ps {
		size += largest[p]
	}
	return size, nil
}

// onKafkaStreamsSample says whether o restores a sample on the
// kafka-streams engine, which restores it from a copy.
func onKafkaStreamsSample(o RestoreTopicOptions) bool {
	return o.Partitions != nil && o.Case.Engine == config.EngineKafkaStreams
}
