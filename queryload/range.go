package queryload

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

// ksRanges is the range-query side of a kafka-streams query load
// (config.QueryLoad.RangeShare): which lookups go as ranges, and their
// latency apart from key lookups'. Used under the load's lock.
type ksRanges struct {
	share float64
	pick  func() float64 // uniform in [0, 1)
	lat   *measure.Histogram
}

// isRange says whether the next lookup is a range query.
func (r *ksRanges) isRange() bool { return r != nil && r.share > 0 && r.pick() < r.share }

// rangeLookup sends lookup i as a range query of queries.range_keys
// consecutive keys from one drawn by the load's distribution, to the next
// instance in turn (a range has no one owner), and judges each key of the
// answer as a lookup of it would be judged, by the copy its partition came
// from (loadgen.ReadChecker.CheckRange): the range's verdict is its worst key's. A
// range refused whole, or not answered, is refused. Ranges do not count
// in the read outages, which follow key lookups.
func (l *KSQueryLoad) rangeLookup(i int64) {
	l.Mu.Lock()
	from := l.draw()
	to := min(from+int64(l.Settings.RangeWidth())-1, l.tally.check.Keys()-1)
	n := l.tally.sent(time.Now())
	l.tally.rec.Ranges++
	l.Mu.Unlock()
	addrs := l.Targets.any()
	if len(addrs) == 0 {
		l.failed(n, watch{})
		return
	}
	fk, _ := l.tally.check.Key(from)
	tk, _ := l.tally.check.Key(to)
	t0 := dueAt(l.tally.start, l.Settings.Rate, i)
	a, err := ksdriver.Range(context.Background(), l.client, addrs[i%int64(len(addrs))], fk, tk, l.Settings.Stale)
	lat := time.Since(t0)
	if err != nil {
		l.failed(n, watch{})
		return
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.noteRetries(a.Retries, a.WaitedMs)
	if a.Refused {
		l.tally.refuse(n)
		l.tally.rec.RangesRefused++
		if a.Status == http.StatusTooManyRequests {
			l.tally.rec.RangesBusy++
		}
		l.noteRefusal(a.Reason)
		return
	}
	l.tally.Answered(n)
	l.ranges.lat.Record(lat)
	l.tally.rec.RangeKeys += to - from + 1
	verdict, behind, why := l.judgeRange(from, to, &a)
	l.tally.verdict(n, verdict, behind, func() string {
		return fmt.Sprintf("range %s-%s asked of %s: %s", fk, tk, a.Instance, why)
	})
}

// judgeRange is the verdict on range answer a of key ids from..to: each
// key judged against the fill (and write load), a stale value allowed only
// from a partition whose copy may lag (stale reads, not restored).
func (l *KSQueryLoad) judgeRange(from, to int64, a *ksdriver.RangeAnswer) (loadgen.ReadVerdict, int64, string) {
	mayLag := map[int32]bool{}
	copyOf := map[int32]string{}
	for _, c := range a.Copies {
		mayLag[c.Partition] = l.Settings.Stale && c.State != "restored"
		copyOf[c.Partition] = fmt.Sprintf("instance %s's %s copy of partition %d (%s, offset %d)", c.Instance, c.Copy, c.Partition, c.State, c.Offset)
	}
	entries := make(map[string][]byte, len(a.Entries))
	for _, e := range a.Entries {
		k, kerr := hex.DecodeString(e.Key)
		v, verr := hex.DecodeString(e.Value)
		if kerr != nil || verr != nil {
			return loadgen.ReadWrong, 0, fmt.Sprintf("entry %+v is not hex", e)
		}
		entries[string(k)] = v
	}
	var wrongFrom string
	verdict, behind, why := l.tally.check.CheckRange(from, to, entries, func(id int64, v []byte, found bool) (loadgen.ReadVerdict, int64) {
		_, p := l.tally.check.Key(id)
		vd, b := l.tally.judge(id, v, found, mayLag[p])
		if vd == loadgen.ReadWrong && wrongFrom == "" {
			wrongFrom = copyOf[p]
		}
		return vd, b
	})
	if wrongFrom != "" {
		why += ", from " + wrongFrom
	}
	return verdict, behind, why
}
