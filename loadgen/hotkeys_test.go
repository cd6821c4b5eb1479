package loadgen

import (
	"math"
	"slices"
	"testing"
)

// TestSkewedFillHasHotRecords: a Zipf fill's records are about half hot
// (their key among the HotKeyWindow records of their partition before it),
// a uniform fill over many keys' almost none, and the totals of a fill
// derived from its spec count what the records written count.
func TestSkewedFillHasHotRecords(t *testing.T) {
	share := func(order KeyOrder, keys int64) float64 {
		spec := Spec{Seed: 1, Records: 200_000, Keys: keys, KeyOrder: order, ValueMin: 8, ValueMax: 8, Partitions: 2}
		d, err := Derive(spec)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGenerator(spec)
		if err != nil {
			t.Fatal(err)
		}
		// The count by hand: each partition's records in order, a record
		// hot when one of the HotKeyWindow before it has its key.
		seen := map[int32][]string{}
		var hot int64
		for r, ok := g.Next(); ok; r, ok = g.Next() {
			before := seen[r.Partition]
			if slices.Contains(before[max(0, len(before)-HotKeyWindow):], string(r.Key)) {
				hot++
			}
			seen[r.Partition] = append(before, string(r.Key))
		}
		if hot != d.HotRecords {
			t.Errorf("%s over %d keys: %d records hot by hand, the derived totals count %d", order, keys, hot, d.HotRecords)
		}
		return float64(d.HotRecords) / float64(d.Totals.Records)
	}
	if s := share(KeysZipf, 100_000); s < 0.35 || s > 0.6 {
		t.Errorf("Zipf over 100 k keys: %.0f%% hot, want about 45%%", 100*s)
	}
	if s := share(KeysUniform, 300_000); s > 0.01 {
		t.Errorf("uniform over 300 k keys: %.1f%% hot, want almost none", 100*s)
	}
	// 50 keys a partition: a record's key is among the 64 before it with
	// probability 1 − (49/50)^64.
	if s, want := share(KeysUniform, 100), 1-math.Pow(49.0/50, HotKeyWindow); math.Abs(s-want) > 0.02 {
		t.Errorf("uniform over 100 keys (50 a partition): %.1f%% hot, want %.1f%%", 100*s, 100*want)
	}
}
