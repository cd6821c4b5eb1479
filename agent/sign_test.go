package agent

import (
	"math/rand/v2"
	"testing"
)

// TestReplayShift: moving the window by any distance keeps exactly the
// marks that stay within it, each d counters further back.
func TestReplayShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var s replayState
		marks := map[uint64]bool{}
		for range 40 {
			back := rng.Uint64N(replayWindow)
			s.mark(back)
			marks[back] = true
		}
		d := rng.Uint64N(replayWindow + 64)
		s.shift(d)
		for back := uint64(0); back < replayWindow; back++ {
			want := back >= d && marks[back-d]
			if s.marked(back) != want {
				t.Fatalf("after a shift by %d, %d back marked %v, want %v", d, back, s.marked(back), want)
			}
		}
	}
}
