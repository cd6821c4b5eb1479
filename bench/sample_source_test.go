package bench

import (
	"fmt"
	"testing"
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
