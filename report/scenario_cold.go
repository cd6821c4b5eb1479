package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The cold restores' view: their summary table. Their report evidence is
// the fits and throughput sections, which every cold setup feeds.
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioCold, order: 10, print: printCold})
	declareNoFact(config.ScenarioCold, "the cold restore's rate and limits within each objective head every report (facts, build.go)")
}

// printCold prints the cold restores' table, one line per case: medians
// over its verified repeats of the restore phase, the ready phase and the
// throughput; efficiency is the restore's MB/s over min(fetch-only,
// write-only). Nothing without cold restores.
func printCold(w io.Writer, restores []runs.Restore) {
	if len(restores) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tstrategy\tverified\trestore s\tmin-max s\tready s\ttotal s\tMB/s\trecords/s\tefficiency\tbatch p99 ms\tmax peak RSS MiB\t")
	sums := runs.Summarize(restores)
	for _, s := range sums {
		verified := fmt.Sprintf("%d/%d", s.Verified, s.Repeats)
		if s.Verified < s.Repeats {
			verified += " !"
		}
		ready, total, eff := "-", "-", "-"
		if s.HasReady {
			ready, total = fmt.Sprintf("%.2f", s.MedianReadySeconds), fmt.Sprintf("%.2f", s.MedianTotalSeconds)
		}
		if s.HasLimits {
			eff = fmt.Sprintf("%.0f%%", 100*s.MedianEfficiency)
		}
		if s.Verified == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t%.0f\t\n", s.Case, s.Params.Strategy, verified, float64(s.MaxPeakRSSBytes)/(1<<20))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f-%.2f\t%s\t%s\t%.1f\t%.0f\t%s\t%.2f\t%.0f\t\n",
			s.Case, s.Params.Strategy, verified, s.MedianSeconds, s.MinSeconds, s.MaxSeconds, ready, total,
			s.MedianMBPerSec, s.MedianRecordsPerSec, eff, s.MaxBatchWriteP99Ms, float64(s.MaxPeakRSSBytes)/(1<<20))
	}
	tw.Flush()
	fmt.Fprintln(w, coldLegend)
	printColdBounds(w, sums)
}

// coldLegend says what each column of the cold table is.
const coldLegend = "  restore s, ready s, total s, MB/s, records/s, efficiency: medians over the verified repeats " +
	"(MB/s and records/s of each repeat's own rate);\n" +
	"  min-max s: the range of their restore times; batch p99 ms and max peak RSS MiB: the worst repeat (RSS of the process that restored:\n" +
	"  this tool's on the model engine, the JVM's on kafka-streams); efficiency: MB/s over min(fetch-only, write-only); 1 MB = 10^6 bytes, 1 MiB = 2^20"
