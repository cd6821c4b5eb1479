package main

// The hostile-cluster suite: a cluster where a user's application runs
// (its group, its input topic with records still to process, its
// changelog) and restorebench is pointed at it with colliding names. Every
// path that would join, commit into or delete the user's group, or write,
// truncate or delete the user's topics, is refused before it starts,
// naming the group or topic and the way around (another
// --application-id); afterwards the group's offsets and every topic's
// records are exactly what they were. The cluster is kfake in memory,
// reached with --brokers as a user's cluster is (on the embedded broker
// everything is restorebench's own).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// userCluster is a user's cluster for one hostile case.
type userCluster struct {
	t       *testing.T
	brokers string
	adm     *kadm.Client
	cfg     cluster.Config
}

func newUserCluster(t *testing.T) *userCluster {
	t.Helper()
	cfg, _ := testkafka.Embedded(t)
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &userCluster{t: t, brokers: cfg.Brokers[0], adm: kadm.NewClient(cl), cfg: cfg}
}

// changelog creates the user's store changelog: 5,000 records over 2
// partitions.
func (u *userCluster) changelog(topic string) {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 5000, 800, 10, 60, 2
	testkafka.Fill(u.t, u.cfg, topic, spec, nil)
}

// input creates an input topic of 2 partitions with perPartition records
// in each.
func (u *userCluster) input(topic string, perPartition int) {
	u.t.Helper()
	ctx := context.Background()
	if _, err := u.adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
		u.t.Fatal(err)
	}
	cl, err := cluster.NewClient(u.cfg, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		u.t.Fatal(err)
	}
	defer cl.Close()
	for p := range int32(2) {
		for i := range perPartition {
			r := &kgo.Record{Partition: p, Key: fmt.Appendf(nil, "k%d", i), Value: []byte("order")}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				u.t.Fatal(err)
			}
		}
	}
}

// commit commits group's offsets on topic, at at on both partitions.
func (u *userCluster) commit(group, topic string, at int64) {
	u.t.Helper()
	var offs kadm.Offsets
	offs.AddOffset(topic, 0, at, -1)
	offs.AddOffset(topic, 1, at, -1)
	if err := u.adm.CommitAllOffsets(context.Background(), group, offs); err != nil {
		u.t.Fatal(err)
	}
}

// state is what of the user's restorebench must leave as it found:
// groups' committed offsets and topics' offsets (start and end, by
// partition; missing for a topic that does not exist).
func (u *userCluster) state(groups, topics []string) map[string]string {
	u.t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for _, g := range groups {
		resp, err := u.adm.FetchOffsets(ctx, g)
		if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			u.t.Fatal(err)
		}
		resp.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At >= 0 {
				out[fmt.Sprintf("group %s %s[%d]", g, o.Topic, o.Partition)] = fmt.Sprint(o.At)
			}
		})
	}
	for _, topic := range topics {
		td, err := u.adm.ListTopics(ctx, topic)
		if err != nil {
			u.t.Fatal(err)
		}
		if d, ok := td[topic]; !ok || d.Err != nil {
			out["topic "+topic] = "missing"
			continue
		}
		o, err := cluster.Offsets(ctx, u.adm, topic)
		if err != nil { // kfake, for a topic deleted a moment ago
			out["topic "+topic] = "unreadable: " + err.Error()
			continue
		}
		for p, end := range o.End {
			out[fmt.Sprintf("topic %s[%d]", topic, p)] = fmt.Sprintf("%d-%d", o.Start[p], end)
		}
	}
	return out
}

// TestHostileUsersApplicationIsNeverTouched: the user's application
// "shop" (group shop committed at 50/50 on shop-orders-input, which holds
// 60/60: 20 records pending; store orders' changelog shop-orders-changelog
// of 5,000 records) and restorebench run under its names.
func TestHostileUsersApplicationIsNeverTouched(t *testing.T) {
	groups := []string{"shop"}
	topics := []string{"shop-orders-input", "shop-orders-changelog", "shop-payments-input", "shop-bench-changelog", "shop-bench-input", "orders-copy", "rb-s-changelog-compaction-c-1"}
	userApp := func(u *userCluster) {
		u.changelog("shop-orders-changelog")
		u.input("shop-orders-input", 60)
		u.commit("shop", "shop-orders-input", 50)
	}
	// shop's other store's input: the group holds offsets elsewhere.
	otherStore := func(u *userCluster) {
		u.changelog("shop-orders-changelog")
		u.input("shop-payments-input", 60)
		u.commit("shop", "shop-payments-input", 50)
	}
	profile := func(dir, body string) string {
		p := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name  string
		setup func(u *userCluster)
		args  func(dir string) []string
		// want: the error names these; nil: the command succeeds.
		want []string
	}{
		{
			name:  "kafka-streams restore of the user's changelog under its application id, records pending",
			setup: userApp,
			args: func(string) []string {
				return []string{"restore", "--engine", "kafka-streams", "--application-id", "shop", "--store", "orders"}
			},
			want: []string{"consumer group shop", "shop-orders-input 0@50, 1@50", "nothing was started or changed", "another --application-id"},
		},
		{
			name: "kafka-streams restore, the user's input topic without a group",
			setup: func(u *userCluster) {
				u.changelog("shop-orders-changelog")
				u.input("shop-orders-input", 60)
			},
			args: func(string) []string {
				return []string{"restore", "--engine", "kafka-streams", "--application-id", "shop", "--store", "orders"}
			},
			want: []string{"topic shop-orders-input exists and restorebench did not create it", "another --application-id"},
		},
		{
			name:  "kafka-streams restore under the id of an application with another store",
			setup: otherStore,
			args: func(string) []string {
				return []string{"restore", "--engine", "kafka-streams", "--application-id", "shop", "--store", "orders"}
			},
			want: []string{"consumer group shop", "shop-payments-input 0@50, 1@50", "another --application-id"},
		},
		{
			name: "kafka-streams restore of a copy as a source table, in the user's group",
			setup: func(u *userCluster) {
				otherStore(u)
				u.changelog("orders-copy")
			},
			args: func(string) []string {
				return []string{"restore", "--engine", "kafka-streams", "--topic", "orders-copy", "--application-id", "shop"}
			},
			want: []string{"consumer group shop", "shop-payments-input 0@50, 1@50", "another --application-id"},
		},
		{
			name:  "kafka-streams profile run under the user's application id, refused before its fill",
			setup: userApp,
			args: func(dir string) []string {
				return []string{"run", profile(dir, "name: p\napplication_id: shop\nstore: bench\nfill: {records: 1000, keys: 100, partitions: 2}\nrepeats: 1\ncases:\n  - name: ks\n    engine: kafka-streams\n")}
			},
			want: []string{"consumer group shop", "shop-orders-input 0@50, 1@50", "another --application-id"},
		},
		{
			name:  "fill --refill over the user's changelog",
			setup: userApp,
			args: func(string) []string {
				return append([]string{"fill", "--application-id", "shop", "--store", "orders", "--refill"}, smallFill...)
			},
			want: []string{"topic shop-orders-changelog already exists and restorebench did not create it", "topic restorebench-owned-topics or",
				"--refill does not delete it", "another --application-id"},
		},
		{
			name: "compaction scenario over a user's topic named as its copy",
			setup: func(u *userCluster) {
				u.input("rb-s-changelog-compaction-c-1", 5)
			},
			args: func(dir string) []string {
				return []string{"run", profile(dir, "name: p\napplication_id: rb\nstore: s\nfill: {records: 1000, keys: 100, partitions: 2}\nrepeats: 1\ncases:\n  - name: c\n    scenario: compaction\n    compaction: {settle: 1s}\n")}
			},
			want: []string{"topic rb-s-changelog-compaction-c-1 exists and restorebench did not create it", "nothing was written or deleted", "another application_id"},
		},
		{
			// The control: the model engine joins no group and writes no
			// topic, so it restores the user's changelog (counted, not
			// verified) and leaves everything as it was.
			name:  "model restore of the user's changelog under its application id",
			setup: userApp,
			args: func(string) []string {
				return []string{"restore", "--application-id", "shop", "--store", "orders"}
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newUserCluster(t)
			c.setup(u)
			before := u.state(groups, topics)
			dir := t.TempDir()
			args := append([]string{"-q", "--data-dir", dir, "--brokers", u.brokers, "--connect-timeout", "10s"}, c.args(dir)...)
			_, _, err := cli(t, args...)
			if c.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			} else {
				for _, w := range c.want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v does not name %q", err, w) // and what it changed, below
						break
					}
				}
			}
			if after := u.state(groups, topics); !reflect.DeepEqual(after, before) {
				t.Fatalf("the user's groups and topics changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestHostileSecondDataDirOwnsWhatTheFirstCreated: restorebench's own
// changelog, filled from one --data-dir (one host), is restorebench's to a
// second data dir on the same cluster (another host, a CI runner): the
// cluster record (restorebench-owned-topics) says so, and fill --refill
// from there refills it instead of refusing it as a user's topic.
func TestHostileSecondDataDirOwnsWhatTheFirstCreated(t *testing.T) {
	u := newUserCluster(t)
	fill := func(dir string, extra ...string) error {
		args := append([]string{"-q", "--data-dir", dir, "--brokers", u.brokers, "--connect-timeout", "10s", "fill"}, smallFill...)
		_, _, err := cli(t, append(args, extra...)...)
		return err
	}
	if err := fill(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := fill(t.TempDir(), "--refill"); err != nil {
		t.Fatalf("a second data dir refused restorebench's own changelog: %v", err)
	}
	td, err := u.adm.ListTopics(context.Background(), cluster.OwnedTopicsTopic)
	if err != nil || td[cluster.OwnedTopicsTopic].Err != nil {
		t.Fatalf("no %s on the cluster: %v", cluster.OwnedTopicsTopic, err)
	}
}
