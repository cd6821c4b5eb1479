package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// PartitionSizes sizes each partition by its log segments, in proportion
// to what it holds, without reading a record; a topic that does not
// exist is an error naming it.
func TestPartitionSizesFollowWhatEachHolds(t *testing.T) {
	e, adm := embeddedAdmin(t)
	ctx := context.Background()
	if err := CreateChangelog(ctx, adm, "sized", 3, nil); err != nil {
		t.Fatal(err)
	}
	prod, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	value := []byte(strings.Repeat("v", 1000))
	for p, n := range map[int32]int{0: 100, 1: 400, 2: 0} {
		for i := 0; i < n; i++ {
			if err := prod.ProduceSync(ctx, &kgo.Record{Topic: "sized", Partition: p, Key: []byte{byte(i), byte(i >> 8)}, Value: value}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	sizes, source, err := PartitionSizes(ctx, adm, "sized")
	if err != nil {
		t.Fatal(err)
	}
	if source != SizeFromLogDirs || len(sizes) != 3 {
		t.Fatalf("%d partitions sized by %q, want 3 by %q", len(sizes), source, SizeFromLogDirs)
	}
	if sizes[0].Offsets != 100 || sizes[1].Offsets != 400 || sizes[2].Offsets != 0 {
		t.Errorf("offsets %+v, want 100, 400, 0", sizes)
	}
	if r := float64(sizes[1].LogBytes) / float64(sizes[0].LogBytes); sizes[0].LogBytes <= 0 || r < 3.6 || r > 4.4 || sizes[2].LogBytes != 0 {
		t.Errorf("log bytes %+v, want them in proportion to the records written (100, 400, none)", sizes)
	}
	if _, _, err := PartitionSizes(ctx, adm, "nonesuch"); err == nil || !strings.Contains(err.Error(), "nonesuch") {
		t.Errorf("a missing topic: %v, want an error naming it", err)
	}
}

// embeddedAdmin starts an embedded broker for t and returns it with an
// admin client on it, both closed when t ends.
func embeddedAdmin(t *testing.T) (*Embedded, *kadm.Client) {
	t.Helper()
	e, err := StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	cl, err := NewClient(Config{Brokers: e.Addrs(), ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return e, kadm.NewClient(cl)
}
