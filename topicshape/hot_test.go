package topicshape

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/loadgen"
)

// TestReadCountsHotRecords: a record whose key was written within the
// loadgen.HotKeyWindow records of its partition before it is hot, one
// written further back is not; the shape read and the independent read
// count the same.
func TestReadCountsHotRecords(t *testing.T) {
	const topic = "user-app-hot-changelog"
	ctx := context.Background()
	cfg, cl := emptyChangelog(t, topic, 2)
	var recs []*kgo.Record
	put := func(p int32, key string) {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: []byte(key), Value: []byte("v")})
	}
	// Partition 0: 500 keys, each written twice in a row (500 hot).
	for i := range 500 {
		put(0, fmt.Sprintf("pair-%03d", i))
		put(0, fmt.Sprintf("pair-%03d", i))
	}
	// Partition 1: 200 keys written in two rounds, 200 records apart:
	// further back than the window, none hot; then one key written
	// every other record of 100 (49 hot: all but its first).
	for range 2 {
		for i := range 200 {
			put(1, fmt.Sprintf("round-%03d", i))
		}
	}
	for i := range 100 {
		if i%2 == 0 {
			put(1, "hot")
		} else {
			put(1, fmt.Sprintf("cold-%03d", i))
		}
	}
	// The window's edge: "edge-a" again 64 keyed records after itself
	// (hot: the 64th before it), with a record without a key among them,
	// which is neither counted nor takes a place; "edge-b" again 65 after
	// (not hot).
	put(1, "edge-a")
	for i := range 63 {
		put(1, fmt.Sprintf("gap-a-%03d", i))
		if i == 30 {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: 1, Value: []byte("no key")})
		}
	}
	put(1, "edge-a")
	put(1, "edge-b")
	for i := range 64 {
		put(1, fmt.Sprintf("gap-b-%03d", i))
	}
	put(1, "edge-b")
	if loadgen.HotKeyWindow != 64 {
		t.Fatalf("the test's edges are 64 and 65 records back; the window is %d", loadgen.HotKeyWindow)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	s, err := Read(ctx, cfg, topic, Options{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const want = 500 + 49 + 1
	if s.HotRecords == nil || *s.HotRecords != want {
		t.Fatalf("hot records %v of %d, want %d", s.HotRecords, s.Records, want)
	}
	if share, ok := s.HotShare(); !ok || share != float64(want)/float64(s.Records) {
		t.Errorf("hot share %v (%v)", share, ok)
	}
	st, err := State(ctx, cfg, topic, StateOptions{Idle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if st.HotRecords != want {
		t.Errorf("the independent read counts %d hot records, want %d as the shape read", st.HotRecords, want)
	}
}
