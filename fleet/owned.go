package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
)

// Nothing of a user's application is touched, on any path: restorebench
// joins, commits into or deletes only a consumer group that is its own,
// and writes, truncates, alters or deletes only a topic it created
// (env.Owned, cluster.Owned). What is not its own is refused before
// anything starts, with an error naming it and the way around: another
// application id, whose group and topics are then restorebench's.
//
// A topic is restorebench's when env.Owned records creating it (with the
// topic's ID). A group has no such record, and Kafka Streams' offsets
// carry no mark of restorebench's, so a group is judged by what it holds:
// it is restorebench's while every offset it holds is on a topic
// restorebench created (the kv topology's input topic, whose offsets only
// restorebench's instances commit) or was committed by a source-table
// restore (sourceMetadata). A group holding any other offset is an
// application's: a Kafka Streams instance joining it would process what
// the application has not yet processed (writing the store's changelog)
// and move its offsets. A group with members but no offsets yet (an
// application started moments ago) is not told apart from a restorebench
// instance still in its session; restorebench's own source-table commit
// and the fleet's group reset refuse or wait out a group with members.
//
// On the embedded broker everything is restorebench's (env.Owned
// .Everything()): nothing is refused there.

// UsesApplication reports whether case c runs Kafka Streams instances
// under the target's application.id (CheckApplication applies to it):
// every kafka-streams case but the ledger failover, which runs under an
// application id of its own.
func UsesApplication(c config.Case) bool {
	if c.Engine != config.EngineKafkaStreams {
		return false
	}
	return c.Scenario != config.ScenarioFailover || RunsKVFailover(c)
}

// CheckApplication refuses, before anything runs, a target whose
// application restorebench may not run Kafka Streams instances of: its
// consumer group holds offsets that are not restorebench's, or (for the
// changelog named after the store, restored by the kv topology) the
// topology's input topic exists and restorebench did not create it. It
// changes nothing; each scenario claims the application again when it
// starts (ensureInputTopic, commitSourceOffsets).
func CheckApplication(ctx context.Context, env *Env, t Target) error {
	if env.Owned.Everything() {
		return nil
	}
	return env.WithAdmin(func(adm *kadm.Client) error {
		if IsSourceTable(t) {
			// The group's offsets on the topic itself are judged by
			// commitSourceOffsets (restorebench's own leftovers are taken
			// over); here, those on every other topic.
			_, err := ClaimGroup(ctx, env, adm, t.AppID, t.Topic)
			return err
		}
		return claimKV(ctx, env, adm, t)
	})
}

// claimKV checks the kv topology's group and input topic (an existing
// one must be restorebench's); it creates nothing.
func claimKV(ctx context.Context, env *Env, adm *kadm.Client, t Target) error {
	if _, err := ClaimGroup(ctx, env, adm, t.AppID, ""); err != nil {
		return err
	}
	input := InputTopic(t.AppID, t.StoreName)
	_, exists, err := cluster.TopicID(ctx, adm, input)
	if err != nil {
		return fmt.Errorf("input topic %s: %w", input, err)
	}
	if !exists {
		return nil
	}
	ours, err := env.Owned.Owns(ctx, adm, input)
	if err != nil {
		return fmt.Errorf("input topic %s: %w", input, err)
	}
	if !ours {
		return fmt.Errorf("topic %s exists and restorebench did not create it (%s has no record of it): it would be the "+
			"input topic of restorebench's Kafka Streams instances under application.id %s, which process "+
			"what it holds into %s, so nothing was started or changed. "+
			"Restore under another --application-id (application_id in a profile), whose topics restorebench creates; or, if "+
			"it is restorebench's own from a version that kept no record, delete it",
			input, env.Owned.Where(), t.AppID, config.ChangelogTopic(t.AppID, t.StoreName))
	}
	return nil
}

// ClaimGroup refuses group unless every offset it holds is
// restorebench's (see above). Offsets on topic skip (a source-table
// restore's topic, judged by checkHeld; "" for none) are left out. others
// says the group holds offsets besides skip's.
func ClaimGroup(ctx context.Context, env *Env, adm *kadm.Client, group, skip string) (others bool, err error) {
	var held kadm.OffsetResponses
	err = retryRetriable(ctx, func() error {
		held, err = adm.FetchOffsets(ctx, group)
		if errors.Is(err, kerr.GroupIDNotFound) {
			held, err = nil, nil
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("committed offsets of consumer group %s: %w", group, err)
	}
	byTopic := map[string][]string{}
	marked := map[string]bool{}
	for topic, ps := range held {
		if topic == skip {
			continue
		}
		marked[topic] = true
		for p, o := range ps {
			if o.Err != nil || o.At < 0 {
				continue
			}
			byTopic[topic] = append(byTopic[topic], fmt.Sprintf("%d@%d", p, o.At))
			if o.Metadata != sourceMetadata {
				marked[topic] = false
			}
		}
	}
	var foreign []string
	for topic, offs := range byTopic {
		others = true
		if marked[topic] {
			continue // a source-table restore's leftovers
		}
		ours := env.Owned.Everything()
		if !ours {
			if _, exists, err := cluster.TopicID(ctx, adm, topic); err != nil {
				return false, err
			} else if exists {
				if ours, err = env.Owned.Owns(ctx, adm, topic); err != nil {
					return false, err
				}
			}
		}
		if !ours {
			sort.Strings(offs)
			foreign = append(foreign, fmt.Sprintf("%s %s", topic, strings.Join(offs, ", ")))
		}
	}
	if len(foreign) == 0 {
		return others, nil
	}
	sort.Strings(foreign)
	return false, fmt.Errorf("consumer group %s holds offsets on topics restorebench did not create (partition@offset: "+
		"%s): it is an application's group, which a Kafka Streams instance of restorebench under "+
		"application.id %s would join, process what the application has not yet processed (writing its "+
		"store's changelog) and move its offsets, so nothing was started or changed. "+
		"Restore under another --application-id (application_id in a profile), whose group restorebench creates",
		group, strings.Join(foreign, "; "), group)
}

// RunsKVFailover says whether failover case c runs the kv topology over
// its fill rather than the ledger: with a query load, or a store kind
// beyond key-value.
func RunsKVFailover(c config.Case) bool {
	return c.Queries != nil || c.StoreKind != config.StoreKeyValue
}
