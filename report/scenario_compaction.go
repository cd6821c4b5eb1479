package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The compaction cases' views: their summary table and their report
// section.
func init() {
	registerSummaryTable(summaryTable{scenario: config.ScenarioCompaction, order: 40, print: printCompaction})
	registerSection(scenarioSection{Order: 40, Scenarios: []config.Scenario{config.ScenarioCompaction}, Build: compactionSection})
	registerFact(headlineFact{order: 40, scenario: config.ScenarioCompaction, facts: compactionFacts})
}

// compactionFacts are the restore amplification, when a compaction case ran.
func compactionFacts(a *capacity.Analysis) []Fact {
	if f, ok := amplificationFact(a.Amplifications()); ok {
		return []Fact{f}
	}
	return nil
}

// amplificationFact is the restore amplification measured by Kafka's own
// cleaner per setting; a warning when only the embedded broker, which
// ignores the settings, compacted.
func amplificationFact(amps []*capacity.Amplification) (Fact, bool) {
	if len(amps) == 0 {
		return Fact{}, false
	}
	var vals, names []string
	for _, amp := range amps {
		if amp.OfSettings() {
			vals = append(vals, fmt.Sprintf("×%.2f", amp.Median))
			names = append(names, amp.Settings.String())
		}
	}
	if len(vals) == 0 {
		return Fact{Label: "Restore amplification", Value: "not measured on Kafka", Warn: true,
			Detail: "the embedded broker compacts fully whatever the cleaner settings; run the compaction cases with --brokers"}, true
	}
	return Fact{Label: "Restore amplification", Value: strings.Join(vals, " / "), Detail: "records read per live key under " + strings.Join(names, " / ")}, true
}

// compactionLegend says what the compaction table's columns are.
var compactionLegend = []string{
	"cleaner: who cleaned the log (Kafka's log cleaner, or the embedded broker's compaction: a floor, not Kafka's cleaner);",
	"written, read: records written and read by the restore; live keys: keys live afterwards; amplification: read over live keys",
	"(1 = fully compacted); bound: the most those settings allow; log MB before, after: the log's size after the writes and",
	"before the restore (1 MB = 10^6 bytes); restore s: the restore of what the cleaner left",
}

// printCompaction prints one row per compaction measurement: the cleaner
// settings, what the restore read against the live keys (the restore
// amplification), the most those settings allow, and the restore time.
func printCompaction(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Compaction != nil })
	textTable(w, "compaction (restore amplification: records read per live key after the cleaner ran):",
		"case\t#\tcleaner\twritten\tread\tlive keys\tamplification\tbound\tlog MB before\tafter\trestore s\tverified", compactionLegend,
		rows, func(r runs.Restore) string {
			cr := r.Compaction
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.1f\t%s\t%v", r.Case, r.Repeat, cr.CleanedBy, cr.Written, cr.Read,
				cr.LiveKeys, cr.Amplification, cr.Bound, float64(cr.LogBytesAfterWrite)/1e6, float64(cr.LogBytesBeforeRestore)/1e6,
				restoreSeconds(r, "%.2f"), r.Verified)
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

// compactionTableLegend says what the columns of the compaction cases table mean.
const compactionTableLegend = "cleaned by: Kafka's log cleaner, or the embedded broker's " +
	"compaction (a floor, not Kafka's cleaner); " +
	"written, read at restore: records; " +
	"amplification: read over live keys (1 = fully compacted); " +
	"bound: the most those settings allow; " +
	"log after write, before restore: the log's size on the broker."

// compactionSection: what the log cleaner left for a restore to read
// under each cleaner setting.
func compactionSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "compaction", Title: "Changelog compaction"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Compaction != nil })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "A restore reads the changelog as the log cleaner left it, not the live " +
		"state. Each case wrote the fill to a changelog of its own with the case's cleaner settings, " +
		"gave the cleaner its settle time, and restored it cold: " +
		"the **restore amplification** is the records read per live key (1 is a fully compacted log). The **bound** is the " +
		"most the settings allow: the cleaner waits until the dirty part is min.cleanable.dirty.ratio of " +
		"the log, and never cleans the active segment (segment.bytes per partition)."})
	t := &Table{Caption: "Compaction cases",
		Legend: compactionTableLegend,
		Head: []string{"restore", "cleaner settings", "cleaned by", "written", "read at restore", "live keys",
			"amplification", "bound", "log after write", "log before restore", "time to ready"},
		Right: []bool{false, false, false, true, true, true, true, true, true, true, true}}
	for _, x := range recs {
		cr := x.r.Compaction
		toReady := noFigure
		if secs, ok := x.r.TimeToReady(); ok {
			toReady = capacity.FormatSeconds(secs)
		}
		t.Rows = append(t.Rows, []string{x.ref(), capacity.NewCleanerSettings(cr.TopicConfigs).String(), cr.CleanedBy,
			thousands(cr.Written), thousands(cr.Read), thousands(cr.LiveKeys),
			fmt.Sprintf("×%.2f", cr.Amplification), fmt.Sprintf("×%.2f", cr.Bound), capacity.FormatBytes(float64(cr.LogBytesAfterWrite)),
			capacity.FormatBytes(float64(cr.LogBytesBeforeRestore)), toReady})
	}
	s.Blocks = append(s.Blocks, t)
	err := s.addFigures(a, config.ScenarioCompaction)
	return s, err
}
