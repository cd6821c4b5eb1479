package measure

import (
	"testing"
	"time"
)

// TestCounterSeriesKeepsTotalsAndMergesTinyTail checks that the series adds
// up to the totals counted and that no final sliver of an interval remains.
func TestCounterSeriesKeepsTotalsAndMergesTinyTail(t *testing.T) {
	var c Counter
	c.Start(40 * time.Millisecond)
	for i := 0; i < 50; i++ {
		c.Add(10, 1000)
		time.Sleep(2 * time.Millisecond)
	}
	series := c.Stop()
	var r, b int64
	for i, p := range series {
		r += p.Records
		b += p.Bytes
		if i > 0 && p.T-series[i-1].T < 0.010 {
			t.Errorf("point %d covers %.3f s, under a quarter interval", i, p.T-series[i-1].T)
		}
	}
	if r != 500 || b != 50000 {
		t.Fatalf("series adds up to %d records, %d bytes; counted 500, 50000", r, b)
	}
}
