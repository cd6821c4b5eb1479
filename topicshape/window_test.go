package topicshape

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/verify"
)

// TestStateOfAWindowChangelog reads a window store's changelog written by
// restorebench's window fill (two hours of event time in five-minute
// windows, an hour's retention, overwrites and tombstones) as a topic it
// did not fill: read as a window store's changelog of that retention it is
// the fill's expected state (which both engines' window restores verify
// against), the first hour's windows left out; read key by key it gives
// the same entries; read as a key-value store's it is not; a retention it
// was not written with is not either.
func TestStateOfAWindowChangelog(t *testing.T) {
	emb, err := cluster.StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	cfg := cluster.Config{Brokers: emb.Addrs(), ConnectTimeout: 10 * time.Second}
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 7200, 50, 3, 0.05
	spec.StoreKind, spec.EventStepMicros, spec.WindowSizeMs, spec.RetentionMs = loadgen.KindWindow, 1_000_000, 5*60_000, 60*60_000
	const topic = "clicks-per-page-changelog"
	// As Kafka Streams makes a window store's changelog: compacted and
	// deleted, kept a day longer than the store keeps its windows.
	testkafka.Fill(t, cfg, topic, spec, map[string]string{"cleanup.policy": "compact,delete", "retention.ms": "90000000"})
	if ret, err := WindowRetention(context.Background(), cfg, topic); err != nil || ret != time.Hour {
		t.Fatalf("the store's retention from its changelog's retention.ms of a day and an hour: %v, %v; want 1h", ret, err)
	}
	want, _, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := StateOptions{WindowRetentionMs: spec.RetentionMs, Idle: time.Second}
	st, err := State(ctx, cfg, topic, o)
	if err != nil {
		t.Fatal(err)
	}
	if ok, v := verify.Check(want, st.Partitions); !ok {
		t.Fatalf("read as a window store's changelog, the topic is not the fill's expected state: %s", v.Problem)
	}
	var keys int64
	for _, p := range want {
		keys += p.Keys
	}
	// 50 keys in 12 or 13 live five-minute windows, a few deleted.
	if keys < 500 || keys > 13*50 {
		t.Fatalf("the expected state holds %d entries, want an hour's windows of 50 keys", keys)
	}
	entries, err := Entries(ctx, cfg, topic, 1, st.Ends[1], o)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(entries)) != want[1].Keys {
		t.Fatalf("read key by key, partition 1 holds %d entries, want %d", len(entries), want[1].Keys)
	}
	var d loadgen.Digest
	for _, h := range entries {
		d += loadgen.Digest(h)
	}
	if d != want[1].Digest {
		t.Fatalf("read key by key, partition 1's digest is %s, want %s", d, want[1].Digest)
	}
	for name, other := range map[string]StateOptions{
		"a key-value store's":         {Idle: time.Second},
		"a window store's of 2 hours": {WindowRetentionMs: 2 * spec.RetentionMs, Idle: time.Second},
	} {
		st, err := State(ctx, cfg, topic, other)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := verify.Check(want, st.Partitions); ok {
			t.Errorf("read as %s changelog, the topic still verified as the window store's state", name)
		}
	}
}

// TestStateOfAShortWindowKeyFails: a key too short to be a window store's
// fails the read, naming its partition and offset, as Kafka Streams'
// restore of it fails; it is not skipped into a digest that passes.
func TestStateOfAShortWindowKeyFails(t *testing.T) {
	cfg, _ := changelog(t, 0, 0)
	cl, err := newProducer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	const topic = "short-keys-changelog"
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	good := loadgen.AppendWindowKey(nil, []byte("page-1"), 60_000, 0)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: good, Value: []byte("1")},
		&kgo.Record{Topic: topic, Key: []byte("page-2"), Value: []byte("1")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	testkafka.SetTopicConfig(t, cfg, topic, "retention.ms", "3600000")
	if ret, err := WindowRetention(ctx, cfg, topic); err == nil || !strings.Contains(err.Error(), "retention.ms is 3600000, not a day longer") {
		t.Fatalf("the store's retention from a changelog kept an hour: %v, %v; want an error saying why", ret, err)
	}
	_, err = State(ctx, cfg, topic, StateOptions{WindowRetentionMs: 3_600_000, Idle: time.Second})
	if err == nil || !strings.Contains(err.Error(), "partition 0 offset 1") || !strings.Contains(err.Error(), "not a window store's changelog key") {
		t.Fatalf("a 6-byte key read as a window store's: %v", err)
	}
}
