package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/internal/poll"
)

// OwnedTopicsTopic is restorebench's record, on the cluster itself, of the
// topics it created there, so that every restorebench reaching the cluster
// (another host, a CI runner, another --data-dir) recognises them: a
// compacted topic of one partition holding a record per created topic, key
// the topic's name, value the JSON of ownedTopic (its name, the ID the
// broker gave it right after restorebench created it, when, what for and
// created_by: host name and data directory, never a credential). A topic
// restorebench deletes is tombstoned.
//
// The topic is trusted only when it is restorebench's own: its first
// record, at offset 0, is the self-record restorebench writes as it
// creates the topic (key and topic OwnedTopicsTopic, topic_id the topic's
// own current ID). Kafka's topic configs are a closed set, so no config
// can mark it. A topic of this name that is not so (another partition
// count, a log not starting at 0, no or another first record) is refused
// with an error naming it, and nothing is written to it. As any record on
// a cluster, it is as trustworthy as the ACLs that say who may write it.
//
// Without the permissions it needs (Describe and Read on the topic to
// recognise topics, Create and Write to record them), restorebench falls
// back to the record in its data directory with a warning naming the
// topic and the permission: it then recognises only what that directory
// created, as before this record existed. A broker that gives topics no
// ID records nothing here either.
const OwnedTopicsTopic = "restorebench-owned-topics"

const (
	// ownedTimeout bounds each read or write of the cluster record.
	ownedTimeout = 30 * time.Second
	// ownedSelfWait is how long a just-created record topic may stay
	// empty (its creator writes the self-record right after creating it).
	ownedSelfWait = 5 * time.Second
	// ownedMaxRecords and ownedMaxBytes cap the records and key+value
	// bytes read of the record topic, so that a huge or hostile topic
	// costs bounded memory: a clear error past either.
	ownedMaxRecords = 200_000
	ownedMaxBytes   = 64 << 20
)

// clusterRecord is where OwnedTopicsTopic is read and written from.
type clusterRecord struct {
	cfg  Config
	by   string
	logf func(format string, args ...any)
}

// OnCluster returns o keeping its record on the cluster reached with cfg
// too (OwnedTopicsTopic), as created by createdBy (host name and data
// directory), warnings to logf (nil: none). The local record is kept as
// before, so topics an older restorebench recorded stay recognised.
func (o *Owned) OnCluster(cfg Config, createdBy string, logf func(format string, args ...any)) *Owned {
	if o == nil || o.all {
		return o
	}
	c := *o
	c.cl = &clusterRecord{cfg: cfg, by: createdBy, logf: logf}
	return &c
}

// ownedLog is what the cluster record holds: the latest record of each
// topic, by name.
type ownedLog map[string]ownedTopic

// errNotOurRecord is the error of a record topic that is not restorebench's.
func errNotOurRecord(why string) error {
	return fmt.Errorf("topic %s exists and is not restorebench's record of the topics it created (%s), so restorebench "+
		"trusts nothing it says and writes nothing to it: if it is not yours, delete it and restorebench creates its own",
		OwnedTopicsTopic, why)
}

// denied reports whether err is the cluster refusing a permission (an ACL).
func denied(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}

// warnDenied logs that the record topic could not be used for want
// ("read", "create or write"), needing perm, and what restorebench does
// instead.
func (r *clusterRecord) warnDenied(want, perm string, err error) {
	if r.logf != nil {
		r.logf("warning: restorebench may not %s topic %s (%v): it needs %s on it; only the topics this data directory "+
			"recorded are recognised as restorebench's", want, OwnedTopicsTopic, err, perm)
	}
}

// read reads the record topic whole, from offset 0 to its end offset,
// within ownedTimeout. exists is false when there is no record topic (or
// the broker gives topics no ID): nothing is recorded on the cluster.
func (r *clusterRecord) read(ctx context.Context) (log ownedLog, exists bool, err error) {
	err = r.withClient(ctx, func(ctx context.Context, cl *kgo.Client) error {
		adm := kadm.NewClient(cl)
		selfID, found, err := TopicID(ctx, adm, OwnedTopicsTopic)
		if err != nil || !found || selfID == (kadm.TopicID{}) {
			return err
		}
		exists = true
		end, err := r.selfEnd(ctx, adm)
		if err != nil {
			return err
		}
		log, err = r.consume(ctx, selfID, end)
		return err
	})
	return log, exists, err
}

// selfEnd checks the record topic's shape (one partition, log from offset
// 0) and returns its end offset, waiting up to ownedSelfWait for the
// self-record of a topic created a moment ago.
func (r *clusterRecord) selfEnd(ctx context.Context, adm *kadm.Client) (int64, error) {
	var end int64
	readFailed := false // a reading's own error is returned as it is
	err := poll.Until(ctx, 200*time.Millisecond, ownedSelfWait, "", func(ctx context.Context) (bool, error) {
		var err error
		end, err = r.selfEndOnce(ctx, adm)
		readFailed = err != nil
		return end > 0, err
	})
	switch {
	case errors.Is(err, poll.ErrTimeout):
		return 0, errNotOurRecord("it is empty: restorebench writes its self-record as it creates it")
	case err != nil && !readFailed:
		return 0, fmt.Errorf("reading topic %s: %w", OwnedTopicsTopic, err)
	}
	return end, err
}

// selfEndOnce is one look of selfEnd: the record topic's end offset, 0 while
// it is empty, or why it is not restorebench's record.
func (r *clusterRecord) selfEndOnce(ctx context.Context, adm *kadm.Client) (int64, error) {
	offs, err := Offsets(ctx, adm, OwnedTopicsTopic)
	if err != nil {
		return 0, err
	}
	switch start, end := offs.Start[0], offs.End[0]; {
	case len(offs.End) != 1:
		return 0, errNotOurRecord(fmt.Sprintf("it has %d partitions, restorebench's has 1", len(offs.End)))
	case start != 0:
		return 0, errNotOurRecord(fmt.Sprintf("its log starts at offset %d, so its first record is gone", start))
	case end > ownedMaxRecords:
		return 0, fmt.Errorf("topic %s holds %d records, more than the %d restorebench reads of it", OwnedTopicsTopic, end, ownedMaxRecords)
	default:
		return end, nil
	}
}

// consume reads the record topic's partition from offset 0 to end: the
// record at 0 must be the self-record, each later one is a topic's record
// (the latest wins; a tombstone or a broken record undoes the earlier).
func (r *clusterRecord) consume(ctx context.Context, selfID kadm.TopicID, end int64) (ownedLog, error) {
	cl, err := NewClient(r.cfg, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{OwnedTopicsTopic: {0: kgo.NewOffset().At(0)}}),
		kgo.FetchMaxBytes(4<<20), kgo.FetchMaxPartitionBytes(4<<20), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	log := ownedLog{}
	var next, bytes int64
	for next < end {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("topic %s: not read to its end offset %d within %s (at offset %d)", OwnedTopicsTopic, end, ownedTimeout, next)
		}
		if errs := fs.Errors(); len(errs) > 0 {
			return nil, fmt.Errorf("reading topic %s: %w", OwnedTopicsTopic, errs[0].Err)
		}
		for it := fs.RecordIter(); !it.Done() && next < end; {
			rec := it.Next()
			if rec.Offset >= end {
				next = end
				break
			}
			if bytes += int64(len(rec.Key) + len(rec.Value)); bytes > ownedMaxBytes {
				return nil, fmt.Errorf("topic %s holds more than %d bytes, more than restorebench reads of it", OwnedTopicsTopic, ownedMaxBytes)
			}
			if next == 0 {
				if why := selfRecordWrong(rec, selfID); why != "" {
					return nil, errNotOurRecord(why)
				}
			} else {
				log.apply(rec)
			}
			next = rec.Offset + 1
		}
	}
	return log, nil
}

// selfRecordWrong says why rec, the record topic's first, is not the
// self-record restorebench writes as it creates it ("" when it is).
func selfRecordWrong(rec *kgo.Record, selfID kadm.TopicID) string {
	if rec.Offset != 0 {
		return fmt.Sprintf("its first record is at offset %d, not 0", rec.Offset)
	}
	var self ownedTopic
	if string(rec.Key) != OwnedTopicsTopic || json.Unmarshal(rec.Value, &self) != nil ||
		self.Topic != OwnedTopicsTopic || self.TopicID != selfID.String() {
		return "its first record is not the self-record restorebench writes as it creates it, with the topic's own ID"
	}
	return ""
}

// apply takes rec into the log: the topic's latest record.
func (l ownedLog) apply(rec *kgo.Record) {
	topic := string(rec.Key)
	var t ownedTopic
	if rec.Value == nil || topic == OwnedTopicsTopic || json.Unmarshal(rec.Value, &t) != nil || t.Topic != topic {
		delete(l, topic) // a tombstone, or a record that proves nothing
		return
	}
	l[topic] = t
}

// owns reports whether the cluster record holds topic with ID id (not
// zero). A record topic restorebench may not read is warned of and holds
// nothing.
func (r *clusterRecord) owns(ctx context.Context, topic string, id kadm.TopicID) (bool, error) {
	log, _, err := r.read(ctx)
	if denied(err) {
		r.warnDenied("read", "Describe and Read", err)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	t, ok := log[topic]
	return ok && id != (kadm.TopicID{}) && t.TopicID == id.String(), nil
}

// record writes rec to the record topic, creating that first when missing.
func (r *clusterRecord) record(ctx context.Context, rec ownedTopic) error {
	err := r.ensure(ctx)
	if err == nil {
		err = r.write(ctx, rec.Topic, rec)
	}
	if denied(err) {
		r.warnDenied("create or write", "Create (on the topic or the cluster), Describe, Read and Write", err)
		return nil
	}
	return err
}

// forget tombstones topic's record, when the record topic holds one.
func (r *clusterRecord) forget(ctx context.Context, topic string) error {
	log, _, err := r.read(ctx)
	if err == nil {
		if _, ok := log[topic]; !ok {
			return nil
		}
		err = r.write(ctx, topic, nil)
	}
	if denied(err) {
		r.warnDenied("read or write", "Describe, Read and Write", err)
		return nil
	}
	return err
}

// ensure makes sure the record topic exists and is restorebench's: one
// that exists is read (and refused when it is not restorebench's); a
// missing one is created, compacted with one partition, and its
// self-record written at offset 0 before anything else.
func (r *clusterRecord) ensure(ctx context.Context) error {
	if _, exists, err := r.read(ctx); err != nil || exists {
		return err
	}
	return r.withClient(ctx, func(ctx context.Context, cl *kgo.Client) error {
		adm := kadm.NewClient(cl)
		err := CreateChangelog(ctx, adm, OwnedTopicsTopic, 1, nil)
		if errors.Is(err, kerr.TopicAlreadyExists) {
			// Another restorebench created it a moment ago: it is trusted once
			// its self-record is read.
			_, _, err = r.read(ctx)
			return err
		}
		if err != nil {
			return err
		}
		id, _, err := TopicID(ctx, adm, OwnedTopicsTopic)
		if err != nil {
			return err
		}
		self := ownedTopic{Topic: OwnedTopicsTopic, TopicID: id.String(), CreatedAt: time.Now().UTC(),
			What: "restorebench's record of the topics it created on this cluster"}
		return r.writeWith(ctx, cl, OwnedTopicsTopic, self)
	})
}

// withClient runs f with a client of its own, within ownedTimeout.
func (r *clusterRecord) withClient(ctx context.Context, f func(ctx context.Context, cl *kgo.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, ownedTimeout)
	defer cancel()
	cl, err := NewClient(r.cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	return f(ctx, cl)
}

// write produces topic's record (nil: a tombstone) within ownedTimeout.
func (r *clusterRecord) write(ctx context.Context, topic string, rec any) error {
	return r.withClient(ctx, func(ctx context.Context, cl *kgo.Client) error { return r.writeWith(ctx, cl, topic, rec) })
}

// writeWith produces topic's record on cl; a nil rec is a tombstone.
func (r *clusterRecord) writeWith(ctx context.Context, cl *kgo.Client, topic string, rec any) error {
	out := &kgo.Record{Topic: OwnedTopicsTopic, Key: []byte(topic)}
	if t, ok := rec.(ownedTopic); ok {
		if t.CreatedBy == "" {
			t.CreatedBy = r.by
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Value = b
	}
	if err := cl.ProduceSync(ctx, out).FirstErr(); err != nil {
		return fmt.Errorf("writing topic %s: %w", OwnedTopicsTopic, err)
	}
	return nil
}
