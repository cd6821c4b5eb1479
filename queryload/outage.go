package queryload

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/restorebench/restorebench/runs"
)

// ReadOutage follows, in a failover's query load, the lookups of the keys
// whose store partitions the killed instance held active
// (runs.ReadOutage). Its methods do nothing on a nil one (a load beside
// no kill); the load calls them under its lock.
type ReadOutage struct {
	parts map[int32]bool
	kill  time.Time
	// until, when set (end), is when following stopped.
	until time.Time
	rec   runs.ReadOutage
	// last is the kill or the last answer; first the first answer;
	// lastRefuse the last refusal; servedAgain the first answer after it.
	last, first, lastRefuse, servedAgain time.Time
}

// NewReadOutage follows the keys of parts once the kill is marked (start).
func NewReadOutage(parts []int32) *ReadOutage {
	o := &ReadOutage{parts: map[int32]bool{}}
	for _, p := range parts {
		o.parts[p] = true
	}
	o.rec.Partitions = slices.Sorted(func(yield func(int32) bool) {
		for p := range o.parts {
			if !yield(p) {
				return
			}
		}
	})
	return o
}

// start marks the kill at kill, atSeconds into the lookups.
func (o *ReadOutage) start(kill time.Time, atSeconds float64) {
	if o != nil {
		o.kill, o.last, o.rec.KillSeconds = kill, kill, atSeconds
	}
}

// sent counts a lookup of a key in partition p and says whether it is one
// of the followed keys (sent after the kill).
func (o *ReadOutage) sent(p int32) bool {
	if o == nil || o.kill.IsZero() || !o.until.IsZero() || !o.parts[p] {
		return false
	}
	o.rec.Lookups++
	return true
}

// Refused counts a followed lookup refused (failed: not answered at all).
func (o *ReadOutage) Refused(watched, failed bool) {
	if o == nil || !watched {
		return
	}
	o.rec.Refused++
	if failed {
		o.rec.Failed++
	}
	o.lastRefuse = time.Now()
}

// Answered counts a followed lookup answered, from a standby or not.
func (o *ReadOutage) Answered(watched, standby bool) {
	if o == nil || !watched {
		return
	}
	now := time.Now()
	o.rec.Answered++
	if standby {
		o.rec.FromStandby++
	}
	o.rec.LongestUnansweredSeconds = max(o.rec.LongestUnansweredSeconds, now.Sub(o.last).Seconds())
	o.last = now
	if o.first.IsZero() {
		o.first = now
	}
	if o.servedAgain.IsZero() || o.lastRefuse.After(o.servedAgain) {
		o.servedAgain = now
	}
}

// end stops following the keys at now (the next restart's stop): the
// lookups sent from then on are another outage's.
func (o *ReadOutage) end(now time.Time) {
	if o != nil && o.until.IsZero() {
		o.until = now
	}
}

// figures is the record at end (the load's stop), the survivor having
// taken over at takenOver (zero: not seen).
func (o *ReadOutage) figures(end, takenOver time.Time) *runs.ReadOutage {
	if o == nil || o.kill.IsZero() {
		return nil
	}
	rec := o.rec
	rec.LongestUnansweredSeconds = max(rec.LongestUnansweredSeconds, end.Sub(o.last).Seconds())
	if !o.first.IsZero() {
		rec.FirstAnsweredSeconds = ptr(o.first.Sub(o.kill).Seconds())
		rec.ServedAgainSeconds = ptr(o.servedAgain.Sub(o.kill).Seconds())
	}
	if !takenOver.IsZero() {
		rec.TakenOverSeconds = takenOver.Sub(o.kill).Seconds()
	}
	return &rec
}

// standbyLagSample is how often a standbyLag reads the changelog's ends.
const standbyLagSample = 100 * time.Millisecond

// standbyLag measures how far behind the changelog's end standby answers
// are (runs.StandbyLag) until the kill (after it the killed active writes
// the changelog no more, so its end stands still): a sampler reads the end
// offsets every standbyLagSample. Nil-safe like readOutage.
type standbyLag struct {
	Mu     sync.Mutex
	ends   map[int32]int64
	frozen bool // the kill came
	lags   []int64
	rate   float64
	Stop   context.CancelFunc
	Done   chan struct{}
}

// StartStandbyLag samples the ends with read (a changelog's end offsets)
// until stopped; rate is the write load's, for the record.
func StartStandbyLag(ctx context.Context, read func(context.Context) (map[int32]int64, error), rate float64) *standbyLag {
	ctx, cancel := context.WithCancel(ctx)
	s := &standbyLag{rate: rate, Stop: cancel, Done: make(chan struct{})}
	go func() {
		defer close(s.Done)
		for {
			if ends, err := read(ctx); err == nil {
				s.Mu.Lock()
				s.ends = ends
				s.Mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(standbyLagSample):
			}
		}
	}()
	return s
}

// note records a standby answer of partition p whose last batch reached
// offset (-1: unknown, not counted).
func (s *standbyLag) note(p int32, offset int64) {
	if s == nil || offset < 0 {
		return
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	end, ok := s.ends[p]
	if !ok || s.frozen {
		return
	}
	s.lags = append(s.lags, max(end-1-offset, 0))
}

// freeze ends the measurement at the kill.
func (s *standbyLag) freeze() {
	if s != nil {
		s.Mu.Lock()
		s.frozen = true
		s.Mu.Unlock()
	}
}

// figures stops the sampler and returns the record (nil when no standby
// answered with a known offset).
func (s *standbyLag) figures() *runs.StandbyLag {
	if s == nil {
		return nil
	}
	s.Stop()
	<-s.Done
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if len(s.lags) == 0 {
		return nil
	}
	lags := slices.Clone(s.lags)
	slices.Sort(lags)
	var sum int64
	for _, v := range lags {
		sum += v
	}
	return &runs.StandbyLag{Answers: int64(len(lags)), MeanRecords: float64(sum) / float64(len(lags)),
		P99Records: lags[(len(lags)*99)/100], MaxRecords: lags[len(lags)-1], WriteRate: s.rate}
}

// Killed marks the kill at now: the victim's keys are followed from then
// on, and the standby answers' lag no longer counts.
func (l *KSQueryLoad) Killed(now time.Time) {
	if l == nil {
		return
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.Outage.start(now, now.Sub(l.tally.start).Seconds())
	l.Lag.freeze()
	l.tally.split()
}
