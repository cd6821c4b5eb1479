package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/topicshape"
)

// TestKnownReadsCountAsARestoreCounts: the independent read of a changelog
// (records overwritten, tombstones, records without a key) counts each
// partition as the engines count a restore of it (engine.Count: the same
// records and key+value bytes, over the same offsets), so the
// kafka-streams engine's count can take the read's figures
// (KnowReads): CountChangelog then answers the same bytes, with the topic
// gone, so without reading it. A partition that holds a transaction is
// marked, and left to the count, which tallies its markers.
func TestKnownReadsCountAsARestoreCounts(t *testing.T) {
	ctx := context.Background()
	cfg, _ := testkafka.Embedded(t)
	topic := testkafka.TopicName(t)
	cl, err := cluster.NewClient(cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if err := cluster.CreateChangelog(ctx, adm, topic, 3, nil); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 3000 {
		r := &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: fmt.Appendf(nil, "key-%d", i%700), Value: make([]byte, i%97)}
		switch {
		case i%11 == 0:
			r.Value = nil // a tombstone, counted with its key
		case i%13 == 0:
			r.Key = nil // no key: Kafka Streams skips it, uncounted
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	st, err := topicshape.State(ctx, cfg, topic, topicshape.StateOptions{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	offsets := testkafka.Offsets(t, cfg, topic)
	c := config.DefaultCase()
	var want int64
	for p := range int32(3) {
		one := offsets.Only([]int32{p})
		in := &engine.Instance{Cluster: cfg, AppID: "count-test", Case: c, StallTimeout: 10 * time.Second}
		cnt, err := in.Count(ctx, one)
		if err != nil {
			t.Fatal(err)
		}
		got := st.Restored[p]
		if got.From != offsets.Start[p] || got.To != offsets.End[p] || got.Records != cnt.Records || got.Bytes != cnt.Bytes || got.Transactional {
			t.Errorf("partition %d: the read counted %+v, a restore's count %+v over offsets %d-%d", p, got, cnt, offsets.Start[p], offsets.End[p])
		}
		if p < 2 && got.Records == 0 {
			t.Errorf("partition %d: nothing counted; the test wrote to it", p)
		}
		want += cnt.Bytes
	}
	KnowReads(cfg.Brokers, topic, c.IsolationLevel(), st.Restored)
	if _, err := adm.DeleteTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	env := &Env{Cluster: cfg, StallTimeout: 2 * time.Second}
	got, read, err := CountChangelog(ctx, env, offsets, c)
	if err != nil || got != want || read.Offsets != offsets.End[0]-offsets.Start[0]+offsets.End[1]-offsets.Start[1] {
		t.Fatalf("CountChangelog of the known reads: %d bytes, %+v, %v; want %d bytes from the reads, the topic being gone", got, read, err, want)
	}
	// Another isolation level is another read: not known.
	eos := c
	eos.Streams = map[string]string{config.PropProcessingGuarantee: config.ExactlyOnceV2}
	if _, _, ok := knownReads(cfg.Brokers, offsets, eos.IsolationLevel()); ok {
		t.Error("a read_uncommitted read was taken for a read_committed restore's count")
	}

	// A transaction marks its partition.
	txTopic := topic + "-txn"
	if err := cluster.CreateChangelog(ctx, adm, txTopic, 2, nil); err != nil {
		t.Fatal(err)
	}
	txn, err := cluster.NewClient(cfg, kgo.TransactionalID("count-test"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Topic: txTopic, Partition: 1, Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: txTopic, Partition: 0, Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	st, err = topicshape.State(ctx, cfg, txTopic, topicshape.StateOptions{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Restored[1].Transactional || st.Restored[0].Transactional {
		t.Errorf("transactional marks %+v: want partition 1's only", st.Restored)
	}
}
