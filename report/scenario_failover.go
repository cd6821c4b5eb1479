package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The failovers' views: their summary table, and their part of the
// standbys' report section (failoverBlocks, which standbySection adds).
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioFailover, order: 50, print: printFailover})
	registerFact(headlineFact{order: 20, scenario: config.ScenarioFailover, facts: failoverFacts})
}

// failoverFacts are a promoted standby's worst gap and its median; none
// without a failover with a standby.
func failoverFacts(a *capacity.Analysis) []Fact {
	f := a.Failover()
	if f == nil {
		return nil
	}
	return []Fact{{Label: "Failover with a standby", Value: "gap ≤ " + capacity.FormatSeconds(f.Worst),
		Detail: fmt.Sprintf("median %s over %s; does not grow with state", capacity.FormatSeconds(f.Median), capacity.Plural(len(f.Kills), "SIGKILL"))}}
}

// failoverLegend says what the failover table's columns are.
var failoverLegend = []string{
	"kind: the store kind the instances ran; kills: SIGKILLs measured; gap s: median of each kill's longest task gap, min-max s",
	"their range; detect s: median from the kill to the survivor's rebalance (failure detection, session.timeout.ms); running s:",
	"median from the kill until the survivor runs again, restores done; takeover: how the victim's tasks were taken over",
	"(promoted standby, warm from a checkpoint, restored from the changelog); acked: transactions the producer got",
	"acknowledged; ledger: the stores' accounts against them (over a fill: the stores against fill and write load)",
}

// printFailover prints, when the run has failover records, one line per
// case: its store kind, the processing gaps of its kills (each kill's longest task gap:
// median and min-max), failure detection and time to RUNNING (medians),
// how the survivors took over, and what the balance checks found; then
// the accounts that differ in checks that failed. Nothing for runs
// without failover records.
func printFailover(w io.Writer, restores []runs.Restore) {
	sums := runs.SummarizeFailover(restores)
	if len(sums) == 0 {
		return
	}
	textTable(w, "failover (gap: last record processed by the killed instance -> first by the survivor, longest task per kill):",
		"case\tkind\tguarantee\tstandby\tstate\tkills\tgap s\tmin-max s\tdetect s\trunning s\ttakeover\tacked\tledger", failoverLegend,
		sums, func(s runs.FailoverSummary) string {
			gap, span, det, run := "-", "-", "-", "-"
			if len(s.Gaps) > 0 {
				gap, span = fmt.Sprintf("%.2f", s.MedianGap), fmt.Sprintf("%.2f-%.2f", s.MinGap, s.MaxGap)
				det, run = fmt.Sprintf("%.2f", s.MedianDetection), fmt.Sprintf("%.2f", s.MedianRunning)
			}
			kills := fmt.Sprint(s.Kills)
			if s.Unresolved > 0 {
				kills += fmt.Sprintf(" (%d within the clocks' bound, left out)", s.Unresolved)
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s", s.Case, s.StoreKind, s.Guarantee, onOff(s.Standby), stateKind(s.Persistent),
				kills, gap, span, det, run, takeoverCounts(s.Takeovers), s.Acked, s.Verdict())
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

// failoverTableLegend says what the columns of the failover cases table mean.
const failoverTableLegend = "store kind: the store the instances ran (the ledger's key-value store, " +
	"or the kv topology's store of the fill's kind); " +
	"gap: per kill the longest a victim task processed nothing (last record " +
	"by the killed instance to first by the survivor); " +
	"detection: from the kill to the survivor's rebalance (session.timeout.ms); " +
	"back to RUNNING: until the survivor runs again, restores done; " +
	"takeovers: promoted standby, warm from a checkpoint, or restored; " +
	"ledger: the stores' accounts against the acknowledged transactions."

// failoverBlocks: per case the processing gaps of its kills, how the
// survivors took over and what the ledger check found.
func failoverBlocks(a *capacity.Analysis) ([]Block, error) {
	out := []Block{&Heading{Text: "Failover (SIGKILL)"},
		&Para{Text: "Two Kafka Streams instances run the ledger (or, with a query load or another store kind, the kv " +
			"topology over the fill) while a producer writes; the instance holding most tasks is killed with " +
			"SIGKILL and the other takes over. " +
			"The gap is, per task, from the last record the killed instance processed to the first its survivor processed; a " +
			"kill's gap is its longest task's. The ledger's balances are then checked against the " +
			"acknowledged transactions."}}
	if f := a.Failover(); f != nil {
		out = append(out, &Para{Text: fmt.Sprintf("**With a standby:** %s; takeovers: %s. Failure detection took %s (median; session.timeout.ms=%d).",
			f.Summary(), f.TakeoverText(), capacity.FormatSeconds(f.Detection), f.SessionTimeoutMs)})
	}
	t := &Table{Caption: "Failover cases: gaps over kills (median, min–max)",
		Legend: failoverTableLegend,
		Head: []string{"run", "case", "store kind", "guarantee", "standby", "state kept", "kills", "gap median",
			"gap range", "detection", "back to RUNNING", "takeovers", "ledger"},
		Right: []bool{false, false, false, false, false, false, true, true, true, true, true, false, false}}
	for _, run := range a.Runs {
		for _, fs := range runs.SummarizeFailover(run.Results.Restores) {
			row := []string{run.Label, fs.Case, string(fs.StoreKind), fs.Guarantee, yesNo(fs.Standby), yesNo(fs.Persistent), fmt.Sprint(fs.Kills)}
			if len(fs.Gaps) > 0 {
				row = append(row, capacity.FormatSeconds(fs.MedianGap), secondsRange(fs.Gaps)+unresolvedText(fs),
					capacity.FormatSeconds(fs.MedianDetection), capacity.FormatSeconds(fs.MedianRunning))
			} else if fs.Unresolved > 0 {
				row = append(row, "within the clocks' bound", unresolvedText(fs), "", "")
			} else {
				row = append(row, "", "", "", "")
			}
			t.Rows = append(t.Rows, append(row, takeovers(fs.Takeovers), fs.Verdict()))
		}
	}
	out = append(out, t)
	figs, err := runFigures(a, scenarioCharts(config.ScenarioFailover)...)
	return append(out, figs...), err
}

// unresolvedText notes the kills whose gaps lay within the clocks' bound
// across hosts, left out of the gaps: " (2 within the clocks' bound)".
func unresolvedText(fs runs.FailoverSummary) string {
	if fs.Unresolved == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d within the clocks' bound, left out)", fs.Unresolved)
}

// takeovers writes the takeover counts: "5 promoted".
func takeovers(m map[string]int) string {
	var kinds []string
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
