package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The scale-outs' views: their summary table and the report section of
// scale-outs and rolling restarts (the rolling restarts' part is
// rollingTable, scenario_rolling.go).
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioScaleOut, order: 60, print: printScaleOut})
	registerSection(scenarioSection{Order: 30, Scenarios: []config.Scenario{config.ScenarioScaleOut, config.ScenarioRolling}, Build: scaleOutSection})
	registerFact(headlineFact{order: 50, scenario: config.ScenarioScaleOut, facts: scaleOutFacts})
}

// scaleOutFacts are the first measured scale-out's warmup-assignment time
// (the section lists every one), beside the warmup model's prediction.
func scaleOutFacts(a *capacity.Analysis) []Fact {
	sos := a.ScaleOuts()
	if len(sos) == 0 {
		return nil
	}
	so := sos[0]
	r := so.Record
	detail := fmt.Sprintf("%s of %s, %s", capacity.Plural(r.Tasks, "task"), capacity.FormatBytes(so.TaskBytes), capacity.Plural(r.ProbingRounds, "probing round"))
	if p := r.Prediction; p != nil {
		detail += fmt.Sprintf("; warmup model %s (%+.0f%%)", capacity.FormatSeconds(p.TotalSeconds), r.PredictionErrorPct)
	}
	return []Fact{{Label: fmt.Sprintf("Scale-out %d → %d instances", r.Before, r.After), Value: capacity.FormatSeconds(r.WarmupAssignmentSeconds), Detail: detail}}
}

// scaleOutLegend says what the scale-out table's columns are.
var scaleOutLegend = []string{
	"warmups: warmup replicas seen (task x instance); moved: tasks whose active instance changed; rebalances, probing: group",
	"rebalances and KIP-441 probing rounds; assignment s: from the new instances' start until balanced, every task running;",
	"longest gap s: the longest one task processed nothing; error: assignment s against predicted s",
}

// printScaleOut prints one row per scale-out: the warmup-assignment time
// measured, the rebalances and probing rounds it took, the longest any task
// processed nothing, and the warmup model's prediction beside it (labelled).
func printScaleOut(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.ScaleOut != nil })
	if !textTable(w, "scale-out (seconds from the new instances' start until balanced with every task running):",
		"case\t#\tprotocol\tinstances\ttasks\twarmups\tmoved\trebalances\tprobing\tassignment s\tlongest gap s\tpredicted "+
			"s\terror\tbalanced\tverified", scaleOutLegend,
		rows, func(r runs.Restore) string {
			so := r.ScaleOut
			predicted, errPct := "-", "-"
			if p := so.Prediction; p != nil && p.TotalSeconds > 0 {
				predicted = fmt.Sprintf("%.1f", p.TotalSeconds)
				if p.Immediate != nil {
					predicted += fmt.Sprintf(" (or %.1f)", p.Immediate.TotalSeconds)
				}
				errPct = fmt.Sprintf("%+.1f%%", so.PredictionErrorPct)
			}
			return fmt.Sprintf("%s\t%d\t%s\t%d->%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%s\t%s\t%v\t%v", r.Case, r.Repeat, so.Protocol,
				so.Before, so.After, so.Tasks, so.Warmups, so.Moved, so.Rebalances, so.ProbingRounds, so.WarmupAssignmentSeconds,
				so.MaxNotProcessingSeconds, predicted, errPct, so.Balanced, r.Verified)
		}) {
		return
	}
	fmt.Fprintln(w, "predicted: the warmup model's prediction from inputs measured in the same run (restore rate, sizes, write rate, rebalance times);")
	fmt.Fprintln(w, "  (or N): the same if follow-up rebalances come at once, before a warmup that just caught up is seen (it then waits a probing interval)")
	printNotes(w, rows, func(r runs.Restore) []string { return r.ScaleOut.Notes })
}

// scaleOutSection: measured scale-outs and rolling restarts, beside the
// warmup model's predictions.
func scaleOutSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "scaleout", Title: "Scale-out and rolling restarts"}
	outs := restoresWhere(a, func(r runs.Restore) bool { return r.ScaleOut != nil })
	rolls := restoresWhere(a, func(r runs.Restore) bool { return r.Rolling != nil })
	if len(outs) == 0 && len(rolls) == 0 {
		return s, nil
	}
	if len(outs) > 0 {
		s.Blocks = append(s.Blocks, &Para{Text: "Instances are added to a running application under a write load. Under " +
			"the classic protocol (KIP-441) a task moves to a new instance only once a warmup replica there " +
			"is within acceptable.recovery.lag, at a probing rebalance. " +
			"The warmup-assignment time runs from the new instances' start until the assignment is balanced and every task " +
			"runs on its final owner. The warmup model's prediction from the same run's inputs is shown " +
			"beside it."},
			scaleOutTable(outs))
		if err := s.addFigures(a, config.ScenarioScaleOut); err != nil {
			return s, err
		}
	}
	if len(rolls) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "Rolling restarts"}, rollingTable(rolls))
		if err := s.addFigures(a, config.ScenarioRolling); err != nil {
			return s, err
		}
	}
	return s, nil
}

// scaleOutTableLegend says what the columns of the scale-outs table mean.
const scaleOutTableLegend = "probing rounds: KIP-441 probing rebalances; " +
	"warmups: warmup replicas seen (task × instance); " +
	"moved: tasks whose active instance changed; " +
	"longest not processing: the longest one task processed nothing; " +
	"warmup-assignment: from the new instances' start until balanced with every task running; " +
	"model: the warmup model's prediction from the same run's inputs, not a measurement."

// scaleOutTable is one row per scale-out, the warmup model's prediction
// beside the measured warmup-assignment time.
func scaleOutTable(outs []runRestore) *Table {
	t := &Table{Caption: "Scale-outs",
		Legend: scaleOutTableLegend,
		Head: []string{"restore", "instances", "tasks", "protocol", "probing rounds", "rebalances", "warmups", "moved",
			"longest not processing", "warmup-assignment", "model (prediction)", "verified"},
		Right: []bool{false, true, true, false, true, true, true, true, true, true, true, false}}
	for _, x := range outs {
		so := x.r.ScaleOut
		model := ""
		if p := so.Prediction; p != nil {
			model = fmt.Sprintf("%s (%+.1f%%)", capacity.FormatSeconds(p.TotalSeconds), so.PredictionErrorPct)
		}
		t.Rows = append(t.Rows, []string{x.ref(), fmt.Sprintf("%d → %d", so.Before, so.After), fmt.Sprint(so.Tasks), so.Protocol, fmt.Sprint(so.ProbingRounds),
			fmt.Sprint(so.Rebalances), fmt.Sprint(so.Warmups), fmt.Sprint(so.Moved), capacity.FormatSeconds(so.MaxNotProcessingSeconds),
			capacity.FormatSeconds(so.WarmupAssignmentSeconds), model, yesNo(x.r.Counts())})
	}
	return t
}
