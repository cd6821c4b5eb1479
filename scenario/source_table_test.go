package scenario

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/fleet"
)

// sourceFixture is a kfake with a 2-partition topic holding records and an
// admin client on it.
func sourceFixture(t *testing.T, topic string) (*fleet.Env, *kadm.Client, cluster.TopicOffsets) {
	t.Helper()
	cfg := kfakeCluster(t, topic)
	cl, err := cluster.NewClient(cfg, kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	for i := range 10 {
		r := &kgo.Record{Key: []byte{byte(i)}, Value: []byte("v"), Partition: int32(i % 2)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	adm := kadm.NewClient(cl)
	offsets, err := cluster.Offsets(ctx, adm, topic)
	if err != nil {
		t.Fatal(err)
	}
	return &fleet.Env{Cluster: cfg, Logf: t.Logf}, adm, offsets
}

// committed is the group's committed offsets by topic and partition.
func committed(t *testing.T, adm *kadm.Client, group string) map[string]map[int32]int64 {
	t.Helper()
	out := map[string]map[int32]int64{}
	resp, err := adm.FetchOffsets(context.Background(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out // kfake, for a deleted group; Kafka answers none
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 {
			if out[o.Topic] == nil {
				out[o.Topic] = map[int32]int64{}
			}
			out[o.Topic][o.Partition] = o.At
		}
	})
	return out
}

// A source-table restore commits its group's offsets at the topic's end
// (so Kafka Streams restores the whole topic instead of processing it) and
// deletes the group afterwards when it held nothing else.
func TestSourceTableCommitsTheEndOffsetsAndDeletesItsGroup(t *testing.T) {
	env, adm, offsets := sourceFixture(t, "users-topic")
	ctx := context.Background()
	g, err := fleet.CommitSourceOffsets(ctx, env, "rb-app", offsets)
	if err != nil {
		t.Fatal(err)
	}
	got := committed(t, adm, "rb-app")["users-topic"]
	for p, end := range offsets.End {
		if end == 0 || got[p] != end {
			t.Fatalf("partition %d: committed %d, want the end offset %d", p, got[p], end)
		}
	}
	// An interrupted run's leftovers are restorebench's own: a second
	// commit takes them over.
	if _, err := fleet.CommitSourceOffsets(ctx, env, "rb-app", offsets); err != nil {
		t.Fatalf("over restorebench's own offsets: %v", err)
	}
	if err := g.Release(ctx, env); err != nil {
		t.Fatal(err)
	}
	if left := committed(t, adm, "rb-app"); len(left) != 0 {
		t.Fatalf("after release the group still holds %v", left)
	}
}

// A group holding offsets on the topic that restorebench did not commit
// (an application's) is refused, untouched, with an error naming it.
func TestSourceTableRefusesAGroupWithSomeoneElsesOffsets(t *testing.T) {
	env, adm, offsets := sourceFixture(t, "users-topic")
	ctx := context.Background()
	var theirs kadm.Offsets
	theirs.AddOffset("users-topic", 0, 3, -1)
	if err := adm.CommitAllOffsets(ctx, "their-app", theirs); err != nil {
		t.Fatal(err)
	}
	_, err := fleet.CommitSourceOffsets(ctx, env, "their-app", offsets)
	if err == nil || !strings.Contains(err.Error(), "their-app") || !strings.Contains(err.Error(), "users-topic") || !strings.Contains(err.Error(), "0@3") {
		t.Fatalf("err = %v", err)
	}
	if got := committed(t, adm, "their-app")["users-topic"]; len(got) != 1 || got[0] != 3 {
		t.Fatalf("their offsets changed: %v", got)
	}
}

// A group holding offsets on other topics restorebench created (a kv
// restore's input topic under the same application id) keeps them:
// release deletes only the offsets the restore committed.
func TestSourceTableKeepsTheGroupsOtherOffsets(t *testing.T) {
	env, adm, offsets := sourceFixture(t, "users-topic")
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "rb-app-balances-input"); err != nil {
		t.Fatal(err)
	}
	env.Owned = cluster.OwnedIn(t.TempDir())
	if err := env.Owned.Record(ctx, adm, "rb-app-balances-input", "test"); err != nil {
		t.Fatal(err)
	}
	var other kadm.Offsets
	other.AddOffset("rb-app-balances-input", 0, 0, -1)
	if err := adm.CommitAllOffsets(ctx, "rb-app", other); err != nil {
		t.Fatal(err)
	}
	g, err := fleet.CommitSourceOffsets(ctx, env, "rb-app", offsets)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Release(ctx, env); err != nil {
		t.Fatal(err)
	}
	left := committed(t, adm, "rb-app")
	if _, ok := left["users-topic"]; ok || len(left["rb-app-balances-input"]) != 1 {
		t.Fatalf("after release: %v, want only the other topic's offset", left)
	}
}

// A group with a live member (an application running under that id) is
// not committed into; the error says who the members may be.
func TestSourceTableRefusesAGroupWithMembers(t *testing.T) {
	env, _, offsets := sourceFixture(t, "users-topic")
	member, err := cluster.NewClient(env.Cluster, kgo.ConsumerGroup("busy-app"), kgo.ConsumeTopics("users-topic"))
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for member.PollRecords(ctx, 1).NumRecords() == 0 && ctx.Err() == nil {
	}
	_, err = fleet.CommitSourceOffsets(ctx, env, "busy-app", offsets)
	if err == nil || !strings.Contains(err.Error(), "the group has members") {
		t.Fatalf("err = %v", err)
	}
}
