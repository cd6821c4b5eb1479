package topicshape

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
)

// changelog starts an in-memory broker with a topic of 4 partitions holding
// keys written round times each, every 10th key's last record a tombstone.
func changelog(t *testing.T, keys, rounds int) (cluster.Config, string) {
	t.Helper()
	emb, err := cluster.StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	cfg := cluster.Config{Brokers: emb.Addrs(), ConnectTimeout: 10 * time.Second}
	cl, err := cluster.NewClient(cfg, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	const topic = "app-store-changelog"
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 4, nil); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for r := 0; r < rounds; r++ {
		for i := 0; i < keys; i++ {
			v := []byte(strings.Repeat("v", 90))
			if r == rounds-1 && i%10 == 0 {
				v = nil
			}
			recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("key-%07d", i)), Value: v})
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return cfg, topic
}

func TestReadCountsEveryRecordAndTheLiveKeys(t *testing.T) {
	cfg, topic := changelog(t, 3000, 3)
	s, err := Read(context.Background(), cfg, topic, Options{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Partitions != 4 || s.Records != 9000 || s.Offsets != 9000 || s.Tombstones != 300 {
		t.Fatalf("shape %+v: want 4 partitions, 9000 records and offsets, 300 tombstones", s)
	}
	if s.SampleShare != 1 || s.LiveKeys != 2700 {
		t.Fatalf("live keys %v over share %v: want 2700 exactly over every key", s.LiveKeys, s.SampleShare)
	}
	if want := 9000.0 / 2700; math.Abs(s.RecordsPerKey-want) > 1e-9 {
		t.Fatalf("records per live key %v, want %v", s.RecordsPerKey, want)
	}
	if want := 2700.0 * (11 + 90); s.LiveBytes != want {
		t.Fatalf("live bytes %v, want %v", s.LiveBytes, want)
	}
	if got := s.TombstoneShare(); math.Abs(got-300.0/9000) > 1e-9 {
		t.Fatalf("tombstone share %v", got)
	}
	// A key-value store's changelog: compacted only.
	if s.CleanupPolicy != "compact" || s.Segmented() {
		t.Fatalf("cleanup.policy %q (segmented %v): want compact, as created", s.CleanupPolicy, s.Segmented())
	}
}

// TestSegmentedIsAWindowChangelogsPolicy: Kafka Streams creates a window
// or session store's changelog with cleanup.policy compact,delete (old
// windows go by retention), a key-value store's with compact.
func TestSegmentedIsAWindowChangelogsPolicy(t *testing.T) {
	for policy, want := range map[string]bool{"compact,delete": true, "delete, compact": true, "delete": true, "compact": false, "": false} {
		if got := (Shape{CleanupPolicy: policy}).Segmented(); got != want {
			t.Errorf("cleanup.policy %q: segmented %v, want %v", policy, got, want)
		}
	}
}

func TestReadSamplesTheKeySpacePastMaxKeys(t *testing.T) {
	cfg, topic := changelog(t, 20000, 2)
	s, err := Read(context.Background(), cfg, topic, Options{Idle: time.Second, MaxKeys: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 40000 {
		t.Fatalf("records %d, want every one of 40000 counted", s.Records)
	}
	if s.SampleShare >= 1.0/16 {
		t.Fatalf("sample share %v: 20000 keys past a 1000-key bound need at most 1/32", s.SampleShare)
	}
	// Every key has 2 records and 10% are deleted: 2/0.9 records per live key
	// whatever the sample; the live keys are estimated within a few sigma.
	if want := 2 / 0.9; math.Abs(s.RecordsPerKey-want)/want > 0.05 {
		t.Fatalf("records per live key %v from a sample, want %v within 5%%", s.RecordsPerKey, want)
	}
	if math.Abs(s.LiveKeys-18000)/18000 > 0.3 {
		t.Fatalf("live keys %v estimated, want about 18000", s.LiveKeys)
	}
}

func TestReadOfAMissingOrEmptyTopicFails(t *testing.T) {
	cfg, _ := changelog(t, 1, 1)
	_, err := Read(context.Background(), cfg, "no-such-topic", Options{Idle: time.Second})
	if !errors.Is(err, cluster.ErrTopicNotFound) {
		t.Fatalf("err %v, want topic not found", err)
	}
	cl, _ := cluster.NewClient(cfg)
	defer cl.Close()
	if err := cluster.CreateChangelog(context.Background(), kadm.NewClient(cl), "empty", 2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), cfg, "empty", Options{Idle: time.Second}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("err %v, want %v", err, ErrEmpty)
	}
}

func TestReadBoundedByMaxOffsetsReadsAPrefix(t *testing.T) {
	cfg, topic := changelog(t, 3000, 3)
	s, err := Read(context.Background(), cfg, topic, Options{Idle: time.Second, MaxOffsets: 3000})
	if err != nil {
		t.Fatal(err)
	}
	// The first round alone, about: each partition's first third.
	if s.PrefixOf != 9000 || s.Offsets < 2996 || s.Offsets > 3000 || s.Records != s.Offsets {
		t.Fatalf("shape %+v: want a prefix of about 3000 of 9000 offsets, every one read", s)
	}
	if s.Tombstones != 0 || s.RecordsPerKey != 1 {
		t.Fatalf("a prefix of the first round holds no tombstone and one record a key: %+v", s)
	}
}
