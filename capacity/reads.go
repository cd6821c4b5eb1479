package capacity

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// RowReadsServedAgain is the RTO table's row for when an application's
// key lookups are answered again after its state is lost: for users,
// recovery ends there, not when the restore listener says so.
const RowReadsServedAgain = "lookups answered again (cold restore)"

// The lookups' row follows the cold restore's, whose rate it rests on.
func init() {
	registerRTORow(rtoRow{order: 20, scenarios: []config.Scenario{config.ScenarioCold}, row: readsServedAgainRow})
}

// readGaps are the cold restores with a query load (runs.QueryFigures):
// for those without stale reads, the seconds from the last store's restore
// to the first lookup answered after the last refusal (from then on every
// lookup was); for those with stale reads, the seconds from the restore's
// start to the first answer (stale or not).
type readGaps struct {
	strict, stale       []float64
	strictObs, staleObs []Obs
	// never are the cold restores with stale reads off whose lookups were
	// never answered: their gap is longer than the load, unmeasured.
	never []Obs
}

func readGapsOf(obs []Obs, engine config.Engine) readGaps {
	var g readGaps
	for _, o := range obs {
		q := o.Restore.Queries
		if q == nil || !o.Restore.IsCold() || runs.EngineOf(o.Restore.Params) != engine {
			continue
		}
		switch {
		case !q.Stale && q.ServedAgainSeconds != nil:
			g.strict = append(g.strict, max(*q.ServedAgainSeconds-q.RestoredSeconds, 0))
			g.strictObs = append(g.strictObs, o)
		case !q.Stale && q.Lookups > 0:
			g.never = append(g.never, o)
		case q.Stale && q.FirstAnsweredSeconds != nil:
			g.stale = append(g.stale, *q.FirstAnsweredSeconds)
			g.staleObs = append(g.staleObs, o)
		}
	}
	return g
}

// readsServedAgainRow: without stale reads a lookup is answered only once
// its store is restored, so the largest state whose lookups are answered
// again within an objective is the cold restore's within the objective
// less the worst measured gap between the restore's end and the first
// answer after it. It needs the cold-restore rate and at least one cold
// restore with a query load and stale reads off.
func readsServedAgainRow(a *Analysis) RTORow {
	row := RTORow{Scenario: RowReadsServedAgain}
	if a.Rate == nil {
		row.Missing = "needs the cold-restore rate: " + a.RateErr.Error()
		return row
	}
	// The gap is the serving engine's own (Kafka Streams' API layer, the
	// model's store): taken from the rate's engine only.
	engine := runs.EngineOf(a.Rate.Setup.Params)
	g := readGapsOf(a.Obs, engine)
	switch {
	case len(g.never) > 0:
		row.Missing = fmt.Sprintf("the lookups of %s with a query load and stale reads off were never answered after the "+
			"restore (%s): their gap is longer than the load and measures nothing; see why the lookups were "+
			"refused", Plural(len(g.never), "cold restore"), Refs(g.never))
		return row
	case len(g.strict) == 0:
		row.Missing = "no cold restore with a query load and stale reads off in the inputs" + otherEngineText(a.Obs, engine) + ": add a case with a " +
			"queries block (stale: false) to the size sweep, or run the queries profile"
		return row
	}
	row.Measured = true
	worst := runs.Max(g.strict)
	for _, rto := range a.Options.RTOs {
		left := rto.Seconds() - worst
		task := Estimate{}
		if left > 0 {
			task = a.Rate.BytesWithin(left)
		}
		inst := task.Times(float64(a.Options.Threads))
		row.Cells = append(row.Cells, RTOCell{RTO: rto, Task: Figure{Estimate: task, Unit: UnitBytes}, Instance: Figure{Estimate: inst, Unit: UnitBytes}})
	}
	row.Basis = append(row.Basis,
		fmt.Sprintf("lookups answered again %s after the last store restored at worst (median %s) over %s with a query "+
			"load and stale reads off; each cell is the cold restore within the objective less that gap (%s)",
			FormatSeconds(worst), FormatSeconds(runs.Median(g.strict)), Plural(len(g.strict), "cold restore"), a.Rate.Label()))
	if len(g.stale) > 0 {
		row.Basis = append(row.Basis, fmt.Sprintf("with stale reads allowed, the first lookup was answered %s after the "+
			"restore began at worst (median %s) over %s, at the sizes measured: answers from stores still "+
			"restoring, possibly stale (%s)",
			FormatSeconds(runs.Max(g.stale)), FormatSeconds(runs.Median(g.stale)), Plural(len(g.stale), "cold restore"), Refs(g.staleObs)))
	}
	row.Sources = Refs(append(append([]Obs{}, a.Rate.Obs...), g.strictObs...))
	return row
}

// otherEngineText says, when only another engine than the rate's restored
// cold under a query load, that its gaps are not the rate's engine's.
func otherEngineText(obs []Obs, engine config.Engine) string {
	for _, o := range obs {
		if e := runs.EngineOf(o.Restore.Params); o.Restore.Queries != nil && o.Restore.IsCold() && e != engine {
			return fmt.Sprintf(" on %s, the rate's engine (those on %s serve lookups their own way)", engine, e)
		}
	}
	return ""
}
