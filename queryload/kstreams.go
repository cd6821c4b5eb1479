package queryload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// ksQueryWorkers is how many lookups the kafka-streams query client has
// in flight at most: a client that falls behind the rate sends the next
// as soon as one returns, as the model's does. Enough for a second of
// lookups held by the API layer's retries (queries.retry) at a few
// hundred a second; a lookup's latency runs from when it was due, so one
// sent late for want of a worker counts its wait.
const ksQueryWorkers = 256

// KSQueryLoad sends a case's key lookups (config.QueryLoad) over HTTP to
// Kafka Streams instances' API layers (kstreams/PROTOCOL.md, "The API
// layer") while they restore or take over and after, as an application's
// clients do through a load balancer: each lookup goes to the next
// instance in turn, which answers from its own copy of the key's store
// partition or forwards it to the owner KafkaStreams.queryMetadataForKey
// names. A refusal (HTTP 503: a restoring store without stale reads, a
// rebalance, an owner gone) or no answer at all (an unreachable instance,
// a timeout: Failed) is refused; every answer is judged against the fill
// as on the model (queryTally), a stale one allowed only from a copy
// stale reads reach that does not say it is restored.
type KSQueryLoad struct {
	Settings config.QueryLoad
	Targets  queryTargets
	client   *http.Client

	Mu     sync.Mutex
	tally  *queryTally
	draw   keyDraw
	doneAt time.Time
	// Outage and lag, when set (a failover's), follow the killed
	// instance's keys and the standby answers' lag; outage is the
	// record's (QueryFigures.Outage).
	Outage *ReadOutage
	Lag    *standbyLag
	// more follow other keys from other moments (a scale-out's moved
	// tasks, a rolling restart's restarted instances; see follow), and
	// windows split the lookups at the moments a scenario marks (mark).
	more    []*ReadOutage
	windows readWindows
	// ranges, when the load has a range share, picks and times them.
	ranges *ksRanges

	stopped chan struct{}
	Done    chan struct{}
}

// SetAPIProps turns on the driver's API layer for query load q (none when
// q is nil): on any free port, retrying stale lookups no copy serves yet
// for q.Retry.
func SetAPIProps(props map[string]string, q *config.QueryLoad) {
	if q == nil {
		return
	}
	props[ksdriver.PropAPIPort] = "0"
	if q.Stale && q.Retry > 0 {
		props[ksdriver.PropAPIRetryMs] = strconv.FormatInt(q.Retry.D().Milliseconds(), 10)
	}
}

// FinishKSQueries, when queries is not nil, marks the stores restored at
// the restores' last end, lets the lookups go on for the load's After
// and records them in rec.
func FinishKSQueries(ctx context.Context, env *fleet.Env, rec *runs.Restore, queries *SingleQueries, r *ksdriver.Restores) error {
	if queries == nil {
		return nil
	}
	restored := ksdriver.NowMonoNs() // nothing to restore: restored already
	if _, end, ok := r.Span(); ok {
		restored = end
	}
	env.Logf("restore: case %s #%d: lookups go on for %s after the restore", rec.Case, rec.Repeat, queries.settings.After)
	figures, err := queries.run.Finish(ctx, restored, queries.settings.After.D())
	if err != nil {
		return err
	}
	rec.Queries = figures
	return nil
}

// startKSQueriesTo starts the request's query load, checked against what
// spec writes, against the API layers targets names (called before each
// lookup, so instances may come and go).
func startKSQueriesTo(req fleet.Request, spec *loadgen.Spec, targets queryTargets) (*KSQueryLoad, error) {
	l, err := newKSQueries(req, spec, targets)
	if err != nil {
		return nil, err
	}
	go l.Run()
	return l, nil
}

// newKSQueries is startKSQueriesTo's load, not started (go l.run()), so a
// failover can watch a kill's keys and standby lags first.
func newKSQueries(req fleet.Request, spec *loadgen.Spec, targets queryTargets) (*KSQueryLoad, error) {
	check, err := NewReadChecker(spec)
	if err != nil {
		return nil, err
	}
	return NewKSQueriesWith(req, check, targets), nil
}

// NewKSQueriesWith is newKSQueries' load with a checker made already.
func NewKSQueriesWith(req fleet.Request, check *loadgen.ReadChecker, targets queryTargets) *KSQueryLoad {
	q := req.Case.Queries
	tr := &http.Transport{MaxIdleConnsPerHost: ksQueryWorkers, IdleConnTimeout: time.Minute}
	l := &KSQueryLoad{
		Settings: *q, Targets: targets,
		client: &http.Client{Transport: tr, Timeout: ksdriver.DefaultLookupTimeout},
		tally:  newQueryTally(*q, check), draw: newKeyDraw(*q, check.Keys(), rand.New(rand.NewPCG(uint64(req.Repeat), 0x100c0b))),
		stopped: make(chan struct{}), Done: make(chan struct{}),
	}
	if q.RangeShare > 0 {
		pick := rand.New(rand.NewPCG(uint64(req.Repeat), 0x7a9e))
		l.ranges = &ksRanges{share: q.RangeShare, pick: pick.Float64, lat: measure.NewHistogram()}
	}
	return l
}

// Run paces the lookups onto the workers until stopped.
func (l *KSQueryLoad) Run() {
	defer close(l.Done)
	jobs := make(chan int64)
	var wg sync.WaitGroup
	for range ksQueryWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				l.lookup(i)
			}
		}()
	}
	pace(l.tally.start, l.Settings.Rate, l.stopped, func(i int64) { jobs <- i })
	close(jobs)
	wg.Wait()
	l.client.CloseIdleConnections()
}

// lookup sends lookup i, of a key drawn from the fill's by the load's
// distribution, to the next instance in turn or to the key's owner
// (config.QueryLoad.Ask).
func (l *KSQueryLoad) lookup(i int64) {
	l.Mu.Lock()
	if l.ranges.isRange() {
		l.Mu.Unlock()
		l.rangeLookup(i)
		return
	}
	id := l.draw()
	key, p := l.tally.check.Key(id)
	n := l.tally.sent(time.Now())
	w := l.Watching(p)
	restoredAll := !l.doneAt.IsZero()
	l.Mu.Unlock()
	addr, direct := l.addressFor(i, p)
	if addr == "" {
		l.failed(n, w)
		return
	}
	t0 := dueAt(l.tally.start, l.Settings.Rate, i)
	a, err := ksdriver.LookupAt(context.Background(), l.client, addr, key, l.Settings.Stale, direct)
	lat := time.Since(t0)
	if err != nil {
		l.failed(n, w)
		return
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.noteRetries(a.Retries, a.WaitedMs)
	if a.Refused {
		l.tally.refuse(n)
		w.Refused(false)
		l.noteRefusal(a.Reason)
		return
	}
	l.count(n, &a)
	w.Answered(a.Copy == ksdriver.CopyStandby, a.Instance, lat)
	if a.Copy == ksdriver.CopyStandby {
		l.Lag.note(a.Partition, a.Offset)
	}
	v, found := []byte{}, true // judged wrong: a value that is not hex was never written
	if b, err := a.Bytes(); err == nil {
		v, found = b, a.Found
	}
	// Only stale reads reach a copy that may lag: a standby, or an active
	// store restoring or opened but not yet restoring (state unknown).
	mayLag := l.Settings.Stale && a.State != "restored"
	from := fmt.Sprintf("instance %s's %s copy of partition %d (%s, offset %d)", a.Instance, a.Copy, a.Partition, a.State, a.Offset)
	if a.Partition != p {
		l.tally.misrouted(n, id, p, a.Partition, lat, restoredAll, from)
		return
	}
	l.tally.answer(n, id, v, found, mayLag, lat, restoredAll, from)
}

// addressFor is where lookup i of a key in partition p goes, and whether
// it asks that instance not to forward ("" when there is none to ask).
func (l *KSQueryLoad) addressFor(i int64, p int32) (string, bool) {
	if l.Settings.AskWho() == config.AskOwner {
		return l.Targets.Owner(p), true
	}
	addrs := l.Targets.any()
	if len(addrs) == 0 {
		return "", false
	}
	return addrs[i%int64(len(addrs))], false
}

// failed counts a lookup that got no answer nor refusal.
func (l *KSQueryLoad) failed(n int, w watch) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.tally.refuse(n)
	l.tally.rec.Failed++
	w.Refused(true)
}

// noteRetries counts an answer or refusal the API layer retried for
// (queries.retry); l.mu must be held.
func (l *KSQueryLoad) noteRetries(retries int, waitedMs int64) {
	if retries == 0 {
		return
	}
	rec := &l.tally.rec
	rec.Retried++
	rec.RetriedMaxMs = max(rec.RetriedMaxMs, waitedMs)
}

// noteRefusal keeps the first five distinct reasons; l.mu must be held.
func (l *KSQueryLoad) noteRefusal(why string) {
	rec := &l.tally.rec
	if len(rec.RefusedWhy) < 5 && !slices.Contains(rec.RefusedWhy, why) {
		rec.RefusedWhy = append(rec.RefusedWhy, why)
	}
}

// count notes who answered a lookup sent in second n; l.mu must be held.
func (l *KSQueryLoad) count(n int, a *ksdriver.Answer) {
	rec := &l.tally.rec
	if rec.ByInstance == nil {
		rec.ByInstance = map[string]int64{}
	}
	rec.ByInstance[a.Instance]++
	sec := &rec.Series[n]
	if sec.ByInstance == nil {
		sec.ByInstance = map[string]int64{}
	}
	sec.ByInstance[a.Instance]++
	if a.ForwardedBy != "" {
		rec.Forwarded++
	}
	if a.Copy == ksdriver.CopyStandby {
		rec.FromStandby++
	}
}

// Restored marks CLOCK_MONOTONIC endNs (the last restore_end event's
// mono_ns, the kafka-streams analogue of the model's last store
// restored) as when every store was restored; lookups sent once the
// scenario has seen it count as after the restore.
func (l *KSQueryLoad) Restored(endNs int64) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	if l.doneAt.IsZero() {
		l.doneAt = time.Now().Add(-time.Duration(ksdriver.NowMonoNs() - endNs))
	}
}

// Finish lets the lookups go on for the load's After (ctx ending cuts it
// short), stops them and returns the record.
func (l *KSQueryLoad) Finish(ctx context.Context) *runs.QueryFigures {
	select {
	case <-time.After(l.Settings.After.D()):
	case <-ctx.Done():
	}
	return l.Stop()
}

// Stop stops the lookups, waits for those in flight, and returns the record.
func (l *KSQueryLoad) Stop() *runs.QueryFigures {
	close(l.stopped)
	<-l.Done
	l.Mu.Lock()
	defer l.Mu.Unlock()
	now := time.Now()
	for _, o := range l.more {
		o.end(now)
	}
	rec := l.tally.figures(l.doneAt)
	rec.Outage = l.Outage.figures(now, l.doneAt)
	rec.StandbyLag = l.Lag.figures()
	if l.ranges != nil {
		lat := l.ranges.lat.Summary()
		rec.RangeLatency = &lat
	}
	return rec
}
