package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// outageRow is one failover kill, scale-out or rolling restart whose
// query load followed the keys that moved: what the outage table and the
// summary's read outage lines show for each alike.
type outageRow struct {
	// event names it after its restore's reference: "kill 2",
	// "scale-out", "restart of i1".
	event   string
	standby bool
	stale   bool
	o       *runs.ReadOutage
	lag     *runs.StandbyLag
	before  *measure.Latency
	during  measure.Latency
	after   measure.Latency
}

// outageRowsOf are a restore's outage rows: a failover kill's or a
// scale-out's one (its Queries.Outage), a rolling restart's one per
// restart (runs.Restart.Reads); none without a query load.
func outageRowsOf(r runs.Restore) []outageRow {
	q := r.Queries
	if q == nil {
		return nil
	}
	switch {
	case r.Failover != nil && q.Outage != nil:
		return []outageRow{{event: fmt.Sprintf("kill %d", r.Failover.Kill), standby: r.Failover.Standby, stale: q.Stale, o: q.Outage,
			lag: q.StandbyLag, before: q.Before, during: q.During, after: q.After}}
	case r.ScaleOut != nil && q.Outage != nil:
		return []outageRow{{event: "scale-out", standby: r.ScaleOut.Standbys > 0, stale: q.Stale, o: q.Outage,
			lag: q.StandbyLag, before: q.Before, during: q.During, after: q.After}}
	case r.Rolling != nil:
		var out []outageRow
		for _, row := range r.Rolling.Restarts {
			if m := row.Reads; m != nil && m.Outage != nil {
				out = append(out, outageRow{event: "restart of " + row.Instance, standby: r.Rolling.Standbys > 0, stale: q.Stale, o: m.Outage,
					before: &m.Before, during: m.During, after: m.After})
			}
		}
		return out
	}
	return nil
}

// cells are the row's outage table cells after its reference.
func (x outageRow) cells() []string {
	o := x.o
	lag, rate := noFigure, noFigure
	if l := x.lag; l != nil {
		lag, rate = fmt.Sprintf("%.0f/%d/%d", l.MeanRecords, l.P99Records, l.MaxRecords), fmt.Sprintf("%.0f", l.WriteRate)
	}
	before := noFigure
	if b := x.before; b != nil && b.Count > 0 {
		before = msText(b.P99Ms)
	}
	lat := fmt.Sprintf("%s/%s/%s", before, latencyOne(x.during.Count, x.during.P99Ms), latencyOne(x.after.Count, x.after.P99Ms))
	return []string{fmt.Sprint(x.standby), fmt.Sprint(x.stale), fmt.Sprintf("%.2f", o.LongestUnansweredSeconds),
		optSeconds(o.FirstAnsweredSeconds), optSeconds(o.ServedAgainSeconds), fmt.Sprintf("%.2f", o.TakenOverSeconds),
		percentOf(o.Refused, o.Lookups), fmt.Sprint(o.FromStandby), lag, rate, lat}
}

// refRow is an outage row with the restore it belongs to.
type refRow struct {
	r runs.Restore
	outageRow
}

// printReadOutages prints a line per failover kill, scale-out and rolling
// restart with a query load: what the lookups of the keys that moved met
// (outageTable's columns). Nothing without one.
func printReadOutages(w io.Writer, restores []runs.Restore) {
	var rows []refRow
	for _, r := range restores {
		for _, x := range outageRowsOf(r) {
			rows = append(rows, refRow{r, x})
		}
	}
	textTable(w, "read outage per kill, scale-out and restart: lookups of the keys that moved",
		"case\trepeat\tevent\tstandby\tstale\tlongest unanswered s\tfirst answer s\tserved again s\ttaken over "+
			"s\trefused\tfrom standby\tstandby behind mean/p99/max\twrites/s\tp99 ms before/during/after",
		[]string{"seconds from the SIGKILL, the scale-out's start or the restart's stop; see the report's Interactive queries section for each column"},
		rows, func(x refRow) string {
			return fmt.Sprintf("%s\t%d\t%s\t%s", x.r.Case, x.r.Repeat, x.event, strings.Join(x.cells(), "\t"))
		})
}
