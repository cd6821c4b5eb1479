package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// summaryTable is one scenario's table in `restorebench summary`,
// registered from the scenario's file here (scenario_<name>.go), beside
// its report section: a scenario's two views of its records are one file.
type summaryTable struct {
	scenario config.Scenario
	// order places the table in the summary: lower first, one table an
	// order (the registry is filled from the files' inits, in whatever
	// order they run).
	order int
	// print prints the table of the scenario's restores, in run order:
	// nothing without rows.
	print func(w io.Writer, restores []runs.Restore)
}

// summaryTables are the summary's tables, one per scenario that has its
// own, in the order printed; a scenario without declares its figure and
// has its default table (allSummaryTables). A test holds them to config's
// registry.
var summaryTables = byScenario("report: summary table of",
	func(t summaryTable) int { return t.order }, func(t summaryTable) config.Scenario { return t.scenario })

// registerSummaryTable adds t in its order. It panics, when the program
// starts, on a scenario config does not register, and on a scenario or
// order another table has.
func registerSummaryTable(t summaryTable) {
	if _, ok := config.ScenarioDefOf(t.scenario); !ok || t.print == nil {
		panic(fmt.Sprintf("report: summary table of %q: no such scenario in config, or nothing to print", t.scenario))
	}
	summaryTables.Add(t)
}

// PrintSummary prints a run's text summary, what `restorebench summary`,
// `run` and `restore` show: the run's fills, the Kafka Streams versions
// it ran, one table per scenario it measured (printScenarioTables), its
// confirmations, store kinds, query loads and read outages, how restores
// read transactional changelogs, the restores of topics it did not fill,
// Kafka Streams' own metrics where they were sampled, then what did not
// verify, why the run is partial if it is, and path. Every figure is read
// from res, i.e. from results.json at path.
func PrintSummary(w io.Writer, res *runs.Results, path string) {
	printFills(w, res)
	printVersions(w, res.Restores)
	printScenarioTables(w, res)
	printConfirmations(w, res)
	printStoreKinds(w, res.Restores)
	printQueries(w, res.Restores)
	printReadOutages(w, res.Restores)
	printReads(w, res.Restores)
	printUnverified(w, res.Restores, res.Fill)
	printKafkaStreamsMetrics(w, res.Restores)
	printFailures(w, res.Restores)
	if reason := res.IncompleteReason(); reason != "" {
		fmt.Fprintf(w, "INCOMPLETE: %s\n", reason)
	}
	fmt.Fprintf(w, "results: %s\n", path)
}

// printScenarioTables prints a table per scenario the run measured, each
// with its own columns and over its own records only (a record is its
// scenario's, runs.Restore.Scenario): the cold restores', then what the
// warm restarts, standby steps, compaction cases, failovers, scale-outs
// and rolling restarts measured, then the default table of each scenario
// that declares its figure instead (allSummaryTables). Every figure is
// read from the records. PrintSummary prints them after the run's fills
// and versions.
func printScenarioTables(w io.Writer, res *runs.Results) {
	for _, t := range allSummaryTables() {
		t.print(w, having(res.Restores, func(r runs.Restore) bool { return r.Scenario() == t.scenario }))
	}
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

// textTable prints title, then a right-aligned table of header (tab-separated
// columns) and one line per row, then legend (what the columns mean, one
// string a line); nothing at all, and false, without rows.
func textTable[T any](w io.Writer, title, header string, legend []string, rows []T, line func(T) string) bool {
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

// printNotes prints each row's notes under its table, named by case.
func printNotes(w io.Writer, rows []runs.Restore, notes func(runs.Restore) []string) {
	for _, r := range rows {
		for _, n := range notes(r) {
			fmt.Fprintf(w, "  %s: %s\n", r.Case, n)
		}
	}
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
