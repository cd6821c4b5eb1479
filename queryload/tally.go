package queryload

import (
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// queryTally counts a query load's lookups into runs.QueryFigures the
// same way on both engines: each lookup refused or answered, each answer
// judged against the fill (loadgen.ReadChecker), its latency into the
// during or after histogram, and the per-second series by the second the
// lookup was sent in. Not safe for concurrent use: the model's load calls
// it from one goroutine, the kafka-streams load under its lock.
type queryTally struct {
	check       *loadgen.ReadChecker
	start       time.Time
	rec         runs.QueryFigures
	during      *measure.Histogram
	after       *measure.Histogram
	before      *measure.Histogram // a failover's: until the kill (split)
	firstAnswer time.Time
	lastRefuse  time.Time
	servedAgain time.Time // the first answer after the last refusal
	// upTo, when set, is the generator index below which a write load
	// may have written by now: answers are then judged with
	// ReadChecker.CheckLive.
	upTo func() int64
}

// newQueryTally starts counting q's lookups from now, judged by check.
func newQueryTally(q config.QueryLoad, check *loadgen.ReadChecker) *queryTally {
	t := &queryTally{check: check, start: time.Now(), during: measure.NewHistogram(), after: measure.NewHistogram()}
	t.rec.Rate, t.rec.Stale = q.Rate, q.Stale
	return t
}

// sent counts a lookup sent at now and returns its second of the series.
func (t *queryTally) sent(now time.Time) int {
	n := int(now.Sub(t.start) / time.Second)
	for len(t.rec.Series) <= n {
		t.rec.Series = append(t.rec.Series, runs.QuerySecond{T: len(t.rec.Series)})
	}
	t.rec.Series[n].Lookups++
	t.rec.Lookups++
	return n
}

// refuse counts a refused lookup sent in second n.
func (t *queryTally) refuse(n int) {
	t.rec.Series[n].Refused++
	t.rec.Refused++
	t.lastRefuse = time.Now()
}

// answer judges and counts an answered lookup of key id sent in second n:
// a stale answer is what a copy that may lag (a restoring store, a
// standby) may give, and wrong from any other; from describes the copy
// for a wrong read's note.
func (t *queryTally) answer(n int, id int64, v []byte, found, mayLag bool, lat time.Duration, restoredAll bool, from string) {
	t.Answered(n)
	t.latency(lat, restoredAll)
	verdict, behind := t.judge(id, v, found, mayLag)
	t.verdict(n, verdict, behind, func() string {
		key, _ := t.check.Key(id)
		return fmt.Sprintf("key %s: found=%v, %d bytes, from %s", key, found, len(v), from)
	})
}

// Answered counts an answer to a lookup sent in second n.
func (t *queryTally) Answered(n int) {
	now := time.Now()
	t.rec.Series[n].Answered++
	t.rec.Answered++
	if t.firstAnswer.IsZero() {
		t.firstAnswer = now
	}
	if t.servedAgain.IsZero() || t.lastRefuse.After(t.servedAgain) {
		t.servedAgain = now
	}
}

// latency records a key lookup's latency, during the restore or after.
func (t *queryTally) latency(lat time.Duration, restoredAll bool) {
	if restoredAll {
		t.after.Record(lat)
	} else {
		t.during.Record(lat)
	}
}

// judge is the verdict on key id's answer (value v, found): against the
// fill, or the fill and the write load up to upTo; a stale value from
// a copy that may not lag (mayLag false) is wrong.
func (t *queryTally) judge(id int64, v []byte, found, mayLag bool) (loadgen.ReadVerdict, int64) {
	verdict, behind := t.check.Check(id, v, found)
	if t.upTo != nil {
		verdict, behind = t.check.CheckLive(id, v, found, t.upTo())
	}
	if verdict == loadgen.ReadStale && !mayLag {
		verdict = loadgen.ReadWrong // a restored active copy answers the final value
	}
	return verdict, behind
}

// verdict counts an answer's verdict in second n; wrong describes a wrong
// one for the record's notes.
func (t *queryTally) verdict(n int, verdict loadgen.ReadVerdict, behind int64, wrong func() string) {
	sec := &t.rec.Series[n]
	switch verdict {
	case loadgen.ReadCorrect:
		t.rec.Correct++
	case loadgen.ReadStale:
		sec.Stale++
		t.rec.StaleReads++
		t.rec.MaxStaleBehind = max(t.rec.MaxStaleBehind, behind)
	default:
		sec.Wrong++
		t.rec.Wrong++
		if len(t.rec.WrongReads) < 10 {
			t.rec.WrongReads = append(t.rec.WrongReads, wrong())
		}
	}
}

// figures is the record, with the stores restored at doneAt (zero: not
// all of them were).
func (t *queryTally) figures(doneAt time.Time) *runs.QueryFigures {
	if !doneAt.IsZero() {
		t.rec.RestoredSeconds = doneAt.Sub(t.start).Seconds()
	}
	if !t.firstAnswer.IsZero() {
		t.rec.FirstAnsweredSeconds = ptr(t.firstAnswer.Sub(t.start).Seconds())
		t.rec.ServedAgainSeconds = ptr(t.servedAgain.Sub(t.start).Seconds())
	}
	t.rec.During, t.rec.After = t.during.Summary(), t.after.Summary()
	if t.before != nil {
		t.rec.Before = ptr(t.before.Summary())
	}
	rec := t.rec
	return &rec
}

// split makes the latencies recorded until now the before ones (a
// failover's, at the kill): from now on they go to during.
func (t *queryTally) split() {
	t.before, t.during = t.during, measure.NewHistogram()
}

func ptr[T any](v T) *T { return &v }
