package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/warmup"
)

// A topic restorebench did not name after the store (a copy of a user's
// changelog, any compacted topic) is restored on the kafka-streams engine by
// the driver's table topology: a KTable over the topic, built with
// topology.optimization=reuse.ktable.source.topics, so Kafka Streams makes
// the topic itself the store's changelog and creates none of its own. A
// cold instance then restores the store from the topic through the same
// path as any changelog (StoreChangelogReader on the state updater, with
// the StateRestoreListener's onRestoreStart/onBatchRestored/onRestoreEnd),
// which is what the kafka-streams engine measures.
//
// Kafka Streams (3.x through 4.4, StoreChangelogReader) restores a source
// changelog only up to min(log-end offset, the group's committed offset on
// that partition), a partition without a commit counting as 0: what lies
// past the commit is processed as input, not restored. A fresh application
// would restore nothing and process the whole topic instead. So before the
// instance starts restorebench commits the application's consumer-group
// offsets at the topic's end offsets (sourceGroup.commit): the instance
// restores the whole topic, from its log start to those offsets, and has
// nothing left to process. A GlobalKTable would restore the topic too, but
// on the global thread, outside the state updater and the per-task restore
// a task's store goes through, so it would not measure that.
//
// The group is the case's application.id, restorebench's own ("restorebench"
// unless --application-id or application_id names another): the user's
// applications run under their own ids. Still, restorebench never takes over
// a group it cannot tell is its own: it refuses one that already holds
// offsets on the topic that it did not commit (marked with sourceMetadata),
// or offsets on any other topic restorebench did not create (owned.go).
// After the restore it deletes its offsets on the topic, and the whole group
// when the group held nothing else before. Nothing writes to or deletes from
// the topic.

// sourceMetadata marks the offsets a source-table restore commits, so a
// later restore can tell its own leftovers (an interrupted run's) from an
// application's offsets.
const sourceMetadata = "restorebench source-table restore: deleted after the restore"

// SourceGroup is a consumer group whose offsets on a topic a source-table
// restore committed, and what undoing that takes.
type SourceGroup struct {
	Group, topic string
	// Partitions are the topic's partitions it committed.
	Partitions []int32
	// others: the group held offsets on other topics before, so only the
	// offsets on topic are deleted afterwards, not the group.
	others bool
}

// IsSourceTable reports whether t is restored through the table topology:
// its topic is not the changelog Kafka Streams names after the store.
func IsSourceTable(t Target) bool { return t.Topic != config.ChangelogTopic(t.AppID, t.StoreName) }

// CommitSourceOffsets commits group's offsets on the topic at its end
// offsets (see above), after checking the group is one restorebench may
// use; the caller releases it after the restore.
func CommitSourceOffsets(ctx context.Context, env *Env, group string, offsets cluster.TopicOffsets) (*SourceGroup, error) {
	adm, done, err := env.AdminClient()
	if err != nil {
		return nil, err
	}
	defer done()
	g := &SourceGroup{Group: group, topic: offsets.Topic, Partitions: offsets.Partitions()}
	var held kadm.OffsetResponses
	err = retryRetriable(ctx, func() error {
		held, err = adm.FetchOffsets(ctx, group)
		if errors.Is(err, kerr.GroupIDNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("committed offsets of group %s: %w", group, err)
	}
	if err := g.checkHeld(held); err != nil {
		return nil, err
	}
	// Its offsets on other topics: restorebench's own (a kv restore's
	// input topic under the same application id, a source-table restore's
	// leftovers), or the group is an application's and is refused.
	if g.others, err = ClaimGroup(ctx, env, adm, group, g.topic); err != nil {
		return nil, err
	}
	commit := kadm.Offsets{}
	for _, p := range g.Partitions {
		commit.Add(kadm.Offset{Topic: offsets.Topic, Partition: p, At: offsets.End[p], LeaderEpoch: -1, Metadata: sourceMetadata})
	}
	err = retryRetriable(ctx, func() error {
		resp, err := adm.CommitOffsets(ctx, group, commit)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return nil, commitError(group, offsets.Topic, err)
	}
	return g, nil
}

// commitError names a failed commit of group's offsets on topic and, when
// the broker refused it because the group has members, who they may be.
func commitError(group, topic string, err error) error {
	why := ""
	for _, member := range []error{kerr.UnknownMemberID, kerr.IllegalGeneration, kerr.RebalanceInProgress, kerr.StaleMemberEpoch, kerr.FencedMemberEpoch} {
		if errors.Is(err, member) {
			why = fmt.Sprintf(" (the group has members: an application running under application.id %s, or the instance of an "+
				"interrupted restore, a member until its session times out, %.0f s by default)", group, warmup.DefaultSessionTimeout.Seconds())
		}
	}
	return fmt.Errorf("committing group %s's offsets on %s at its end offsets (so Kafka Streams restores the topic "+
		"rather than process it): %w%s", group, topic, err, why)
}

// checkHeld refuses a group whose offsets on the topic restorebench did not
// commit (those on other topics are claimGroup's).
func (g *SourceGroup) checkHeld(held kadm.OffsetResponses) error {
	var foreign []string
	for p, o := range held[g.topic] {
		if o.Err == nil && o.At >= 0 && o.Metadata != sourceMetadata {
			foreign = append(foreign, fmt.Sprintf("%d@%d", p, o.At))
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	return fmt.Errorf("consumer group %s already holds offsets on %s that restorebench did not commit (partition@offset "+
		"%s): an application's? restorebench commits its own there for the restore and deletes them "+
		"after; restore under another --application-id (application_id in a profile)",
		g.Group, g.topic, strings.Join(foreign, ", "))
}

// Release deletes the offsets commitSourceOffsets committed: the whole
// group when it held nothing else, else only its offsets on the topic. A
// group that still has a member (an instance that was killed stays one
// until its session times out) cannot be cleaned; the error says so and
// the next restore overwrites what is left.
func (g *SourceGroup) Release(ctx context.Context, env *Env) error {
	adm, done, err := env.AdminClient()
	if err != nil {
		return err
	}
	defer done()
	if !g.others {
		if err := DeleteGroup(ctx, adm, g.Group, sourceRetryWithin, sourceRetryPoll); err != nil {
			return fmt.Errorf("deleting consumer group %s (restorebench's, holding only the offsets it committed on %s): %w", g.Group, g.topic, err)
		}
		return nil
	}
	set := kadm.TopicsSet{}
	set.Add(g.topic, g.Partitions...)
	err = retryRetriable(ctx, func() error {
		resp, err := adm.DeleteOffsets(ctx, g.Group, set)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("deleting consumer group %s's offsets on %s (committed by restorebench for the restore): %w", g.Group, g.topic, err)
	}
	return nil
}

// How long a group request is asked again while the coordinator answers
// with a retriable error (COORDINATOR_NOT_AVAILABLE from a group's
// coordinator that is still loading, seen on the first request for a new
// group), and how often.
const (
	sourceRetryWithin = 15 * time.Second
	sourceRetryPoll   = 250 * time.Millisecond
)

// retryRetriable calls f until it returns nil or an error Kafka does not
// call retriable, or sourceRetryWithin passed.
func retryRetriable(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(sourceRetryWithin)
	for {
		err := f()
		if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sourceRetryPoll):
		}
	}
}
