package topicshape

import (
	"context"
	"errors"
	"fmt"
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

// TestReadLeavesAbortedTransactionsOut reads a changelog of 1,000 records
// committed and 1,000 aborted, under other keys: read_committed, as Kafka
// Streams restores an exactly-once application's changelog, it counts the
// 1,000 committed records and their 1,000 live keys, and says it met
// transactions: the markers, one of each kind per partition written.
func TestReadLeavesAbortedTransactionsOut(t *testing.T) {
	cfg, _ := changelog(t, 0, 0)
	const topic = "eos-app-store-changelog"
	cl, err := cluster.NewClient(cfg, kgo.TransactionalID("topicshape-test"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	for _, commit := range []bool{true, false} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var recs []*kgo.Record
		for i := range 1000 {
			key := fmt.Sprintf("committed-%04d", i)
			if !commit {
				key = fmt.Sprintf("aborted-%04d", i)
			}
			recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: []byte(key), Value: []byte(strings.Repeat("v", 50))})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Read(ctx, cfg, topic, Options{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 1000 || s.LiveKeys != 1000 || s.Bytes != 1000*(14+50) {
		t.Errorf("read %d records (%d B), %v live keys: want the 1000 committed ones only", s.Records, s.Bytes, s.LiveKeys)
	}
	if s.IsolationLevel != "read_committed" || !s.Transactional() || s.Markers != 4 || s.AbortMarkers != 2 {
		t.Errorf("read %s, %d markers (%d aborting), transactional=%v: want read_committed over 4 markers, 2 aborting", s.IsolationLevel, s.Markers, s.AbortMarkers, s.Transactional())
	}
	if s.Offsets != 2004 {
		t.Errorf("%d offsets, want the 2000 records' and 4 markers'", s.Offsets)
	}
}

// TestReadFailsWhenTheTopicChangesMidRead changes the topic after the
// read's first fetch: deleted, deleted and created again with more
// records, or its head deleted past where the read had reached. Each read
// fails naming the topic (ErrChanged), instead of answering from the part
// of the topic read before.
func TestReadFailsWhenTheTopicChangesMidRead(t *testing.T) {
	const topic = "app-store-changelog"
	for _, tc := range []struct {
		name   string
		change func(ctx context.Context, adm *kadm.Client, acl *kgo.Client, cfg cluster.Config) error
		want   string
	}{
		{"deleted", func(ctx context.Context, adm *kadm.Client, acl *kgo.Client, cfg cluster.Config) error {
			_, err := adm.DeleteTopic(ctx, topic)
			return err
		}, "it was deleted"},
		{"recreated", func(ctx context.Context, adm *kadm.Client, acl *kgo.Client, cfg cluster.Config) error {
			if _, err := adm.DeleteTopic(ctx, topic); err != nil {
				return err
			}
			if err := waitGone(ctx, acl, topic); err != nil {
				return err
			}
			// More records than before: only the topic's id tells.
			cl, err := newProducer(cfg)
			if err != nil {
				return err
			}
			defer cl.Close()
			return produceBig(ctx, adm, cl, topic, 2, 31)
		}, "deleted and created again"},
		{"head deleted", func(ctx context.Context, adm *kadm.Client, acl *kgo.Client, cfg cluster.Config) error {
			o := kadm.Offsets{}
			o.Add(kadm.Offset{Topic: topic, Partition: 0, At: 25_000})
			o.Add(kadm.Offset{Topic: topic, Partition: 1, At: 25_000})
			resp, err := adm.DeleteRecords(ctx, o)
			if err == nil {
				err = resp.Error()
			}
			return err
		}, "log start moved to offset 25000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cfg := cluster.Config{Brokers: c.ListenAddrs(), ConnectTimeout: 10 * time.Second}
			acl, err := cluster.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer acl.Close()
			adm := kadm.NewClient(acl)
			cl, err := newProducer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx := context.Background()
			// 30,000 records of 100 B per partition: 3 MB, three fetches
			// of a partition's 1 MiB at least.
			if err := produceBig(ctx, adm, cl, topic, 2, 30); err != nil {
				t.Fatal(err)
			}
			var fetches atomic.Int32
			changed := make(chan error, 1)
			c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
				if fetches.Add(1) == 2 { // the first fetch has delivered records
					c.SleepControl(func() { changed <- tc.change(ctx, adm, acl, cfg) })
					c.DropControl()
				}
				return nil, nil, false
			})
			s, err := Read(ctx, cfg, topic, Options{Idle: time.Second})
			if fetches.Load() < 2 {
				t.Fatalf("the read ended after one fetch (%d records, err %v): the topic was not changed mid-read", s.Records, err)
			}
			if cerr := <-changed; cerr != nil {
				t.Fatalf("changing the topic: %v", cerr)
			}
			if s.Records >= 60_000 {
				t.Fatalf("%d records read before the change: not mid-read", s.Records)
			}
			if err == nil || !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "topic "+topic+" changed while it was read") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("read %d records of %d offsets, err %v: want the read to fail naming the topic and %q", s.Records, s.Offsets, err, tc.want)
			}
		})
	}
}

// newProducer is a client of cfg's cluster that writes records
// uncompressed, to the partition each names.
func newProducer(cfg cluster.Config) (*kgo.Client, error) {
	return cluster.NewClient(cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.NoCompression()))
}

// emptyChangelog starts an in-memory broker with topic created as a
// changelog of partitions partitions, and returns its config and a
// producer of newProducer's (closed when the test ends).
func emptyChangelog(t *testing.T, topic string, partitions int32) (cluster.Config, *kgo.Client) {
	t.Helper()
	cfg, _ := changelog(t, 0, 0)
	cl, err := newProducer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cluster.CreateChangelog(context.Background(), kadm.NewClient(cl), topic, partitions, nil); err != nil {
		t.Fatal(err)
	}
	return cfg, cl
}

// produceBig creates topic with partitions partitions and writes thousands
// (×1000) records of 100 B of key+value to each, uncompressed, so a fetch
// of a partition's 1 MiB holds about 9,000 of them.
func produceBig(ctx context.Context, adm *kadm.Client, cl *kgo.Client, topic string, partitions int32, thousands int) error {
	if err := cluster.CreateChangelog(ctx, adm, topic, partitions, nil); err != nil {
		return err
	}
	for b := range thousands {
		var recs []*kgo.Record
		for i := range 1000 {
			for p := range partitions {
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "key-%06d", b*1000+i), Value: []byte(strings.Repeat("v", 90))})
			}
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			return err
		}
	}
	return nil
}

// waitGone waits until topic is no longer listed.
func waitGone(ctx context.Context, cl *kgo.Client, topic string) error {
	for range 100 {
		if _, err := topicID(ctx, cl, topic); errors.Is(err, cluster.ErrTopicNotFound) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("topic %s still listed after its deletion", topic)
}

// TestReadEndsAtTheLastStableOffset leaves a transaction open after 500
// committed records: the read ends at the last stable offset, as a
// read_committed restore does, counting the committed records only, and
// says how many offsets it left to the open transaction.
func TestReadEndsAtTheLastStableOffset(t *testing.T) {
	cfg, _ := changelog(t, 0, 0)
	const topic = "open-txn-changelog"
	ctx := context.Background()
	cl, err := cluster.NewClient(cfg, kgo.TransactionalID("topicshape-open"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{500, 200} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var recs []*kgo.Record
		for i := range n {
			recs = append(recs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "key-%d-%04d", n, i), Value: []byte("v")})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if n == 500 {
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := Read(ctx, cfg, topic, Options{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 500 || s.LiveKeys != 500 || s.Offsets != 501 || s.OpenOffsets != 200 || !s.Transactional() {
		t.Fatalf("read %d records, %v live keys over %d offsets, %d open: want the 500 committed and their marker, 200 left open", s.Records, s.LiveKeys, s.Offsets, s.OpenOffsets)
	}
}
