package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restorebench/restorebench/runs"
)

// printScenarios prints what the warm-restart and standby steps measured
// beyond a restore's time: per warm restart the records changed against
// the cold baseline, per standby step the rates, lag and catch-up. Every
// figure is read from the records.
func printScenarios(w io.Writer, res *runs.Results) {
	printWarm(w, res.Restores)
	printStandby(w, res.Restores)
	printFailover(w, res)
}

func printWarm(w io.Writer, restores []runs.Restore) {
	var rows []runs.Restore
	for _, r := range restores {
		if r.Warm != nil {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nwarm restarts (state directory kept; restore time against the same repeat's cold restore):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\t#\tchanged\trecords read\trestore s\tcold s\tof cold\twarm tasks\tfrom log start\tverified\t")
	for _, r := range rows {
		ofCold := "-"
		if r.Warm.Step != "cold" && r.Warm.ColdSeconds > 0 {
			ofCold = fmt.Sprintf("%.1f%%", 100*r.DurationSeconds/r.Warm.ColdSeconds)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%.2f\t%s\t%d\t%d\t%v\t\n", r.Case, r.Repeat, r.Warm.Changed, r.Records,
			r.DurationSeconds, r.Warm.ColdSeconds, ofCold, r.Warm.WarmTasks, r.Warm.FallbackTasks, r.Verified)
	}
	tw.Flush()
}

func printStandby(w io.Writer, restores []runs.Restore) {
	var rows []runs.Restore
	for _, r := range restores {
		if r.Standby != nil && r.Standby.Step != "initial" {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nstandby (records/s; lag in records not yet applied):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\t#\ttarget\twritten\tapplied\tlag p50\tlag p99\tlag max\tkept up\tcatch-up s\tverified\t")
	best := 0.0
	for _, r := range rows {
		sb := r.Standby
		kept := "yes"
		if !sb.Sustained {
			kept = "no"
		} else if sb.Step != "pause" && r.Verified {
			best = max(best, sb.WrittenRate)
		}
		if sb.ProducerLimited {
			kept += " (producer-limited)"
		}
		catch := "-"
		if sb.Step == "pause" && sb.CatchUpSeconds > 0 {
			catch = fmt.Sprintf("%.2f", sb.CatchUpSeconds)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%s\t%s\t%v\t\n", r.Case, r.Repeat, sb.TargetRate, sb.WrittenRate,
			sb.AppliedRate, sb.LagP50, sb.LagP99, sb.LagMax, kept, catch, r.Verified)
	}
	tw.Flush()
	if best > 0 {
		fmt.Fprintf(w, "highest write rate a standby sustained here: %.0f records/s (verified steps only)\n", best)
	}
}
