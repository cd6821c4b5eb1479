package loadgen

import (
	"strings"
	"testing"
)

// TestCheckRange: a range answer is correct only when every key of the
// range with a final value is there with it and no other key is; a
// missing one is stale (not restored yet), a foreign one wrong.
func TestCheckRange(t *testing.T) {
	spec := DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions, spec.TombstoneRatio = 2000, 1000, 16, 32, 4, 0.2
	c, err := NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	full := map[string][]byte{}
	for id := int64(10); id <= 30; id++ {
		if final := c.last[id]; final > 0 && c.gen.At(final-1).Value != nil { // written, and not deleted last
			full[string(AppendKey(nil, id))] = c.gen.At(final - 1).Value
		}
	}
	if len(full) == 0 || len(full) == 21 {
		t.Fatalf("%d of 21 keys live: the fill should leave some deleted", len(full))
	}
	if w, _, why := CheckRange(10, 30, full, c.Check); w != ReadCorrect {
		t.Fatalf("the full range: verdict %d (%s)", w, why)
	}
	missing := map[string][]byte{}
	for k, v := range full {
		missing[k] = v
	}
	for k := range missing {
		delete(missing, k)
		break
	}
	if w, _, _ := CheckRange(10, 30, missing, c.Check); w != ReadStale {
		t.Fatalf("a range missing a live key: verdict %d, want stale", w)
	}
	foreign := map[string][]byte{string(AppendKey(nil, 31)): full[string(AppendKey(nil, 30))]}
	for k, v := range full {
		foreign[k] = v
	}
	if w, _, why := CheckRange(10, 30, foreign, c.Check); w != ReadWrong || !strings.Contains(why, "outside the range") {
		t.Fatalf("a range with a key beyond it: verdict %d (%s), want wrong", w, why)
	}
	if id, ok := KeyID(AppendKey(nil, 12345)); !ok || id != 12345 {
		t.Fatalf("KeyID: %d %v", id, ok)
	}
	if _, ok := KeyID([]byte("k12x")); ok {
		t.Fatal("KeyID took a key the fill never writes")
	}
}
