package agent

import "fmt"

// ClockSample is one NTP-style round trip of a clock command: T0 the
// coordinator's clock when it sent it, T1 and T2 the agent's when it read
// it and when it replied, T3 the coordinator's when the reply came.
type ClockSample struct{ T0, T1, T2, T3 int64 }

// Delay is the round trip less the agent's time between receipt and reply.
func (s ClockSample) Delay() int64 { return (s.T3 - s.T0) - (s.T2 - s.T1) }

// Offset is the agent's clock minus the coordinator's, assuming the way
// there took as long as the way back: the error is at most Delay/2.
func (s ClockSample) Offset() int64 { return ((s.T1 - s.T0) + (s.T2 - s.T3)) / 2 }

// ClockEstimate is an agent's clock offset with its error bound.
type ClockEstimate struct {
	// OffsetNs is the agent's CLOCK_MONOTONIC minus the coordinator's; an
	// agent time t is the coordinator's t - OffsetNs.
	OffsetNs int64
	// BoundNs: the true offset lies within OffsetNs ± BoundNs.
	BoundNs int64
	// Samples is how many round trips it was chosen from.
	Samples int
}

// EstimateClock picks the round trip with the least delay: its offset,
// half its delay as the bound. Samples whose times are out of order (a
// negative delay) are refused.
func EstimateClock(samples []ClockSample) (ClockEstimate, error) {
	best := -1
	for i, s := range samples {
		if s.Delay() < 0 || s.T3 < s.T0 || s.T2 < s.T1 {
			continue
		}
		if best < 0 || s.Delay() < samples[best].Delay() {
			best = i
		}
	}
	if best < 0 {
		return ClockEstimate{}, fmt.Errorf("no usable clock round trip among %d", len(samples))
	}
	s := samples[best]
	return ClockEstimate{OffsetNs: s.Offset(), BoundNs: (s.Delay() + 1) / 2, Samples: len(samples)}, nil
}
