package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/topicshape"
)

// TestSampleOrderCopiesLeast orders a sample's restores as a SampleSource
// copies least: the partitions alone from the smallest, the largest last,
// the sample together just before it.
func TestSampleOrderCopiesLeast(t *testing.T) {
	size := map[int32]float64{7: 300, 2: 100, 9: 200}
	got := SampleOrder([][]int32{{7}, {2}, {9}, {7, 2, 9}}, func(p int32) float64 { return size[p] })
	if fmt.Sprint(got) != "[[2] [9] [7 2 9] [7]]" {
		t.Fatalf("order %v, want [[2] [9] [7 2 9] [7]]", got)
	}
	if got := SampleOrder([][]int32{{4}}, func(int32) float64 { return 0 }); fmt.Sprint(got) != "[[4]]" {
		t.Fatalf("one partition: %v", got)
	}
}

// TestKnownReadsAreNotReadAgain: a SampleSource told what the read of a
// topic's shape folded uses it while the offsets stand, reading nothing
// (the topic is not even reachable here): a folded partition's state is
// the restore's expected state, and a partition too large to verify is
// counted, not verified, saying so; once the offsets move, the source
// reads again (and fails here, with no cluster).
func TestKnownReadsAreNotReadAgain(t *testing.T) {
	var log strings.Builder
	e := &Env{log: &log, Cluster: cluster.Config{Brokers: []string{"127.0.0.1:1"}}}
	src := e.NewSampleSource("user-app-store-changelog")
	at := cluster.TopicOffsets{Start: map[int32]int64{1: 10, 3: 0}, End: map[int32]int64{1: 500, 3: 900}}
	st := topicshape.TopicState{Partitions: []loadgen.PartitionState{{Partition: 1, Keys: 42}}, Ends: map[int32]int64{1: 500}, Records: 490}
	src.Know(topicshape.Folded{States: map[int32]topicshape.TopicState{1: st}, TooManyKeys: []int32{3}, Offsets: at, MaxKeys: 1000})
	ctx := context.Background()
	got, err := src.read(ctx, []int32{1}, at, topicshape.StateOptions{}, "a sample")
	if err != nil || got == nil || len(got.Partitions) != 1 || got.Partitions[0].Keys != 42 {
		t.Fatalf("partition 1 as folded: %+v, %v", got, err)
	}
	if got, err := src.read(ctx, []int32{1, 3}, at, topicshape.StateOptions{}, "a sample"); err != nil || got != nil {
		t.Fatalf("with partition 3, too large to verify: %+v, %v; want counted (nil), nothing read", got, err)
	}
	if !strings.Contains(log.String(), "will be counted, not verified: partition 3") || !strings.Contains(log.String(), "with the topic's shape") {
		t.Errorf("the log does not say where the reads came from:\n%s", log.String())
	}
	moved := cluster.TopicOffsets{Start: at.Start, End: map[int32]int64{1: 501, 3: 900}}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := src.read(ctx, []int32{1}, moved, topicshape.StateOptions{}, "a sample"); err == nil {
		t.Fatal("partition 1's end moved, yet its old read was used")
	}
}
