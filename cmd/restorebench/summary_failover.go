package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/runs"
)

// printFailover prints, when the run has failover records, one line per
// case: the processing gaps of its kills (each kill's longest task gap:
// median and min-max), failure detection and time to RUNNING (medians),
// how the survivors took over, and what the balance checks found; then
// the accounts that differ in checks that failed. Nothing for runs
// without failover records.
func printFailover(w io.Writer, restores []runs.Restore) {
	sums := runs.SummarizeFailover(restores)
	if len(sums) == 0 {
		return
	}
	table(w, "failover (gap: last record processed by the killed instance -> first by the survivor, longest task per kill):",
		"case\tguarantee\tstandby\tstate\tkills\tgap s\tmin-max s\tdetect s\trunning s\ttakeover\tacked\tledger", failoverLegend,
		sums, func(s runs.FailoverSummary) string {
			gap, span, det, run := "-", "-", "-", "-"
			if s.Kills > 0 {
				gap, span = fmt.Sprintf("%.2f", s.MedianGap), fmt.Sprintf("%.2f-%.2f", s.MinGap, s.MaxGap)
				det, run = fmt.Sprintf("%.2f", s.MedianDetection), fmt.Sprintf("%.2f", s.MedianRunning)
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s", s.Case, s.Guarantee, onOff(s.Standby), stateKind(s.Persistent),
				s.Kills, gap, span, det, run, takeoverCounts(s.Takeovers), s.Acked, s.Verdict())
		})
	for _, r := range restores {
		if l := failedLedger(r); l != nil {
			fmt.Fprintf(w, "  %s #%d: %d of %d accounts differ:\n", r.Case, r.Repeat, l.Mismatched, l.Accounts)
			for _, d := range l.Differences {
				fmt.Fprintf(w, "    %s: balance %d (expected %d, %+d), count %d (expected %d, %+d)\n", d.Account,
					d.Balance, d.ExpectedBalance, d.Balance-d.ExpectedBalance, d.Count, d.ExpectedCount, d.Count-d.ExpectedCount)
			}
		}
	}
}

// failedLedger is r's ledger check when it found a loss or a difference
// that is not a duplicate (nil otherwise, and for duplicates alone, which
// the table already counts).
func failedLedger(r runs.Restore) *runs.LedgerCheck {
	if r.Failover == nil || r.Failover.Ledger == nil {
		return nil
	}
	if l := r.Failover.Ledger; !l.Exact && (l.Lost > 0 || l.Unexplained > 0 || strings.HasPrefix(r.Failover.Guarantee, "exactly_once")) {
		return l
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// stateKind names how a killed instance came back: with its state
// directory (persistent) or without (wiped).
func stateKind(persistent bool) string {
	if persistent {
		return "kept"
	}
	return "wiped"
}

// takeoverCounts is e.g. "promoted 4, mixed 1".
func takeoverCounts(m map[string]int) string {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		return m[kinds[i]] > m[kinds[j]] || m[kinds[i]] == m[kinds[j]] && kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
