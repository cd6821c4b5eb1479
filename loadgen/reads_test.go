package loadgen

import "testing"

// TestReadCheckerJudgesAnswers: the final value is correct, an earlier
// value of the key stale, another key's value or a changed byte wrong,
// and no value stale for a live key but correct for a deleted one.
func TestReadCheckerJudgesAnswers(t *testing.T) {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.TombstoneRatio = 5000, 100, 16, 64, 0.1
	c, err := NewReadChecker(s)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGenerator(s)
	var checked, stale, deleted int
	for id := range s.Keys {
		final := c.last[id]
		if final == 0 {
			continue
		}
		last := g.At(final - 1)
		if last.Value == nil {
			deleted++
			if v, _ := c.Check(id, nil, false); v != ReadCorrect {
				t.Errorf("key %d deleted: no value judged %d", id, v)
			}
			continue
		}
		if v, _ := c.Check(id, append([]byte(nil), last.Value...), true); v != ReadCorrect {
			t.Errorf("key %d: its final value judged %d", id, v)
		}
		if v, _ := c.Check(id, nil, false); v != ReadStale {
			t.Errorf("key %d: no value judged %d, want stale", id, v)
		}
		bad := append([]byte(nil), last.Value...)
		bad[len(bad)-1] ^= 1
		if v, _ := c.Check(id, bad, true); v != ReadWrong {
			t.Errorf("key %d: a changed byte judged %d", id, v)
		}
		if v, _ := c.Check((id+1)%s.Keys, append([]byte(nil), last.Value...), true); v != ReadWrong {
			t.Errorf("key %d's value as key %d's judged %d", id, (id+1)%s.Keys, v)
		}
		checked++
		for i := final - 2; i >= 0; i-- {
			if r := g.At(i); r.KeyID == id && r.Value != nil {
				if v, behind := c.Check(id, append([]byte(nil), r.Value...), true); v != ReadStale || behind != final-1-i {
					t.Errorf("key %d: record %d's value judged %d, %d behind", id, i, v, behind)
				}
				stale++
				break
			}
		}
	}
	if checked < 50 || stale < 10 || deleted == 0 {
		t.Fatalf("checked %d keys, %d stale values, %d deleted keys: the fill is too small to test", checked, stale, deleted)
	}
}
