package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The standbys' views: their summary tables (the initial restores, then
// the rate and pause steps) and the report section of standbys and
// failovers (the failovers' part is failoverBlocks, scenario_failover.go).
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioStandby, order: 30, print: printStandby})
	registerSection(scenarioSection{Order: 20, Scenarios: []config.Scenario{config.ScenarioStandby, config.ScenarioFailover}, Build: standbySection})
	registerFact(headlineFact{order: 30, scenario: config.ScenarioStandby, facts: standbyFacts})
}

// standbyFacts are the highest write rate a standby kept up with and its
// catch-up after pauses; none without a standby run that found one.
func standbyFacts(a *capacity.Analysis) []Fact {
	ev := a.Standby()
	if ev == nil || ev.Best == nil {
		return nil
	}
	detail := "highest write rate a standby kept up with"
	if len(ev.CatchUps) > 0 {
		detail += "; catch-up after " + ev.CatchUpText()
	}
	return []Fact{{Label: "A standby keeps up with", Value: ev.Sustained(), Detail: detail}}
}

// standbyInitialLegend says what the initial restores' columns are.
var standbyInitialLegend = []string{
	"records: what the standby restored before any write; MB: their key+value bytes (" + noFigure + ": Kafka Streams reports records only, 1 MB = 10^6 bytes);",
	"records/s: records over restore s",
}

// standbyLegend says what the rate and pause steps' columns are.
var standbyLegend = []string{
	"target: the write rate asked; written: what the producer reached; applied: what the standby applied (records/s each);",
	"lag p50, p99, max: records written but not yet applied, over the step's samples; kept up: the lag stayed bounded and the",
	"standby caught up within a second of the writes stopping (producer-limited: written fell short of target); catch-up s: after",
	"a pause step, from the standby's restart until its lag was within acceptable.recovery.lag",
}

// printStandby prints the standbys' initial restores, then one row per
// rate and pause step (lag, whether the standby kept up, the catch-up
// after a pause), then the highest rate sustained on each engine.
func printStandby(w io.Writer, restores []runs.Restore) {
	textTable(w, "standby initial restore (each repeat's own: the changelog a standby first restores can differ between repeats):",
		"step\t#\trecords\tMB\trestore s\trecords/s\tverified", standbyInitialLegend,
		having(restores, func(r runs.Restore) bool { return r.Standby != nil && r.StepKind() == runs.StepInitial }),
		func(r runs.Restore) string {
			mb := noFigure // Kafka Streams reports records only
			if r.Bytes > 0 {
				mb = fmt.Sprintf("%.1f", float64(r.Bytes)/1e6)
			}
			secs, rate := noFigure, noFigure
			if p := r.Phase; p != nil {
				secs, rate = fmt.Sprintf("%.2f", p.Seconds), fmt.Sprintf("%.0f", p.RecordsPerSec)
			}
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%s\t%v", r.Case, r.Repeat, r.Records, mb, secs, rate, r.Verified)
		})
	best := map[config.Engine]float64{}
	unjudged := 0
	printed := textTable(w, "standby (records/s; lag in records not yet applied):",
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
		fmt.Fprintf(w, "%s: the step took fewer than %d lag samples while it wrote: no verdict on whether the standby kept "+
			"up, and not counted below\n", noFigure, runs.MinLagSamples)
	}
	for _, e := range config.Engines {
		if best[e] > 0 {
			fmt.Fprintf(w, "highest write rate a standby sustained here on the %s engine: %.0f records/s (verified steps only)\n", e, best[e])
		}
	}
}

// standbySection: a standby following the changelog at each rate, its
// catch-up after pauses, and the failovers with and without one.
func standbySection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "standby", Title: "Standbys and failover"}
	steps := restoresWhere(a, func(r runs.Restore) bool { return r.Standby != nil && r.StepKind() != runs.StepInitial })
	kills := restoresWhere(a, func(r runs.Restore) bool { return r.Failover != nil })
	if len(steps) == 0 && len(kills) == 0 {
		return s, nil
	}
	if len(steps) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "A standby keeping up"},
			&Para{Text: "A standby replica (num.standby.replicas) applies the changelog as it is written. A step writes at a " +
				"set rate while the standby's lag is sampled; it kept up when its lag stayed bounded and it " +
				"caught up within a second of the writes stopping. " +
				"A pause stops the standby while writes go on, then times its catch-up to acceptable.recovery.lag."})
		if ev := a.Standby(); ev != nil {
			s.Blocks = append(s.Blocks, &Para{Text: "**Highest write rate sustained:** " + ev.Sustained() + ": " + ev.SustainedBasis() + "."})
		}
		s.Blocks = append(s.Blocks, standbyTable(steps))
		if err := s.addFigures(a, config.ScenarioStandby); err != nil {
			return s, err
		}
	}
	if len(kills) > 0 {
		blocks, err := failoverBlocks(a)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, blocks...)
	}
	return s, nil
}

// standbyTableLegend says what the columns of the standby steps table mean.
const standbyTableLegend = "target: the write rate asked; " +
	"written: what the producer reached; " +
	"applied: what the standby applied; " +
	"lag: records written but not yet applied, over the step's samples; " +
	"kept up: the lag stayed bounded and caught up within a second of the writes stopping; " +
	"catch-up: after a pause, until the lag was within acceptable.recovery.lag."

// standbyTable lists every rate and pause step.
func standbyTable(steps []runRestore) *Table {
	t := &Table{Caption: "Standby steps (rates in records/s, lag in records)",
		Legend: standbyTableLegend,
		Head:   []string{"restore", "target", "written", "applied", "lag p50", "lag p99", "lag max", "kept up", "catch-up", "verified"},
		Right:  []bool{false, true, true, true, true, true, true, false, true, false}}
	unjudged := 0
	for _, x := range steps {
		sb := x.r.Standby
		if !sb.Judged() {
			// Too few lag samples: no verdict, and no lag figures.
			unjudged++
			t.Rows = append(t.Rows, []string{x.ref(), perSec(sb.TargetRate), perSec(sb.WrittenRate), perSec(sb.AppliedRate),
				noFigure, noFigure, noFigure, noFigure, "", yesNo(x.r.Counts())})
			continue
		}
		kept := yesNo(sb.Sustained)
		if sb.ProducerLimited {
			kept += " (producer-limited)"
		}
		catch := ""
		if x.r.StepKind() == runs.StepPause && sb.CatchUpSeconds > 0 {
			catch = capacity.FormatSeconds(sb.CatchUpSeconds)
		}
		t.Rows = append(t.Rows, []string{x.ref(), perSec(sb.TargetRate), perSec(sb.WrittenRate), perSec(sb.AppliedRate),
			thousands(sb.LagP50), thousands(sb.LagP99), thousands(sb.LagMax), kept, catch, yesNo(x.r.Counts())})
	}
	if unjudged > 0 {
		t.Caption += fmt.Sprintf("; %s: the step took fewer than %d lag samples while it wrote, so it has no verdict", noFigure, runs.MinLagSamples)
	}
	return t
}
