package main

// The hostile-topic cases of plan and report --from-topic: a user's
// changelog that holds aborted transactions, or that is deleted while it
// is read. The answers come from complete inputs only: read_committed,
// as Kafka Streams restores an exactly-once application's changelog,
// saying so; and a topic that changes mid-read is an error naming it,
// never half a shape. The cluster is kfake in memory, reached with
// --brokers as a user's cluster is.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
)

// fromTopicCluster starts kfake for the test, with an uncompressing producer
// writing to the partition each record names.
func fromTopicCluster(t *testing.T) (*kfake.Cluster, cluster.Config, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := cluster.Config{Brokers: c.ListenAddrs(), ConnectTimeout: 10 * time.Second}
	cl, err := cluster.NewClient(cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cfg, cl
}

// fromTopicTxn writes n records to topic's two partitions in one transaction
// under keys prefix-0000..., committed or aborted.
func fromTopicTxn(t *testing.T, cfg cluster.Config, topic, prefix string, n int, commit bool) {
	t.Helper()
	ctx := context.Background()
	cl, err := cluster.NewClient(cfg, kgo.TransactionalID("user-app-"+prefix), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: fmt.Appendf(nil, "%s-%04d", prefix, i), Value: []byte(strings.Repeat("v", 100))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

// TestHostileFromTopic: --from-topic on a changelog with aborted
// transactions counts the committed state and says it read read_committed;
// on a changelog deleted after the read's first fetch it fails, naming the
// topic, on plan and on report.
func TestHostileFromTopic(t *testing.T) {
	capacityRun, err := filepath.Abs(filepath.Join("..", "..", "testdata", "results", "capacity"))
	if err != nil {
		t.Fatal(err)
	}
	const topic = "user-app-store-changelog"
	for _, tc := range []struct {
		name string
		// setup writes the topic; it may return a change to make to it
		// while the second fetch of its read waits.
		setup   func(t *testing.T, cfg cluster.Config, cl *kgo.Client) func(context.Context, *kadm.Client) error
		command []string
		want    []string // in the output; with wantErr, in the error
		wantErr bool
	}{
		{"1,000 committed and 1,000 aborted records", fromTopicWithAborts, []string{"plan", "--from", capacityRun, "--rto", "2m"},
			[]string{"in 1,000 records over 2 partitions", "live keys 1,000,", "the topic holds transactions (4 transaction markers, 2 of them aborting): read with read_committed", "and aborted transactions' records)"}, false},
		{"deleted mid-read (plan)", fromTopicDeletedMidRead, []string{"plan", "--from", capacityRun, "--rto", "2m"},
			[]string{"--from-topic: topic " + topic + " changed while it was read: it was deleted"}, true},
		{"deleted mid-read (report)", fromTopicDeletedMidRead, []string{"report", capacityRun, "--out", "OUT"},
			[]string{"--from-topic: topic " + topic + " changed while it was read: it was deleted"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cfg, cl := fromTopicCluster(t)
			adm := kadm.NewClient(cl)
			if err := cluster.CreateChangelog(context.Background(), adm, topic, 2, nil); err != nil {
				t.Fatal(err)
			}
			change := tc.setup(t, cfg, cl)
			var fetches atomic.Int32
			changed := make(chan error, 1)
			if change != nil {
				c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
					if fetches.Add(1) == 2 { // the first fetch has delivered records
						c.SleepControl(func() { changed <- change(context.Background(), adm) })
						c.DropControl()
					}
					return nil, nil, false
				})
			}
			args := append([]string{"--brokers", strings.Join(cfg.Brokers, ","), "-q"}, tc.command...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = t.TempDir()
				}
			}
			out, _, err := cli(t, append(args, "--from-topic", topic)...)
			if change != nil {
				if fetches.Load() < 2 {
					t.Fatalf("the read ended after one fetch (err %v): the topic was not changed mid-read", err)
				}
				if cerr := <-changed; cerr != nil {
					t.Fatalf("changing the topic: %v", cerr)
				}
			}
			if tc.wantErr {
				wantErr(t, tc.name, err, tc.want...)
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in\n%s", w, out)
				}
			}
		})
	}
}

// fromTopicWithAborts holds 1,000 committed records and 1,000 aborted ones under
// other keys.
func fromTopicWithAborts(t *testing.T, cfg cluster.Config, _ *kgo.Client) func(context.Context, *kadm.Client) error {
	fromTopicTxn(t, cfg, "user-app-store-changelog", "committed", 1000, true)
	fromTopicTxn(t, cfg, "user-app-store-changelog", "aborted", 1000, false)
	return nil
}

// fromTopicDeletedMidRead holds 3 MB a partition (a fetch takes 1 MiB of one) and is
// deleted while it is read.
func fromTopicDeletedMidRead(t *testing.T, _ cluster.Config, cl *kgo.Client) func(context.Context, *kadm.Client) error {
	const topic = "user-app-store-changelog"
	for b := range 30 {
		var recs []*kgo.Record
		for i := range 1000 {
			for p := range int32(2) {
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "key-%06d", b*1000+i), Value: []byte(strings.Repeat("v", 90))})
			}
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return func(ctx context.Context, adm *kadm.Client) error {
		_, err := adm.DeleteTopic(ctx, topic)
		return err
	}
}
