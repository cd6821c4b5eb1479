package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The rolling restarts' views: their summary table, and their part of the
// scale-outs' report section (rollingTable, which scaleOutSection adds).
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioRolling, order: 70, print: printRolling})
	declareNoFact(config.ScenarioRolling, "rolling restarts answer no capacity question yet: their downtime is in the scale-out section")
}

// rollingLegend says what the rolling table's columns are.
var rollingLegend = []string{
	"state dir: kept across a restart or wiped; static: static membership (group.instance.id); downtime s: per restart the",
	"longest any task processed nothing, summed; worst restart s: the largest of those; task-seconds down: every task's gaps",
	"summed; restored: changelog records restored over all restarts",
}

// printRolling prints one row per rolling restart: the downtime (longest
// time a task processed nothing per restart, summed over the restarts), the
// rebalances and the records restored, per state-dir kind and membership.
func printRolling(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Rolling != nil })
	textTable(w, "rolling restarts (downtime: per restart the longest any task processed nothing, summed):",
		"case\t#\tstate dir\tstandbys\tstatic\trestarts\tdowntime s\tworst restart s\ttask-seconds down\trebalances\trestored\tverified", rollingLegend,
		rows, func(r runs.Restore) string {
			rr := r.Rolling
			worst := 0.0
			var restored int64
			for _, x := range rr.Restarts {
				worst = max(worst, x.DowntimeSeconds)
				restored += x.RestoredRecords
			}
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%s\t%d\t%.1f\t%.1f\t%.1f\t%d\t%d\t%v", r.Case, r.Repeat, stateKind(rr.Persistent),
				rr.Standbys, onOff(rr.StaticMembership), len(rr.Restarts), rr.DowntimeSeconds, worst, rr.TaskDowntimeSeconds,
				rr.Rebalances, restored, r.Verified)
		})
	printNotes(w, rows, func(r runs.Restore) []string { return r.Rolling.Notes })
}

// rollingTableLegend says what the columns of the rolling restarts table mean.
const rollingTableLegend = "state kept: the state directory survived each restart (else wiped); " +
	"static membership: group.instance.id set; " +
	"downtime: per restart the longest any task processed nothing, summed over the restarts."

// rollingTable is one row per rolling restart: its state-dir kind,
// membership, restarts and downtime.
func rollingTable(rolls []runRestore) *Table {
	t := &Table{Caption: "Rolling restarts",
		Legend: rollingTableLegend,
		Head:   []string{"restore", "instances", "state kept", "static membership", "standbys", "restarts", "rebalances", "downtime (sum of restarts)", "verified"},
		Right:  []bool{false, true, false, false, true, true, true, true, false}}
	for _, x := range rolls {
		ro := x.r.Rolling
		t.Rows = append(t.Rows, []string{x.ref(), fmt.Sprint(ro.Instances), yesNo(ro.Persistent), yesNo(ro.StaticMembership), fmt.Sprint(ro.Standbys),
			fmt.Sprint(len(ro.Restarts)), fmt.Sprint(ro.Rebalances), capacity.FormatSeconds(ro.DowntimeSeconds), yesNo(x.r.Counts())})
	}
	return t
}
