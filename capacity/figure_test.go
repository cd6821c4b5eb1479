package capacity

import "testing"

// Two terms of one time add up with their intervals: a term without an
// interval counts its value at both ends, two without give none, and the
// sum is as far outside the sizes measured as its farther term, so a total
// resting on an extrapolated restore says it is extrapolated.
func TestFigureAdd(t *testing.T) {
	detection := SecondsFigure(46, 42, 48)
	restore := Figure{Estimate: Estimate{Value: 20, Lo: 15, Hi: 30, Extrapolated: true, Beyond: 6}, Unit: UnitSeconds}
	fixed := Figure{Estimate: Estimate{Value: 2}, Unit: UnitSeconds}
	for _, c := range []struct {
		name       string
		sum        Figure
		v, lo, hi  float64
		extra      bool
		wantBeyond float64
	}{
		{"detection + restore", detection.Add(restore), 66, 57, 78, true, 6},
		{"restore + detection", restore.Add(detection), 66, 57, 78, true, 6},
		{"detection + a term without interval", detection.Add(fixed), 48, 44, 50, false, 0},
		{"two without interval", fixed.Add(fixed), 4, 0, 0, false, 0},
	} {
		s := c.sum
		if s.Value != c.v || s.Lo != c.lo || s.Hi != c.hi || s.Extrapolated != c.extra || s.Beyond != c.wantBeyond || s.Unit != UnitSeconds {
			t.Errorf("%s: %+v, want %v (%v-%v) extrapolated %v beyond %v", c.name, s, c.v, c.lo, c.hi, c.extra, c.wantBeyond)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("seconds plus bytes did not panic")
		}
	}()
	detection.Add(Figure{Estimate: Estimate{Value: 1}, Unit: UnitBytes})
}
