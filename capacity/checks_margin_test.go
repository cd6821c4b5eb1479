package capacity

import (
	"testing"
	"time"
)

// TestCheckMarginSideFollowsMeets: a margin is positive for a time that
// meets the objective and negative for one that misses it, whatever the
// interval; taken at the interval's near end ("at least") only when the
// whole interval is on one side: when the objective lies inside it the
// check is inconclusive and the margin is the point estimate's, not the
// far side of the interval (a script reading meets=true with a negative
// margin would take it for a miss).
func TestCheckMarginSideFollowsMeets(t *testing.T) {
	e := Estimate{Value: 50, Lo: 40, Hi: 70, Beyond: 1}
	for _, tc := range []struct {
		rto                          time.Duration
		meets, inconclusive, atLeast bool
		margin                       float64
	}{
		{80 * time.Second, true, false, true, 10},   // 80 − Hi
		{60 * time.Second, true, true, false, 10},   // inside: 60 − Value
		{45 * time.Second, false, true, false, -5},  // inside: 45 − Value
		{30 * time.Second, false, false, true, -10}, // 30 − Lo
	} {
		c := checks(e, []time.Duration{tc.rto})[0]
		if c.Meets != tc.meets || c.Inconclusive != tc.inconclusive || c.AtLeast != tc.atLeast || !near(c.Margin, tc.margin, 1e-9) {
			t.Errorf("%s: %+v, want meets %v inconclusive %v at least %v margin %g", tc.rto, c, tc.meets, tc.inconclusive, tc.atLeast, tc.margin)
		}
		if c.Meets != (c.Margin >= 0) {
			t.Errorf("%s: meets %v with margin %g", tc.rto, c.Meets, c.Margin)
		}
	}
	// A wide extrapolation's interval bounds nothing: no "at least".
	w := Estimate{Value: 500, Lo: 400, Hi: 600, Beyond: 10}
	if c := checks(w, []time.Duration{300 * time.Second})[0]; !c.Inconclusive || c.AtLeast || !near(c.Margin, -200, 1e-9) {
		t.Errorf("wide: %+v", c)
	}
}
