package main

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/restorebench/restorebench/measure"
)

// printSummary prints the per-case table of a run; every figure is read
// from res, i.e. from results.json.
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
	fmt.Fprintln(w, "case\trepeats\tverified\tmedian s\tmin s\tmax s\tMB/s\trecords/s\tbatch p99 ms\tpoll p99 ms\tpeak RSS MiB\t")
	byCase := map[string][]measure.Restore{}
	for _, r := range res.Restores {
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	for _, s := range measure.Summarize(res.Restores) {
		var bp99, pp99 float64
		for _, r := range byCase[s.Case] {
			bp99 = max(bp99, r.BatchWrite.P99Ms)
			pp99 = max(pp99, r.PollWait.P99Ms)
		}
		verified := fmt.Sprintf("%d/%d", s.Verified, s.Repeats)
		if s.Verified < s.Repeats {
			verified += " !"
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.0f\t%.2f\t%.2f\t%.0f\t\n",
			s.Case, s.Repeats, verified, s.MedianSeconds, s.MinSeconds, s.MaxSeconds,
			s.MedianMBPerSec, s.MedianRecordsPerSec, bp99, pp99, float64(s.MaxPeakRSSBytes)/(1<<20))
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
