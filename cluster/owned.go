package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/internal/atomicfile"
)

// Owned is restorebench's record of the topics it created on one cluster,
// so that it never writes, alters, truncates or deletes a topic it did not
// create (docs/your-cluster.md: a user's cluster is read-only to restorebench unless
// restorebench created the thing). Nothing on a topic can say who created
// it, and Kafka's topic configs are a closed set, so the record is kept
// beside the fill manifests: a file per topic, <data-dir>/owned/<cluster
// id>/<topic>.json, holding the topic's ID as the broker gave it when
// restorebench created it. A topic deleted and created again by someone
// else under the same name has another ID and is not restorebench's any
// more. With OnCluster the record is also kept on the cluster itself
// (OwnedTopicsTopic, owned_topic.go), where a restorebench with another
// data directory or on another host finds it; a topic is restorebench's
// when either record holds it with the ID it has now. A topic created by a
// restorebench that kept no record (before this one) is in neither and is
// refused: the error names it and the way around.
//
// On the embedded broker everything is restorebench's (the broker is its
// own, its log directory locked by this process): Everything owns every
// topic and records nothing.
//
// A nil *Owned records nothing and owns nothing.
type Owned struct {
	dir string
	all bool
	cl  *clusterRecord // nil: the local record alone
}

// OwnedIn is the record kept in dir (<data-dir>/owned/<cluster id>).
func OwnedIn(dir string) *Owned { return &Owned{dir: dir} }

// OwnedEverything is the embedded broker's: every topic on it is
// restorebench's.
func OwnedEverything() *Owned { return &Owned{all: true} }

// Everything reports whether every topic and group of the cluster is
// restorebench's own (the embedded broker).
func (o *Owned) Everything() bool { return o != nil && o.all }

// Where names the record for errors: its directory, and the cluster's
// record topic with OnCluster.
func (o *Owned) Where() string {
	switch {
	case o == nil || o.dir == "":
		return "this process"
	case o.cl != nil:
		return "topic " + OwnedTopicsTopic + " or " + o.dir
	}
	return o.dir
}

// ownedTopic is one file of the record.
type ownedTopic struct {
	Topic     string    `json:"topic"`
	TopicID   string    `json:"topic_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// What restorebench created it for.
	What string `json:"what"`
	// CreatedBy is who created it, in the cluster record: host name and
	// data directory (no credential).
	CreatedBy string `json:"created_by,omitempty"`
}

func (o *Owned) path(topic string) string { return filepath.Join(o.dir, topic+".json") }

// Record notes that restorebench has just created topic (for what: "the
// kv topology's input topic of application x"), with its current ID: in
// the local record and, with OnCluster and an ID, in the cluster's.
func (o *Owned) Record(ctx context.Context, adm *kadm.Client, topic, what string) error {
	if o == nil || o.all {
		return nil
	}
	id, exists, err := TopicID(ctx, adm, topic)
	if err != nil {
		return fmt.Errorf("recording topic %s as restorebench's: %w", topic, err)
	}
	if !exists {
		return fmt.Errorf("recording topic %s as restorebench's: the broker does not list it", topic)
	}
	rec := ownedTopic{Topic: topic, CreatedAt: time.Now().UTC(), What: what}
	if id != (kadm.TopicID{}) {
		rec.TopicID = id.String()
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return fmt.Errorf("recording topic %s as restorebench's: %w", topic, err)
	}
	if err := atomicfile.Write(o.path(topic), append(b, '\n')); err != nil {
		return err
	}
	if o.cl == nil || rec.TopicID == "" {
		return nil
	}
	if err := o.cl.record(ctx, rec); err != nil {
		return fmt.Errorf("recording topic %s as restorebench's: %w", topic, err)
	}
	return nil
}

// Owns reports whether topic, which exists, is the one restorebench
// created: recorded on the cluster (OnCluster) or locally, with the ID it
// has now (a locally recorded topic without an ID, from a broker that
// gives none, by its name). A cluster record topic that is not
// restorebench's is an error naming it.
func (o *Owned) Owns(ctx context.Context, adm *kadm.Client, topic string) (bool, error) {
	if o == nil {
		return false, nil
	}
	if o.all {
		return true, nil
	}
	if o.cl != nil {
		id, exists, err := TopicID(ctx, adm, topic)
		if err != nil {
			return false, err
		}
		if exists {
			if ours, err := o.cl.owns(ctx, topic, id); err != nil || ours {
				return ours, err
			}
		}
	}
	return o.ownsLocally(ctx, adm, topic)
}

// ownsLocally is Owns by the local record alone.
func (o *Owned) ownsLocally(ctx context.Context, adm *kadm.Client, topic string) (bool, error) {
	b, err := os.ReadFile(o.path(topic))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var rec ownedTopic
	if err := json.Unmarshal(b, &rec); err != nil || rec.Topic != topic {
		return false, nil // a broken record proves nothing
	}
	if rec.TopicID == "" {
		return true, nil
	}
	id, exists, err := TopicID(ctx, adm, topic)
	if err != nil || !exists {
		return false, err
	}
	return id.String() == rec.TopicID, nil
}

// Forget removes topic from the record once restorebench deleted it: its
// local file, and its cluster record by a tombstone (within ownedTimeout).
func (o *Owned) Forget(topic string) error {
	if o == nil || o.all {
		return nil
	}
	if err := os.Remove(o.path(topic)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if o.cl == nil {
		return nil
	}
	return o.cl.forget(context.Background(), topic)
}

// TopicID is topic's ID (all zero from a broker without topic IDs) and
// whether the topic exists.
func TopicID(ctx context.Context, adm *kadm.Client, topic string) (kadm.TopicID, bool, error) {
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return kadm.TopicID{}, false, err
	}
	d, ok := td[topic]
	switch {
	case !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition):
		return kadm.TopicID{}, false, nil
	case d.Err != nil:
		return kadm.TopicID{}, false, fmt.Errorf("topic %s: %w", topic, d.Err)
	}
	return d.ID, true, nil
}
