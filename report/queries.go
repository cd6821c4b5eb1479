package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// queriesLegend says what the queries table's columns mean.
var queriesLegend = []string{
	"rate: lookups/s asked; stale: reads of a restoring store allowed (enableStaleStores); refused: no store to read (not open, or",
	"restoring without stale reads); correct, stale, wrong: answers judged against the fill (stale: an earlier value, or none yet,",
	"from a restoring store; wrong: never that key's value, or stale from a restored store, or read from a partition the key is not in:",
	"misrouted, Kafka Streams' queryMetadataForKey having named it); first, served again, restored s: from the",
	"lookups' start (as the restore began) to the first answer, to the first answer after the last refusal, to the last store restored;",
	"p50/p99 ms during, after: answered lookups' latency while a store restored and after every store was;",
	"kafka-streams engine, through the instances' API layer: no answer (refused lookups that met an unreachable instance or a",
	"timeout), forwarded (answers the instance asked got from the owner queryMetadataForKey named), standby (answers from a standby copy)",
}

// printQueries prints, for restores with a query load, what the lookups
// met. Nothing without one.
func printQueries(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Queries != nil })
	textTable(w, "interactive queries: lookups while the state came back",
		"case\trepeat\trate\tstale\tlookups\trefused\tcorrect\tstale\twrong\tfirst s\tserved again s\trestored s\tp50/p99 "+
			"ms during\tp50/p99 ms after\tno answer\tforwarded\tstandby",
		queriesLegend, rows, func(r runs.Restore) string {
			q := r.Queries
			return fmt.Sprintf("%s\t%d\t%.0f\t%v\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s",
				r.Case, r.Repeat, q.Rate, q.Stale, q.Lookups, q.Refused, q.Correct, q.StaleReads, wrongCell(q),
				optSeconds(q.FirstAnsweredSeconds), optSeconds(q.ServedAgainSeconds), q.RestoredSeconds,
				latencyPair(q.During.Count, q.During.P50Ms, q.During.P99Ms), latencyPair(q.After.Count, q.After.P50Ms, q.After.P99Ms),
				apiCounts(r))
		})
}

// apiCounts are the no answer, forwarded and standby columns: figures of
// the kafka-streams engine's API layer, none on the model.
func apiCounts(r runs.Restore) string {
	if r.Params.Engine != config.EngineKafkaStreams {
		return noFigure + "\t" + noFigure + "\t" + noFigure
	}
	q := r.Queries
	return fmt.Sprintf("%d\t%d\t%d", q.Failed, q.Forwarded, q.FromStandby)
}

// optSeconds is a time that may not have happened.
func optSeconds(s *float64) string {
	if s == nil {
		return noFigure
	}
	return fmt.Sprintf("%.2f", *s)
}

// latencyPair is "p50/p99" of a histogram with count answers.
func latencyPair(count int64, p50, p99 float64) string {
	if count == 0 {
		return noFigure
	}
	return msText(p50) + "/" + msText(p99)
}

// msText is a latency in ms to about three significant figures: a model
// lookup's 0.142, a forwarded one's 14.2, a loaded client's 1868, so a
// table's column does not mix 138.5 with 651.263.
func msText(ms float64) string {
	switch {
	case ms < 1:
		return fmt.Sprintf("%.3f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

// queriesTableLegend says what the columns of the queries table mean.
const queriesTableLegend = "refused, correct, stale: shares of the lookups sent; " +
	"wrong: answers the fill never gave that key (a wrong answer fails the restore), misrouted: those " +
	"read from a partition the key is not in, which Kafka Streams' queryMetadataForKey named; " +
	"served again s: from the lookups' start (as the restore began) " +
	"to the first answer after the last refusal; " +
	"restored s: to the last store restored; " +
	"p99 ms: answered lookups' latency while a store restored, and after."

// queriesSection: what lookups beside the restores met, a row per
// restore with a query load: the share refused, answered correct and
// stale, the wrong answers (none, or the restore failed), when lookups
// were served again against when the stores were restored, and latency
// while restoring and after. Empty (left out) without query loads.
func queriesSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "queries", Title: "Interactive queries"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Queries != nil })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "Key lookups sent while the state came back, each answer checked against the value the fill gave its key. " +
		"Without stale reads a restoring store refuses lookups (Kafka Streams' InvalidStateStoreException) until it is restored; " +
		"with them (`enableStaleStores()`) it answers at once, with what it holds so far."})
	tab := &Table{Head: []string{"restore", "stale reads", "lookups", "refused", "correct", "stale", "wrong",
		"served again s", "restored s", "p99 ms during", "p99 ms after"},
		Right:  []bool{false, false, true, true, true, true, true, true, true, true, true},
		Legend: queriesTableLegend}
	for _, x := range recs {
		q := x.r.Queries
		tab.Rows = append(tab.Rows, []string{queryRef(x), fmt.Sprint(q.Stale), fmt.Sprint(q.Lookups),
			percentOf(q.Refused, q.Lookups), percentOf(q.Correct, q.Lookups), percentOf(q.StaleReads, q.Lookups), wrongCell(q),
			optSeconds(q.ServedAgainSeconds), fmt.Sprintf("%.2f", q.RestoredSeconds),
			latencyOne(q.During.Count, q.During.P99Ms), latencyOne(q.After.Count, q.After.P99Ms)})
	}
	s.Blocks = append(s.Blocks, tab)
	s.Blocks = append(s.Blocks, kafkaStreamsQueryBlocks(recs)...)
	return s, nil
}

// percentOf is n over of, in % with one decimal.
func percentOf(n, of int64) string {
	if of == 0 {
		return noFigure
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// latencyOne is a latency of a histogram with count answers.
func latencyOne(count int64, ms float64) string {
	if count == 0 {
		return noFigure
	}
	return msText(ms)
}

// wrongCell is the wrong answers' count, with how many of them Kafka
// Streams misrouted ("451 (451 misrouted)") when any was.
func wrongCell(q *runs.QueryFigures) string {
	if q.Misrouted == 0 {
		return fmt.Sprint(q.Wrong)
	}
	return fmt.Sprintf("%d (%d misrouted)", q.Wrong, q.Misrouted)
}
