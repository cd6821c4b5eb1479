package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// queryLoad sends a case's key lookups (config.QueryLoad) to a model
// instance's stores while they restore and after, as an application's API
// layer sends them to its local stores: a lookup of a store that is not
// open yet, or still restoring without stale reads, is refused (Kafka
// Streams' InvalidStateStoreException); every answer is judged against
// the fill (loadgen.ReadChecker).
type queryLoad struct {
	settings config.QueryLoad
	in       *engine.Instance
	check    *loadgen.ReadChecker
	tasks    int // the stores the restore opens
	start    time.Time
	rng      *rand.Rand

	mu       sync.Mutex
	stores   map[int32]queryStore
	restored int       // stores restored so far
	doneAt   time.Time // when the last one was

	rec         runs.QueryFigures
	during      *measure.Histogram
	after       *measure.Histogram
	firstAnswer time.Time
	lastRefuse  time.Time
	servedAgain time.Time // the first answer after the last refusal

	stopped chan struct{}
	done    chan struct{}
}

// queryStore is one task's store as the lookups see it.
type queryStore struct {
	s         engine.Store
	restoring bool
}

// startQueries starts the request's query load against instance in, whose
// restore opens tasks stores, checked against what spec writes; nil when
// the case has none. Its checker follows the fill once first (before the
// restore's clock starts).
func startQueries(req Request, spec *loadgen.Spec, in *engine.Instance, tasks int) (*queryLoad, error) {
	q := req.Case.Queries
	if q == nil {
		return nil, nil
	}
	if spec == nil {
		return nil, fmt.Errorf("queries: lookups are checked against the fill, and topic was not filled by restorebench")
	}
	check, err := loadgen.NewReadChecker(*spec)
	if err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	l := &queryLoad{
		settings: *q, in: in, check: check, tasks: tasks, start: time.Now(),
		rng:    rand.New(rand.NewPCG(uint64(req.Repeat), 0x100c0b)),
		stores: map[int32]queryStore{}, during: measure.NewHistogram(), after: measure.NewHistogram(),
		stopped: make(chan struct{}), done: make(chan struct{}),
	}
	l.rec.Rate, l.rec.Stale = q.Rate, q.Stale
	in.OnStore = l.onStore
	go l.run()
	return l, nil
}

// onStore is told of each store as it can be read (engine.Instance.OnStore).
func (l *queryLoad) onStore(p int32, s engine.Store, restoring bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stores[p] = queryStore{s, restoring}
	if !restoring {
		if l.restored++; l.restored == l.tasks {
			l.doneAt = time.Now()
		}
	}
}

// run sends lookups at the rate until stopped: the i-th is due i/rate
// after the start; a client that falls behind sends the next at once.
func (l *queryLoad) run() {
	defer close(l.done)
	for i := int64(0); ; i++ {
		due := l.start.Add(time.Duration(float64(i) / l.settings.Rate * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-l.stopped:
				return
			}
		} else {
			select {
			case <-l.stopped:
				return
			default:
			}
		}
		l.lookup()
	}
}

// lookup sends one lookup of a key drawn uniformly from the fill's.
func (l *queryLoad) lookup() {
	id := l.rng.Int64N(l.check.Keys())
	key, p := l.check.Key(id)
	l.mu.Lock()
	st, open := l.stores[p]
	restoredAll := !l.doneAt.IsZero()
	l.mu.Unlock()
	sec := l.second(time.Now())
	sec.Lookups++
	l.rec.Lookups++
	if !open || (st.restoring && !l.settings.Stale) {
		l.refuse(sec)
		return
	}
	t0 := time.Now()
	v, found, err := st.s.Get(key)
	lat := time.Since(t0)
	if err != nil {
		l.refuse(sec)
		return
	}
	l.answer(sec, id, v, found, st.restoring, lat, restoredAll)
}

// refuse counts a refused lookup.
func (l *queryLoad) refuse(sec *runs.QuerySecond) {
	sec.Refused++
	l.rec.Refused++
	l.lastRefuse = time.Now()
}

// answer judges and counts an answered lookup: a stale answer is what a
// restoring store may give, and wrong from a restored one.
func (l *queryLoad) answer(sec *runs.QuerySecond, id int64, v []byte, found, restoring bool, lat time.Duration, restoredAll bool) {
	now := time.Now()
	sec.Answered++
	l.rec.Answered++
	if l.firstAnswer.IsZero() {
		l.firstAnswer = now
	}
	if l.servedAgain.IsZero() || l.lastRefuse.After(l.servedAgain) {
		l.servedAgain = now
	}
	if restoredAll {
		l.after.Record(lat)
	} else {
		l.during.Record(lat)
	}
	verdict, behind := l.check.Check(id, v, found)
	if verdict == loadgen.ReadStale && !restoring {
		verdict = loadgen.ReadWrong // a restored store answers the final value
	}
	switch verdict {
	case loadgen.ReadCorrect:
		l.rec.Correct++
	case loadgen.ReadStale:
		sec.Stale++
		l.rec.StaleReads++
		l.rec.MaxStaleBehind = max(l.rec.MaxStaleBehind, behind)
	default:
		sec.Wrong++
		l.rec.Wrong++
		if len(l.rec.WrongReads) < 10 {
			key, _ := l.check.Key(id)
			l.rec.WrongReads = append(l.rec.WrongReads, fmt.Sprintf("key %s: found=%v, %d bytes, from a store restoring=%v", key, found, len(v), restoring))
		}
	}
}

// second is the series' entry for time t, appended as seconds pass.
func (l *queryLoad) second(t time.Time) *runs.QuerySecond {
	n := int(t.Sub(l.start) / time.Second)
	for len(l.rec.Series) <= n {
		l.rec.Series = append(l.rec.Series, runs.QuerySecond{T: len(l.rec.Series)})
	}
	return &l.rec.Series[n]
}

// finish lets the lookups go on for the load's After past the restore
// (ctx ending cuts it short), stops them and returns the record.
func (l *queryLoad) finish(ctx context.Context) *runs.QueryFigures {
	select {
	case <-time.After(l.settings.After.D()):
	case <-ctx.Done():
	}
	return l.stop()
}

// stop stops the lookups and returns the record; the stores may close
// once it returns.
func (l *queryLoad) stop() *runs.QueryFigures {
	close(l.stopped)
	<-l.done
	l.in.OnStore = nil // a later restore of the instance has loads of its own
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.doneAt.IsZero() {
		l.rec.RestoredSeconds = l.doneAt.Sub(l.start).Seconds()
	}
	if !l.firstAnswer.IsZero() {
		l.rec.FirstAnsweredSeconds = ptr(l.firstAnswer.Sub(l.start).Seconds())
		l.rec.ServedAgainSeconds = ptr(l.servedAgain.Sub(l.start).Seconds())
	}
	l.rec.During, l.rec.After = l.during.Summary(), l.after.Summary()
	rec := l.rec
	return &rec
}

func ptr[T any](v T) *T { return &v }
