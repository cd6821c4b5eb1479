package queryload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// QueryLoad sends a case's key lookups (config.QueryLoad) to a model
// instance's stores while they restore and after, as an application's API
// layer sends them to its local stores: a lookup of a store that is not
// open yet, or still restoring without stale reads, is refused (Kafka
// Streams' InvalidStateStoreException); every answer is judged against
// the fill (loadgen.ReadChecker, through queryTally).
type QueryLoad struct {
	Settings config.QueryLoad
	in       *engine.Instance
	tally    *queryTally
	tasks    int // the stores the restore opens
	draw     keyDraw

	Mu       sync.Mutex
	stores   map[int32]queryStore
	Restored int       // stores whose restore has ended
	doneAt   time.Time // when the last one was

	stopped chan struct{}
	Done    chan struct{}
}

// queryStore is one task's store as the lookups see it.
type queryStore struct {
	s         engine.Store
	restoring bool
}

// NewReadChecker is the checker of the request's query load, which
// follows the fill once (before the restore's clock starts).
func NewReadChecker(spec *loadgen.Spec) (*loadgen.ReadChecker, error) {
	if spec == nil {
		return nil, fmt.Errorf("queries: lookups are checked against the fill, and topic was not filled by restorebench")
	}
	check, err := loadgen.NewReadChecker(*spec)
	if err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	return check, nil
}

// StartQueries starts the request's query load against instance in, whose
// restore opens tasks stores, checked against what spec writes; nil when
// the case has none.
func StartQueries(req fleet.Request, spec *loadgen.Spec, in *engine.Instance, tasks int) (*QueryLoad, error) {
	q := req.Case.Queries
	if q == nil {
		return nil, nil
	}
	check, err := NewReadChecker(spec)
	if err != nil {
		return nil, err
	}
	l := &QueryLoad{
		Settings: *q, in: in, tally: newQueryTally(*q, check), tasks: tasks,
		draw:   newKeyDraw(*q, check.Keys(), rand.New(rand.NewPCG(uint64(req.Repeat), 0x100c0b))),
		stores: map[int32]queryStore{}, stopped: make(chan struct{}), Done: make(chan struct{}),
	}
	in.OnStore = l.onStore
	go l.Run()
	return l, nil
}

// onStore is told of each store as it can be read (engine.Instance.OnStore).
func (l *QueryLoad) onStore(p int32, s engine.Store, restoring bool) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.stores[p] = queryStore{s, restoring}
	if !restoring {
		if l.Restored++; l.Restored == l.tasks {
			l.doneAt = time.Now()
		}
	}
}

// Run sends lookups at the rate until stopped (see pace).
func (l *QueryLoad) Run() {
	defer close(l.Done)
	pace(l.tally.start, l.Settings.Rate, l.stopped, func(int64) { l.lookup() })
}

// pace calls send(i) for i = 0, 1, ... until stopped: the i-th is due
// i/rate after start; a sender that falls behind sends the next at once.
func pace(start time.Time, rate float64, stopped <-chan struct{}, send func(i int64)) {
	for i := int64(0); ; i++ {
		due := dueAt(start, rate, i)
		if wait := time.Until(due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-stopped:
				return
			}
		} else {
			select {
			case <-stopped:
				return
			default:
			}
		}
		send(i)
	}
}

// dueAt is when lookup i of a load paced at rate from start is due: what
// pace waits for, and where a kafka-streams lookup's latency starts.
func dueAt(start time.Time, rate float64, i int64) time.Time {
	return start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
}

// lookup sends one lookup of a key drawn from the fill's by the load's
// distribution (config.QueryLoad.Keys).
func (l *QueryLoad) lookup() {
	t := l.tally
	id := l.draw()
	key, p := t.check.Key(id)
	l.Mu.Lock()
	st, open := l.stores[p]
	restoredAll := !l.doneAt.IsZero()
	l.Mu.Unlock()
	n := t.sent(time.Now())
	if !open || (st.restoring && !l.Settings.Stale) {
		t.refuse(n)
		return
	}
	t0 := time.Now()
	v, found, err := st.s.Get(key)
	lat := time.Since(t0)
	if err != nil {
		t.refuse(n)
		return
	}
	t.answer(n, id, v, found, st.restoring, lat, restoredAll, fmt.Sprintf("a store restoring=%v", st.restoring))
}

// Finish lets the lookups go on for the load's After past the restore
// (ctx ending cuts it short), stops them and returns the record.
func (l *QueryLoad) Finish(ctx context.Context) *runs.QueryFigures {
	select {
	case <-time.After(l.Settings.After.D()):
	case <-ctx.Done():
	}
	return l.Stop()
}

// Stop stops the lookups and returns the record; the stores may close
// once it returns.
func (l *QueryLoad) Stop() *runs.QueryFigures {
	close(l.stopped)
	<-l.Done
	l.in.OnStore = nil // a later restore of the instance has loads of its own
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.tally.figures(l.doneAt)
}
