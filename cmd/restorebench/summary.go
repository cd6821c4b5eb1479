package main

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/measure"
)

// printSummary prints the per-case table of a run; every figure is read
// from res, i.e. from results.json. Times are medians over verified repeats;
// efficiency is the restore's MB/s over min(fetch-only, write-only).
func printSummary(res *measure.Results, out string) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if f := res.Fill; f != nil {
		how := "filled now"
		if f.Reused {
			how = "reused fill"
		}
		if f.Spec == nil {
			how = "existing topic, not filled by restorebench"
			fmt.Printf("\nchangelog %s: %s\n", f.Topic, how)
		} else {
			fmt.Printf("\nchangelog %s (%s): %d records, %.1f MB key+value, fill %.1f MB/s, %.0f records/s\n",
				f.Topic, how, f.Records, float64(f.Bytes)/1e6, f.MBPerSec, f.RecordsPerSec)
		}
	}
	fmt.Fprintln(w, "case\tstrategy\tverified\trestore s\tmin-max s\tready s\ttotal s\tMB/s\trecords/s\tefficiency\tbatch p99 ms\tpeak RSS MiB\t")
	byCase := map[string][]measure.Restore{}
	for _, r := range res.Restores {
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	for _, s := range measure.Summarize(res.Restores) {
		var bp99 float64
		for _, r := range byCase[s.Case] {
			bp99 = max(bp99, r.BatchWrite.P99Ms)
		}
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
			fmt.Fprintf(w, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t%.0f\t\n", s.Case, s.Params.Strategy, verified, float64(s.MaxPeakRSSBytes)/(1<<20))
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.2f-%.2f\t%s\t%s\t%.1f\t%.0f\t%s\t%.2f\t%.0f\t\n",
			s.Case, s.Params.Strategy, verified, s.MedianSeconds, s.MinSeconds, s.MaxSeconds, ready, total,
			s.MedianMBPerSec, s.MedianRecordsPerSec, eff, bp99, float64(s.MaxPeakRSSBytes)/(1<<20))
	}
	w.Flush()
	for _, r := range res.Restores {
		if r.Verification.Mode == "unverified" {
			fmt.Printf("note: %s #%d was NOT verified: %s\n", r.Case, r.Repeat, r.Verification.Problem)
		} else if !r.Verified {
			fmt.Printf("FAILED: %s #%d: %s\n", r.Case, r.Repeat, r.Error)
		}
	}
	fmt.Printf("results: %s\n", filepath.Join(out, "results.json"))
}

func newSummaryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "summary RESULTS.json|RUN-DIR",
		Short: "Print a run's summary table again, from its results.json alone",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if st, err := os.Stat(path); err == nil && st.IsDir() {
				path = filepath.Join(path, "results.json")
			}
			res, err := measure.Load(path)
			if err != nil {
				return err
			}
			printSummary(res, filepath.Dir(path))
			return nil
		},
	}
}
