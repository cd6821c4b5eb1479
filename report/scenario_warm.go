package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The warm restarts' views: their summary table and their report section.
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioWarm, order: 20, print: printWarm})
	registerSection(scenarioSection{Order: 10, Scenarios: []config.Scenario{config.ScenarioWarm}, Build: warmSection})
	registerFact(headlineFact{order: 10, scenario: config.ScenarioWarm, facts: warmFacts})
}

// warmFacts are the warm row's backlog per task within each objective, and
// the restarts with nothing changed and cold beside it; none without a
// warm rate.
func warmFacts(a *capacity.Analysis) []Fact {
	w, _ := a.Warm()
	if w == nil {
		return nil
	}
	row := a.RTO.Row(capacity.RowWarmRestart)
	var rtos, vals []string
	for _, c := range row.Cells {
		rtos = append(rtos, capacity.FormatRTO(c.RTO))
		vals = append(vals, capacity.FormatBytes(c.Task.Value))
	}
	return []Fact{{Label: "Warm restart within " + strings.Join(rtos, " / "), Value: strings.Join(vals, " / ") + " of changes",
		Detail: fmt.Sprintf("per task, written while down (any state size); %s with nothing changed, %s cold",
			capacity.FormatSeconds(w.ZeroSeconds), capacity.FormatSeconds(w.ColdSeconds))}}
}

// warmLegend says what the warm table's columns are.
var warmLegend = []string{
	"changed: records written while the instance was down; records read: what the restart restored; restore s: this step's restore;",
	"cold s: the same repeat's cold restore; of cold: restore s over cold s; warm tasks: tasks resumed from their checkpoint;",
	"from log start: tasks whose checkpoint lay below the log start offset, restored cold (the fallback), or that found none after a kill;",
	"after: how the instance before the restart ended (clean stop, or kill: SIGKILL); again: records restored again from below the offsets",
	"the stores had reached when it ended (after a kill: how far the durable offsets lagged, or the whole store when it was wiped)",
}

// printWarm prints one row per warm-restart step: the records changed and
// read, the restore time against the same repeat's cold restore, and the
// tasks resumed from their checkpoint or restored from the log start.
func printWarm(w io.Writer, restores []runs.Restore) {
	textTable(w, "warm restarts (state directory kept; restore time against the same repeat's cold restore):",
		"step\t#\tafter\tchanged\trecords read\tagain\trestore s\tcold s\tof cold\twarm tasks\tfrom log start\tverified", warmLegend,
		having(restores, func(r runs.Restore) bool { return r.Warm != nil }),
		func(r runs.Restore) string {
			ofCold := "-"
			if secs, ok := r.RestoreSeconds(); ok && r.StepKind() != runs.StepCold && r.Warm.ColdSeconds > 0 {
				ofCold = fmt.Sprintf("%.1f%%", 100*secs/r.Warm.ColdSeconds)
			}
			after := r.Warm.Stop
			if after == "" {
				after = "-"
			}
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%s\t%.2f\t%s\t%d\t%d\t%v", r.Case, r.Repeat, after, r.Warm.Changed, r.Records, r.Warm.Behind,
				restoreSeconds(r, "%.2f"), r.Warm.ColdSeconds, ofCold, r.Warm.WarmTasks, r.Warm.FallbackTasks, r.Verified)
		})
}

// warmSection: the warm restarts, step by step, against the cold restore
// of the same state, and the rate the recovery-time table uses.
func warmSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "warm", Title: "Warm restarts"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Warm != nil })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "An instance restarted with its state directory kept (a persistent volume) " +
		"reopens its stores and replays only the records written to its changelogs while it was down, " +
		"from the offsets its stores committed. " +
		"Its time depends on that backlog of changes, not on the state's size."})
	if w, err := a.Warm(); w != nil {
		s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("**Warm-restart rate (%s):** %s. A restart with nothing "+
			"changed took %s; the cold restore of the same state %s.",
			w.Setup.ScenarioLabel(), w.Summary(), capacity.FormatSeconds(w.ZeroSeconds), capacity.FormatSeconds(w.ColdSeconds))})
	} else {
		s.Blocks = append(s.Blocks, &Para{Text: "No warm-restart rate: " + err.Error() + "."})
	}
	s.Blocks = append(s.Blocks, warmTable(recs))
	s.Blocks = append(s.Blocks, crashBlocks(recs)...)
	err := s.addFigures(a, config.ScenarioWarm)
	return s, err
}

// warmTableLegend says what the columns of the warm restarts table mean.
const warmTableLegend = "records changed: written while the instance was down; " +
	"records read, bytes read: what the restart restored; " +
	"time to ready: median, range min–max; " +
	"of cold: against the same repeats' cold restore; " +
	"tasks warm / from log start: tasks resumed from their checkpoint, and those " +
	"whose checkpoint lay below the log start (restored cold)."

// warmTable is one row per step and case: the medians over repeats.
func warmTable(recs []runRestore) *Table {
	t := &Table{Caption: "Warm restarts, medians over verified repeats",
		Legend: warmTableLegend,
		Head:   []string{"step", "records changed", "records read", "bytes read", "time to ready", "range", "of cold", "tasks warm / from log start"},
		Right:  []bool{false, true, true, true, true, true, true, true}}
	for _, g := range groupRecords(recs) {
		v := verifiedOf(g)
		step := fmt.Sprintf("%s %s %s", g[0].run.Label, g[0].r.Case, refsOf(g))
		if len(v) == 0 {
			t.Rows = append(t.Rows, []string{step, "", "", "", "not verified", "", "", ""})
			continue
		}
		w := v[0].r.Warm
		tot := totals(v)
		t.Rows = append(t.Rows, []string{step, thousands(w.Changed), thousands(v[0].r.Records), capacity.FormatBytes(float64(v[0].r.Bytes)),
			capacity.FormatSeconds(runs.Median(tot)), secondsRange(tot), ofCold(v), fmt.Sprintf("%d / %d", w.WarmTasks, w.FallbackTasks)})
	}
	return t
}

// ofCold is verified warm-restart steps' median restore time against their
// repeats' cold restore ("" for the cold step itself, or without one).
func ofCold(v []runRestore) string {
	w := v[0].r.Warm
	if v[0].r.StepKind() == runs.StepCold || w.ColdSeconds <= 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*runs.Median(durations(v))/w.ColdSeconds)
}

// crashTableLegend says what the columns of the crash table mean.
const crashTableLegend = "engine: the real client and its Kafka Streams version, or the model, which applies a version's crash rule; " +
	"records changed: written while the instance was down; records read: what the restart restored; " +
	"restored again: records restored from below the offsets its stores had reached at the SIGKILL (the whole store when it was wiped); " +
	"tasks from log start: tasks whose store was wiped or found no offset; time to ready: median over verified repeats; " +
	"of cold: against the same repeats' cold restore."

// crashBlocks is the restarts after a SIGKILL (warm.stop kill), one row
// per case: what each restored again by engine and version, processing
// guarantee and transactional stores; then the rules the model applied.
// None when no case killed its instance.
func crashBlocks(recs []runRestore) []Block {
	killed := make([]runRestore, 0, len(recs))
	for _, x := range recs {
		if x.r.Warm.Stop == string(config.WarmStopKill) && x.r.StepKind() == runs.StepWarm {
			killed = append(killed, x)
		}
	}
	if len(killed) == 0 {
		return nil
	}
	t := &Table{Caption: "Restarts after a crash (SIGKILL), medians over verified repeats", Legend: crashTableLegend,
		Head: []string{"case", "engine", "processing.guarantee", "transactional stores", "store kind", "records changed", "records read",
			"restored again", "tasks from log start", "time to ready", "of cold"},
		Right: []bool{false, false, false, false, false, true, true, true, true, true, true}}
	rules := &Table{Caption: "Crash rules the model applied (predictions, not measurements)",
		Legend: "rule: the Kafka Streams version whose rule the model's emulated SIGKILL followed (warm.crash_rule), " +
			"what it restores again, why, and what the rule rests on (recovery.AfterCrash), as the record holds it.",
		Head: []string{"case", "rule"}, Right: []bool{false, false}}
	for _, g := range groupRecords(killed) {
		first := g[0].r
		c := first.Params
		engine := "model"
		if v := runs.KafkaStreamsVersionOf(first); v != "" {
			engine = "kafka-streams " + v
		} else if c.Warm != nil {
			engine = "model, " + c.Warm.CrashRuleVersion() + "'s rule"
		}
		tss := "no"
		if c.TransactionalStateStores() {
			tss = "yes"
		}
		row := []string{fmt.Sprintf("%s %s %s", g[0].run.Label, first.Case, refsOf(g)), engine, c.ProcessingGuarantee(), tss, string(c.StoreKind)}
		v := verifiedOf(g)
		if len(v) == 0 {
			t.Rows = append(t.Rows, append(row, "", "", "", "", "not verified", ""))
			continue
		}
		w := v[0].r.Warm
		if w.CrashRule != "" {
			rules.Rows = append(rules.Rows, []string{fmt.Sprintf("%s %s", g[0].run.Label, first.Case), w.CrashRule})
		}
		t.Rows = append(t.Rows, append(row, thousands(w.Changed), thousands(v[0].r.Records), thousands(w.Behind),
			fmt.Sprintf("%d of %d", w.FallbackTasks, w.WarmTasks+w.FallbackTasks), capacity.FormatSeconds(runs.Median(totals(v))), ofCold(v)))
	}
	out := []Block{&Para{Text: "A restart on the kept state directory after a crash restores what the stores' durable offsets " +
		"lag behind, or the whole store when Kafka Streams finds no offset it trusts: which, depends on the version, the " +
		"processing guarantee and whether the task processed anything since its restore."}, t}
	if len(rules.Rows) > 0 {
		out = append(out, rules)
	}
	return out
}
