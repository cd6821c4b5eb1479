package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// scenarioTable is one scenario's table in the summary.
type scenarioTable struct {
	scenario config.Scenario
	// holds says whether a restore carries this scenario's record; nil for
	// the cold restore, which has none.
	holds func(runs.Restore) bool
	// print prints the table of the scenario's restores, in run order:
	// nothing without rows.
	print func(w io.Writer, restores []runs.Restore)
}

// scenarioTables are the summary's tables, one per scenario, in the order
// printed. Adding a scenario to the summary is adding its entry.
var scenarioTables = []scenarioTable{
	{config.ScenarioCold, nil, printCold},
	{config.ScenarioWarm, func(r runs.Restore) bool { return r.Warm != nil }, printWarm},
	{config.ScenarioStandby, func(r runs.Restore) bool { return r.Standby != nil }, printStandby},
	{config.ScenarioCompaction, func(r runs.Restore) bool { return r.Compaction != nil }, printCompaction},
	{config.ScenarioFailover, func(r runs.Restore) bool { return r.Failover != nil }, printFailover},
	{config.ScenarioScaleOut, func(r runs.Restore) bool { return r.ScaleOut != nil }, printScaleOut},
	{config.ScenarioRolling, func(r runs.Restore) bool { return r.Rolling != nil }, printRolling},
}

// printScenarios prints a table per scenario the run measured, each with
// its own columns and over its own records only: the cold restores' (a
// restore with no scenario record), then what the warm restarts, standby
// steps, compaction cases, failovers, scale-outs and rolling restarts
// measured. Every figure is read from the records.
func printScenarios(w io.Writer, res *runs.Results) {
	for _, t := range scenarioTables {
		t.print(w, restoresOf(res.Restores, t.scenario))
	}
}

// scenarioOf is the scenario whose table shows r: the one whose record r
// carries, else its Params.Scenario, else (a file that names none) cold.
func scenarioOf(r runs.Restore) config.Scenario {
	for _, t := range scenarioTables {
		if t.holds != nil && t.holds(r) {
			return t.scenario
		}
	}
	if r.Params.Scenario != "" {
		return r.Params.Scenario
	}
	return config.ScenarioCold
}

// restoresOf returns the restores of scenario s, in order.
func restoresOf(restores []runs.Restore, s config.Scenario) []runs.Restore {
	return having(restores, func(r runs.Restore) bool { return scenarioOf(r) == s })
}

// having returns the restores has picks, in order: those with one kind of
// scenario record.
func having(restores []runs.Restore, has func(runs.Restore) bool) []runs.Restore {
	var rows []runs.Restore
	for _, r := range restores {
		if has(r) {
			rows = append(rows, r)
		}
	}
	return rows
}

// table prints title, then a right-aligned table of header (tab-separated
// columns) and one line per row, then legend (what the columns mean, one
// string a line); nothing at all, and false, without rows.
func table[T any](w io.Writer, title, header string, legend []string, rows []T, line func(T) string) bool {
	if len(rows) == 0 {
		return false
	}
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, line(r)+"\t")
	}
	tw.Flush()
	for _, l := range legend {
		fmt.Fprintln(w, "  "+l)
	}
	return true
}

// The tables' column legends, printed under each.
var (
	warmLegend = []string{
		"changed: records written while the instance was down; records read: what the restart restored; restore s: this step's restore;",
		"cold s: the same repeat's cold restore; of cold: restore s over cold s; warm tasks: tasks resumed from their checkpoint;",
		"from log start: tasks whose checkpoint lay below the log start offset, restored cold (the fallback), or that found none after a kill;",
		"after: how the instance before the restart ended (clean stop, or kill: SIGKILL); again: records restored again from below the offsets",
		"the stores had reached when it ended (after a kill: how far the durable offsets lagged, or the whole store when it was wiped)",
	}
	standbyInitialLegend = []string{
		"records: what the standby restored before any write; MB: their key+value bytes (" + noFigure + ": Kafka Streams reports records only, 1 MB = 10^6 bytes);",
		"records/s: records over restore s",
	}
	standbyLegend = []string{
		"target: the write rate asked; written: what the producer reached; applied: what the standby applied (records/s each);",
		"lag p50, p99, max: records written but not yet applied, over the step's samples; kept up: the lag stayed bounded and the",
		"standby caught up within a second of the writes stopping (producer-limited: written fell short of target); catch-up s: after",
		"a pause step, from the standby's restart until its lag was within acceptable.recovery.lag",
	}
	compactionLegend = []string{
		"cleaner: who cleaned the log (Kafka's log cleaner, or the embedded broker's compaction: a floor, not Kafka's cleaner);",
		"written, read: records written and read by the restore; live keys: keys live afterwards; amplification: read over live keys",
		"(1 = fully compacted); bound: the most those settings allow; log MB before, after: the log's size after the writes and",
		"before the restore (1 MB = 10^6 bytes); restore s: the restore of what the cleaner left",
	}
	failoverLegend = []string{
		"kills: SIGKILLs measured; gap s: median of each kill's longest task gap, min-max s their range; detect s: median from the",
		"kill to the survivor's rebalance (failure detection, session.timeout.ms); running s: median from the kill until the survivor",
		"runs again, restores done; takeover: how the victim's tasks were taken over (promoted standby, warm from a checkpoint,",
		"restored from the changelog); acked: transactions the producer got acknowledged; ledger: the stores' accounts against them",
	}
	scaleOutLegend = []string{
		"warmups: warmup replicas seen (task x instance); moved: tasks whose active instance changed; rebalances, probing: group",
		"rebalances and KIP-441 probing rounds; assignment s: from the new instances' start until balanced, every task running;",
		"longest gap s: the longest one task processed nothing; error: assignment s against predicted s",
	}
	rollingLegend = []string{
		"state dir: kept across a restart or wiped; static: static membership (group.instance.id); downtime s: per restart the",
		"longest any task processed nothing, summed; worst restart s: the largest of those; task-seconds down: every task's gaps",
		"summed; restored: changelog records restored over all restarts",
	}
)

// printNotes prints each row's notes under its table, named by case.
func printNotes(w io.Writer, rows []runs.Restore, notes func(runs.Restore) []string) {
	for _, r := range rows {
		for _, n := range notes(r) {
			fmt.Fprintf(w, "  %s: %s\n", r.Case, n)
		}
	}
}

func printWarm(w io.Writer, restores []runs.Restore) {
	table(w, "warm restarts (state directory kept; restore time against the same repeat's cold restore):",
		"step\t#\tafter\tchanged\trecords read\tagain\trestore s\tcold s\tof cold\twarm tasks\tfrom log start\tverified", warmLegend,
		having(restores, func(r runs.Restore) bool { return r.Warm != nil }),
		func(r runs.Restore) string {
			ofCold := "-"
			if r.StepKind() != runs.StepCold && r.Warm.ColdSeconds > 0 {
				ofCold = fmt.Sprintf("%.1f%%", 100*r.DurationSeconds/r.Warm.ColdSeconds)
			}
			after := r.Warm.Stop
			if after == "" {
				after = "-"
			}
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%.2f\t%s\t%d\t%d\t%v", r.Case, r.Repeat, after, r.Warm.Changed, r.Records, r.Warm.Behind,
				r.DurationSeconds, r.Warm.ColdSeconds, ofCold, r.Warm.WarmTasks, r.Warm.FallbackTasks, r.Verified)
		})
}

// noFigure stands in for a figure a step did not measure.
const noFigure = "–"

func printStandby(w io.Writer, restores []runs.Restore) {
	table(w, "standby initial restore (each repeat's own: the changelog a standby first restores can differ between repeats):",
		"step\t#\trecords\tMB\trestore s\trecords/s\tverified", standbyInitialLegend,
		having(restores, func(r runs.Restore) bool { return r.Standby != nil && r.StepKind() == runs.StepInitial }),
		func(r runs.Restore) string {
			mb := noFigure // Kafka Streams reports records only
			if r.Bytes > 0 {
				mb = fmt.Sprintf("%.1f", float64(r.Bytes)/1e6)
			}
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%.2f\t%.0f\t%v", r.Case, r.Repeat, r.Records, mb, r.DurationSeconds, r.RecordsPerSec, r.Verified)
		})
	best := map[config.Engine]float64{}
	unjudged := 0
	printed := table(w, "standby (records/s; lag in records not yet applied):",
		"step\t#\ttarget\twritten\tapplied\tlag p50\tlag p99\tlag max\tkept up\tcatch-up s\tverified", standbyLegend,
		having(restores, func(r runs.Restore) bool { return r.Standby != nil && r.StepKind() != runs.StepInitial }),
		func(r runs.Restore) string {
			sb := r.Standby
			if !sb.Judged() {
				// Too few lag samples: no verdict, and no lag figures.
				unjudged++
				return fmt.Sprintf("%s\t%d\t%.0f\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%v", r.Case, r.Repeat, sb.TargetRate, sb.WrittenRate,
					sb.AppliedRate, noFigure, noFigure, noFigure, noFigure, "-", r.Verified)
			}
			kept := "yes"
			if !sb.Sustained {
				kept = "no"
			} else if r.StepKind().IsRate() && r.Counts() {
				best[r.Params.Engine] = max(best[r.Params.Engine], sb.WrittenRate)
			}
			if sb.ProducerLimited {
				kept += " (producer-limited)"
			}
			catch := "-"
			if r.StepKind() == runs.StepPause && sb.CatchUpSeconds > 0 {
				catch = fmt.Sprintf("%.2f", sb.CatchUpSeconds)
			}
			return fmt.Sprintf("%s\t%d\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%s\t%s\t%v", r.Case, r.Repeat, sb.TargetRate, sb.WrittenRate,
				sb.AppliedRate, sb.LagP50, sb.LagP99, sb.LagMax, kept, catch, r.Verified)
		})
	if !printed {
		return
	}
	if unjudged > 0 {
		fmt.Fprintf(w, "%s: the step took fewer than %d lag samples while it wrote: no verdict on whether the standby kept up, and not counted below\n", noFigure, runs.MinLagSamples)
	}
	for _, e := range config.Engines {
		if best[e] > 0 {
			fmt.Fprintf(w, "highest write rate a standby sustained here on the %s engine: %.0f records/s (verified steps only)\n", e, best[e])
		}
	}
}

// printScaleOut prints one row per scale-out: the warmup-assignment time
// measured, the rebalances and probing rounds it took, the longest any task
// processed nothing, and the warmup model's prediction beside it (labelled).
func printScaleOut(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.ScaleOut != nil })
	if !table(w, "scale-out (seconds from the new instances' start until balanced with every task running):",
		"case\t#\tprotocol\tinstances\ttasks\twarmups\tmoved\trebalances\tprobing\tassignment s\tlongest gap s\tpredicted s\terror\tbalanced\tverified", scaleOutLegend,
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

// printRolling prints one row per rolling restart: the downtime (longest
// time a task processed nothing per restart, summed over the restarts), the
// rebalances and the records restored, per state-dir kind and membership.
func printRolling(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Rolling != nil })
	table(w, "rolling restarts (downtime: per restart the longest any task processed nothing, summed):",
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

// printCompaction prints one row per compaction measurement: the cleaner
// settings, what the restore read against the live keys (the restore
// amplification), the most those settings allow, and the restore time.
func printCompaction(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Compaction != nil })
	table(w, "compaction (restore amplification: records read per live key after the cleaner ran):",
		"case\t#\tcleaner\twritten\tread\tlive keys\tamplification\tbound\tlog MB before\tafter\trestore s\tverified", compactionLegend,
		rows, func(r runs.Restore) string {
			cr := r.Compaction
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.1f\t%.2f\t%v", r.Case, r.Repeat, cr.CleanedBy, cr.Written, cr.Read,
				cr.LiveKeys, cr.Amplification, cr.Bound, float64(cr.LogBytesAfterWrite)/1e6, float64(cr.LogBytesBeforeRestore)/1e6,
				r.DurationSeconds, r.Verified)
		})
	// The settings once per case: its repeats share them.
	named := map[string]bool{}
	printNotes(w, rows, func(r runs.Restore) []string {
		if named[r.Case] {
			return nil
		}
		named[r.Case] = true
		return []string{capacity.CleanerSettings(r.Compaction.TopicConfigs).String()}
	})
}
