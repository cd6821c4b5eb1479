package loadgen

import "testing"

// TestCheckLiveJudgesAppendedWrites: while a load appends the generator's
// records after the fill, a value it wrote below the bound is correct, one
// at or past the bound (not written yet) or under another key wrong, a key
// it deleted may answer no value, and a fill value older than the fill's
// last is still stale.
func TestCheckLiveJudgesAppendedWrites(t *testing.T) {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.TombstoneRatio = 4000, 100, 16, 64, 0.1
	c, err := NewReadChecker(s)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGenerator(s)
	upTo := s.Records + 2000
	var appended, future, deletes int
	for i := s.Records; i < upTo+500; i++ {
		r := g.At(i)
		if r.Value == nil {
			if i < upTo {
				deletes++
				if v, _ := c.CheckLive(r.KeyID, nil, false, upTo); v != ReadCorrect {
					t.Errorf("key %d deleted by record %d: no value judged %d", r.KeyID, i, v)
				}
			}
			continue
		}
		val := append([]byte(nil), r.Value...)
		v, _ := c.CheckLive(r.KeyID, val, true, upTo)
		switch {
		case i < upTo && v != ReadCorrect:
			t.Errorf("record %d written by the load judged %d", i, v)
		case i >= upTo && v != ReadWrong:
			t.Errorf("record %d not written yet judged %d", i, v)
		}
		if i < upTo {
			appended++
			if v, _ := c.CheckLive((r.KeyID+1)%s.Keys, val, true, upTo); v != ReadWrong {
				t.Errorf("record %d's value under another key judged %d", i, v)
			}
		} else {
			future++
		}
	}
	for id := range s.Keys {
		final := c.last[id]
		for i := final - 2; final > 0 && i >= 0; i-- {
			if r := g.At(i); r.KeyID == id && r.Value != nil {
				if v, _ := c.CheckLive(id, append([]byte(nil), r.Value...), true, upTo); v != ReadStale {
					t.Errorf("key %d: older fill record %d judged %d, want stale", id, i, v)
				}
				break
			}
		}
	}
	if appended < 1000 || future < 100 || deletes == 0 {
		t.Fatalf("%d appended, %d future, %d deletes: too few to test", appended, future, deletes)
	}
}
