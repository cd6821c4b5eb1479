package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ownedFixture is an in-memory cluster reached as a user's cluster is
// (cfg), with an admin client on it.
type ownedFixture struct {
	t   *testing.T
	e   *Embedded
	cfg Config
	adm *kadm.Client
}

func newOwnedFixture(t *testing.T) *ownedFixture {
	t.Helper()
	e, err := StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	cfg := Config{Brokers: e.Addrs(), ConnectTimeout: 10 * time.Second}
	f := &ownedFixture{t: t, e: e, cfg: cfg}
	f.fresh()
	return f
}

// fresh replaces f's admin client by a new one (with no cached metadata).
func (f *ownedFixture) fresh() {
	f.t.Helper()
	cl, err := NewClient(f.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(cl.Close)
	f.adm = kadm.NewClient(cl)
}

// dataDir is the record of one restorebench data directory on the
// cluster, its warnings collected.
func (f *ownedFixture) dataDir(by string) (*Owned, *[]string) {
	var mu sync.Mutex
	var warned []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, fmt.Sprintf(format, args...))
	}
	return OwnedIn(f.t.TempDir()).OnCluster(f.cfg, by, logf), &warned
}

// create creates topic of 2 partitions (as restorebench or a user does:
// the same call).
func (f *ownedFixture) create(topic string) { f.createN(topic, 2) }

// createN creates topic of n partitions.
func (f *ownedFixture) createN(topic string, n int32) {
	f.t.Helper()
	if err := CreateChangelog(context.Background(), f.adm, topic, n, nil); err != nil {
		f.t.Fatal(err)
	}
}

// owns is o.Owns(topic), failing the test on an error.
func (f *ownedFixture) owns(o *Owned, topic string) bool {
	f.t.Helper()
	ok, err := o.Owns(context.Background(), f.adm, topic)
	if err != nil {
		f.t.Fatalf("Owns(%s): %v", topic, err)
	}
	return ok
}

// produce writes key=value records to topic, in order.
func (f *ownedFixture) produce(topic string, kvs ...string) {
	f.t.Helper()
	cl, err := NewClient(f.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < len(kvs); i += 2 {
		r := &kgo.Record{Topic: topic, Key: []byte(kvs[i]), Value: []byte(kvs[i+1])}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			f.t.Fatal(err)
		}
	}
}

// recordEnd is the record topic's end offset.
func (f *ownedFixture) recordEnd() int64 {
	f.t.Helper()
	o, err := Offsets(context.Background(), f.adm, OwnedTopicsTopic)
	if err != nil {
		f.t.Fatal(err)
	}
	return o.End[0]
}

// TestOwnedAcrossDataDirs: two restorebench data directories on one
// cluster (two hosts, a CI runner): what one created the other accepts;
// what a user created, or deleted and created again under the same name,
// neither does; a topic restorebench deletes is forgotten on the cluster.
func TestOwnedAcrossDataDirs(t *testing.T) {
	f := newOwnedFixture(t)
	ctx := context.Background()
	a, _ := f.dataDir("host-a:/a/.restorebench")
	b, _ := f.dataDir("host-b:/b/.restorebench")

	f.create("restorebench-balances-input")
	if err := a.Record(ctx, f.adm, "restorebench-balances-input", "the kv topology's input topic"); err != nil {
		t.Fatal(err)
	}
	if !f.owns(a, "restorebench-balances-input") || !f.owns(b, "restorebench-balances-input") {
		t.Fatal("a topic one data dir created is not restorebench's to both")
	}
	// The local record alone (before the cluster record) refused it.
	if f.owns(OwnedIn(t.TempDir()), "restorebench-balances-input") {
		t.Fatal("a data dir without the cluster record owns what another created")
	}

	f.create("shop-orders-input") // the user's, not through Record
	if f.owns(a, "shop-orders-input") || f.owns(b, "shop-orders-input") {
		t.Fatal("a topic the user created is restorebench's")
	}

	// The user deletes restorebench's topic and creates one of the name.
	if err := DeleteTopic(ctx, f.adm, "restorebench-balances-input"); err != nil {
		t.Fatal(err)
	}
	f.create("restorebench-balances-input")
	f.fresh() // kgo answers metadata from its cache for a while
	if f.owns(a, "restorebench-balances-input") || f.owns(b, "restorebench-balances-input") {
		t.Fatal("a topic the user created again under restorebench's topic's name is restorebench's")
	}

	// b creates one, records it, deletes it: its record is tombstoned.
	f.create("rb-copy")
	if err := b.Record(ctx, f.adm, "rb-copy", "a copy"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTopic(ctx, f.adm, "rb-copy"); err != nil {
		t.Fatal(err)
	}
	if err := b.Forget("rb-copy"); err != nil {
		t.Fatal(err)
	}
	log, _, err := b.cl.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := log["rb-copy"]; ok {
		t.Fatal("a topic restorebench deleted is still recorded on the cluster")
	}
	rec, ok := log["restorebench-balances-input"]
	if !ok || rec.CreatedBy != "host-a:/a/.restorebench" || rec.What == "" || rec.TopicID == "" {
		t.Fatalf("the cluster record of a's topic is %+v, want its id, what and created_by", rec)
	}
}

// TestOwnedRefusesForeignRecordTopic: a topic named as the record that
// restorebench did not create is trusted for nothing, is named in the
// error, and is not written to.
func TestOwnedRefusesForeignRecordTopic(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(f *ownedFixture, victimID string)
		want  string
	}{
		{
			name: "first record claims a user's topic",
			setup: func(f *ownedFixture, victimID string) {
				f.createN(OwnedTopicsTopic, 1)
				f.produce(OwnedTopicsTopic, "shop-orders-input", `{"topic":"shop-orders-input","topic_id":"`+victimID+`"}`)
			},
			want: "its first record is not the self-record",
		},
		{
			name: "a self-record copied from another cluster, then a claim",
			setup: func(f *ownedFixture, victimID string) {
				f.createN(OwnedTopicsTopic, 1)
				f.produce(OwnedTopicsTopic,
					OwnedTopicsTopic, `{"topic":"`+OwnedTopicsTopic+`","topic_id":"AAAAAAAAAAAAAAAAAAAAAA"}`,
					"shop-orders-input", `{"topic":"shop-orders-input","topic_id":"`+victimID+`"}`)
			},
			want: "its first record is not the self-record",
		},
		{
			name: "two partitions",
			setup: func(f *ownedFixture, victimID string) {
				if _, err := f.adm.CreateTopic(context.Background(), 2, 1, nil, OwnedTopicsTopic); err != nil {
					f.t.Fatal(err)
				}
				f.produce(OwnedTopicsTopic, "x", "y")
			},
			want: "it has 2 partitions",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newOwnedFixture(t)
			ctx := context.Background()
			f.create("shop-orders-input")
			id, _, err := TopicID(ctx, f.adm, "shop-orders-input")
			if err != nil {
				t.Fatal(err)
			}
			c.setup(f, id.String())
			end := f.recordEnd()
			o, _ := f.dataDir("host-a:/a")
			ok, err := o.Owns(ctx, f.adm, "shop-orders-input")
			if ok || err == nil || !strings.Contains(err.Error(), OwnedTopicsTopic) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Owns = %v, %v; want a refusal naming %s and %q", ok, err, OwnedTopicsTopic, c.want)
			}
			f.create("rb-fill")
			if err := o.Record(ctx, f.adm, "rb-fill", "a fill"); err == nil || !strings.Contains(err.Error(), OwnedTopicsTopic) {
				t.Fatalf("Record over a foreign record topic: %v, want an error naming it", err)
			}
			if got := f.recordEnd(); got != end {
				t.Fatalf("the foreign record topic was written: end offset %d, was %d", got, end)
			}
		})
	}
}

// TestOwnedRecordTopicDenied: without the ACLs for the record topic,
// restorebench warns, naming the topic and the permission, and falls back
// to its data directory's record: what it created there stays its own,
// nothing else becomes so.
func TestOwnedRecordTopicDenied(t *testing.T) {
	f := newOwnedFixture(t)
	ctx := context.Background()
	var denyCreate, denyFetch atomic.Bool
	f.e.cluster.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.e.cluster.KeepControl()
		r := req.(*kmsg.CreateTopicsRequest)
		if !denyCreate.Load() || len(r.Topics) != 1 || r.Topics[0].Topic != OwnedTopicsTopic {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.CreateTopicsResponse)
		st := kmsg.NewCreateTopicsResponseTopic()
		st.Topic, st.ErrorCode = OwnedTopicsTopic, kerr.TopicAuthorizationFailed.Code
		resp.Topics = append(resp.Topics, st)
		return resp, nil, true
	})
	f.e.cluster.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.e.cluster.KeepControl()
		if !denyFetch.Load() {
			return nil, nil, false
		}
		r := req.(*kmsg.FetchRequest)
		resp := r.ResponseKind().(*kmsg.FetchResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewFetchResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, p := range rt.Partitions {
				sp := kmsg.NewFetchResponseTopicPartition()
				sp.Partition, sp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	warnedOf := func(warned []string, perm string) {
		t.Helper()
		if len(warned) == 0 || !strings.Contains(warned[0], OwnedTopicsTopic) || !strings.Contains(warned[0], perm) {
			t.Fatalf("warnings %q, want one naming %s and %s", warned, OwnedTopicsTopic, perm)
		}
	}

	// No permission to create the record topic: recorded locally, warned.
	denyCreate.Store(true)
	a, warnedA := f.dataDir("host-a:/a")
	f.create("rb-fill")
	if err := a.Record(ctx, f.adm, "rb-fill", "a fill"); err != nil {
		t.Fatalf("Record without Create on the record topic: %v, want a warning", err)
	}
	warnedOf(*warnedA, "Create")
	if !f.owns(a, "rb-fill") {
		t.Fatal("the data dir that created a topic does not own it after a denied cluster record")
	}

	// Another restorebench made the record topic; this one may not read it.
	denyCreate.Store(false)
	c, _ := f.dataDir("host-c:/c")
	f.create("rb-other")
	if err := c.Record(ctx, f.adm, "rb-other", "a fill"); err != nil {
		t.Fatal(err)
	}
	denyFetch.Store(true)
	b, warnedB := f.dataDir("host-b:/b")
	if f.owns(b, "rb-other") {
		t.Fatal("a data dir that may not read the cluster record owns another's topic")
	}
	warnedOf(*warnedB, "Read")
	if !f.owns(a, "rb-fill") {
		t.Fatal("the data dir that created a topic does not own it when the cluster record is unreadable")
	}
}
