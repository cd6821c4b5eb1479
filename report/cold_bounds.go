package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
)

// printColdBounds prints, under the cold table, each case's CPU-aware
// bound beside its efficiency, for the cases whose limits were measured:
// fetch-only and write-only wall time, their CPU over the cores, the
// largest of the three (what the machine allows a restore that does both
// sides' work), and the restore's MB/s over it. Nothing when no case has
// limits, or only limits recorded before the CPU-aware bound.
func printColdBounds(w io.Writer, sums []runs.CaseSummary) {
	header := false
	for _, s := range sums {
		l := s.Limits
		if !s.HasLimits || l == nil || l.CPUAwareBoundSeconds <= 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "  bounds: max(fetch-only s, write-only s, (fetch CPU s + write CPU s) / cores); efficiency over "+
				"min(fetch-only, write-only) MB/s, and over this bound:")
			header = true
		}
		fmt.Fprintf(w, "    %s: max(%.2f, %.2f, (%.2f + %.2f) / %d = %.2f) = %.2f s (%s), %.1f MB/s; efficiency %.0f%%, over the CPU-aware bound %.0f%%\n",
			s.Case, l.FetchOnlySeconds, l.WriteOnlySeconds, l.FetchOnlyCPU, l.WriteOnlyCPU, l.Cores, l.CPUBoundSeconds,
			l.CPUAwareBoundSeconds, l.CPUAwareBound, l.CPUAwareBoundMBPerSec, 100*s.MedianEfficiency, 100*s.MedianCPUAwareEfficiency)
	}
}
