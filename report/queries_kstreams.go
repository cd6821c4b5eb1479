package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// apiLayerTableLegend says what the columns of the API-layer table mean.
const apiLayerTableLegend = "answered: lookups answered; " +
	"no answer: lookups that met an unreachable instance or a timeout (counted as refused); " +
	"forwarded: answers the instance asked got from the owner queryMetadataForKey named; " +
	"from a standby: answers from a standby copy (stale reads); " +
	"retried: stale lookups the instance asked retried while no copy could " +
	"serve them (a standby being promoted, a rebalance; " +
	"queries.retry), answered or refused in the end; " +
	"ranges: lookups sent as range queries (queries.range_share), gathered over every " +
	"partition or refused whole, each key judged, with their p99 latency; " +
	"by instance: answers by the instance that gave them."

// kafkaStreamsQueryBlocks are the Interactive queries section's figures of
// the kafka-streams engine's API layer, for the restores with a query load
// on it: who answered (forwarded, from a standby, by instance), lookups
// that got no answer, and why lookups were refused; then the failovers'
// read outages. None without such restores.
func kafkaStreamsQueryBlocks(recs []runRestore) []Block {
	var ks []runRestore
	for _, x := range recs {
		if x.r.Params.Engine == config.EngineKafkaStreams {
			ks = append(ks, x)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	tab := &Table{Caption: "Kafka Streams' API layer", Head: []string{"restore", "answered", "no answer", "forwarded",
		"from a standby", "retried (longest wait)", "ranges (refused) p99 ms", "by instance"},
		Right:  []bool{false, true, true, true, true, true, true, false},
		Legend: apiLayerTableLegend}
	why := map[string][]string{}
	for _, x := range ks {
		q := x.r.Queries
		tab.Rows = append(tab.Rows,
			[]string{queryRef(x), fmt.Sprint(q.Answered), fmt.Sprint(q.Failed), fmt.Sprint(q.Forwarded),
				fmt.Sprint(q.FromStandby), retried(q.Retried, q.RetriedMaxMs),
				rangesCell(q.Ranges, q.RangesRefused, q.RangesBusy, q.RangeLatency), byInstance(q.ByInstance)})
		for _, r := range q.RefusedWhy {
			why[r] = append(why[r], queryRef(x))
		}
	}
	out := []Block{tab}
	if len(why) > 0 {
		reasons := make([]string, 0, len(why))
		for r := range why {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		items := make([]string, 0, len(reasons))
		for _, r := range reasons {
			items = append(items, fmt.Sprintf("`%s` (%s)", r, strings.Join(why[r], ", ")))
		}
		out = append(out, &Para{Text: "Why the API layer refused lookups, as it said (up to five distinct reasons per restore):"}, &List{Items: items})
	}
	if t := outageTable(ks); t != nil {
		out = append(out, &Para{Text: "Failovers, scale-outs and rolling restarts: the lookups of the keys that moved, from each SIGKILL, scale-out or stop on. " +
			"With a standby and stale reads its standby copy answers at once; without stale reads they wait for the session " +
			"timeout and the standby's promotion; without a standby, for the restore. " +
			"A scale-out's moved tasks are unanswered while their new owner restores them (or, with warmups, only for the " +
			"rebalance that moves them); a restarted instance's keys while no other copy may serve them."}, t)
	}
	return out
}

// outageTableLegend says what the columns of the read-outage table mean.
const outageTableLegend = "seconds from the SIGKILL (failover), the new instances' start (scale-out) or the stop " +
	"(rolling restart), for the lookups of the keys that moved: the killed or stopped " +
	"instance's active partitions, a scale-out's moved tasks (the longest unanswered span " +
	"of any of them, served again when the last was); " +
	"longest unanswered: the longest span without an answer; " +
	"first answer; " +
	"served again: the first answer after the last refusal; " +
	"taken over: every task active and RUNNING again (a failover's survivor, " +
	"a scale-out's balanced end, a restart's ready); " +
	"refused: share of those lookups refused or unanswered; " +
	"standby behind: changelog records between a standby answer's offset and the " +
	"changelog's end, before the kill, at the write load's rate (writes/s); " +
	"p99 ms: latency of every answered lookup before the event, until the " +
	"takeover, and after (a restart's: until the next restart)."

// outageTable is a row per failover kill, scale-out and rolling restart
// with a query load (nil when none).
func outageTable(recs []runRestore) *Table {
	tab := &Table{Caption: "Read outage per kill, scale-out and restart",
		Head: []string{"event", "standby", "stale reads", "longest unanswered s", "first answer s", "served again s", "taken over s",
			"refused", "from a standby", "standby behind (mean/p99/max records)", "writes/s", "p99 ms before/during/after"},
		Right:  []bool{false, false, false, true, true, true, true, true, true, true, true, true},
		Legend: outageTableLegend}
	for _, x := range recs {
		for _, row := range outageRowsOf(x.r) {
			tab.Rows = append(tab.Rows, append([]string{x.ref() + " " + row.event}, row.cells()...))
		}
	}
	if len(tab.Rows) == 0 {
		return nil
	}
	return tab
}

// rangesCell is "120 (3) 14.2", "120 (3, 2 for load) 14.2" when some were
// refused for the range concurrency limit (runs.Queries.RangesBusy), or "0".
func rangesCell(n, refused, busy int64, lat *measure.Latency) string {
	if n == 0 {
		return "0"
	}
	p99 := noFigure
	if lat != nil && lat.Count > 0 {
		p99 = msText(lat.P99Ms)
	}
	if busy > 0 {
		return fmt.Sprintf("%d (%d, %d for load) %s", n, refused, busy, p99)
	}
	return fmt.Sprintf("%d (%d) %s", n, refused, p99)
}

// retried is "12 (310 ms)", or "0".
func retried(n, maxMs int64) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%d ms)", n, maxMs)
}

// queryRef cites a restore, and a failover's kill.
func queryRef(x runRestore) string {
	if f := x.r.Failover; f != nil {
		return fmt.Sprintf("%s kill %d", x.ref(), f.Kill)
	}
	return x.ref()
}

// byInstance is "i1 120, i2 300", by instance id.
func byInstance(m map[string]int64) string {
	if len(m) == 0 {
		return noFigure
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s %d", id, m[id])
	}
	return strings.Join(parts, ", ")
}
