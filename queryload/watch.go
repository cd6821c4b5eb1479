package queryload

import (
	"time"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// watch is what follows one lookup of a kafka-streams query load: the
// outages whose keys it asks (readOutage) and the window it was sent in
// (readWindow). Its methods are called under the load's lock.
type watch struct {
	outages []*ReadOutage
	win     *readWindow
}

// Refused counts the lookup refused (failed: not answered at all).
func (w watch) Refused(failed bool) {
	for _, o := range w.outages {
		o.Refused(true, failed)
	}
	w.win.Refused(failed)
}

// Answered counts the lookup answered by instance, from a standby or not,
// after lat.
func (w watch) Answered(standby bool, instance string, lat time.Duration) {
	for _, o := range w.outages {
		o.Answered(true, standby)
	}
	w.win.Answered(instance, lat)
}

// Watching is what follows a lookup of a key in partition p sent now;
// l.mu must be held.
func (l *KSQueryLoad) Watching(p int32) watch {
	w := watch{win: l.windows.sent()}
	if l.Outage.sent(p) {
		w.outages = append(w.outages, l.Outage)
	}
	for _, o := range l.more {
		if o.sent(p) {
			w.outages = append(w.outages, o)
		}
	}
	return w
}

// Follow starts following the keys of parts from now (a rolling
// restart's stop, a scale-out's start) and returns the outage, which
// until (readOutage.until) ends.
func (l *KSQueryLoad) Follow(parts []int32) *ReadOutage {
	if l == nil {
		return nil
	}
	o := NewReadOutage(parts)
	now := time.Now()
	l.Mu.Lock()
	defer l.Mu.Unlock()
	o.start(now, now.Sub(l.tally.start).Seconds())
	l.more = append(l.more, o)
	return o
}

// EndFollow stops o following its keys at now (readOutage.end).
func (l *KSQueryLoad) EndFollow(o *ReadOutage) {
	if l == nil {
		return
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	o.end(time.Now())
}

// Mark ends the current window of lookups and opens the next (the first
// mark opens the first): a scenario marks each stop and each ready, and
// reads each span's lookups from window (readWindows.at).
func (l *KSQueryLoad) Mark() {
	if l == nil {
		return
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.windows.ws = append(l.windows.ws, &readWindow{lat: measure.NewHistogram(), by: map[string]int64{}})
}

// Window is the i-th window marked (nil when not marked, as on a run cut
// short); the load must be stopped.
func (l *KSQueryLoad) Window(i int) *readWindow {
	if l == nil || i < 0 || i >= len(l.windows.ws) {
		return nil
	}
	return l.windows.ws[i]
}

// readWindows are the spans a scenario cut a query load into (mark).
type readWindows struct{ ws []*readWindow }

// sent counts a lookup sent in the current window and returns it (nil
// before the first mark).
func (w *readWindows) sent() *readWindow {
	if len(w.ws) == 0 {
		return nil
	}
	cur := w.ws[len(w.ws)-1]
	cur.lookups++
	return cur
}

// readWindow is one span of a query load's lookups: how many were sent,
// answered (by which instance, after what latency) and refused. Its
// methods do nothing on a nil one.
type readWindow struct {
	lookups, answers, refusals, failures int64
	lat                                  *measure.Histogram
	by                                   map[string]int64
}

func (w *readWindow) Refused(failed bool) {
	if w == nil {
		return
	}
	w.refusals++
	if failed {
		w.failures++
	}
}

func (w *readWindow) Answered(instance string, lat time.Duration) {
	if w == nil {
		return
	}
	w.answers++
	w.by[instance]++
	w.lat.Record(lat)
}

// latency is the window's answered lookups' latency (zero when none).
func (w *readWindow) latency() measure.Latency {
	if w == nil {
		return measure.Latency{}
	}
	return w.lat.Summary()
}

// MoveReads is a move's record (runs.MoveReads): the outage o of the
// moved keys, which until ended, taken over at takenOver; before, during
// and after the windows until the stop, from the stop to ready, and from
// ready on.
func MoveReads(o *ReadOutage, takenOver time.Time, before, during, after *readWindow) *runs.MoveReads {
	m := &runs.MoveReads{Outage: o.figures(o.until, takenOver), Before: before.latency(), During: during.latency(), After: after.latency()}
	if during != nil {
		m.Lookups, m.Answered, m.Refused, m.Failed = during.lookups, during.answers, during.refusals, during.failures
		if len(during.by) > 0 {
			m.ByInstance = during.by
		}
	}
	return m
}

// OutageOf is o's record once the load stopped: until its end, taken
// over when every store was restored (restored).
func (l *KSQueryLoad) OutageOf(o *ReadOutage) *runs.ReadOutage {
	if l == nil {
		return nil
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return o.figures(o.until, l.doneAt)
}
