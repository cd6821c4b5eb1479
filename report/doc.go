// Package report turns results files into a capacity report a user can act
// on and forward: report.md and a self-contained report.html (charts as
// inline SVG, no scripts, no external assets), and the terminal answers of
// `restorebench plan`. Every figure comes from package capacity's Analysis
// of the results files (and package compare's verdicts), so the report and
// the plan print the same numbers; nothing is measured here.
//
// The report is built once as a Document (sections of paragraphs, tables,
// lists and figures) and rendered by NewMarkdownReporter and
// NewHTMLReporter; reporters are func(io.Writer) error, as in package
// compare.
//
// A run's text summary, as `restorebench summary`, `run` and `restore`
// print it, has its one home here: PrintSummary, whose parts that are not a
// scenario's each live in a file named for what they print
// (summary_fills.go, summary_reads.go, summary_ksmetrics.go, ...).
//
// A scenario's views of its records live in one file, scenario_<name>.go:
// its table in `restorebench summary` (printScenarioTables prints them,
// each registered with registerSummaryTable), its report section
// (registerSection; a section can show several scenarios, as the standby
// section shows failovers) and its headline facts on the summary's cards
// (registerFact, after the general facts of build.go). The registries are
// placed by an order of their own, so the summary and the report read as
// they did. A simple scenario needs no file here: when its record declares
// the figure it is read by (runs.DeclaredFigure), each kind of view it
// registers none of gets its default view, derived from the declaration
// (scenario_figure.go), after the registered ones. Tests hold every
// scenario config registers to a table, to a section but cold, and to a
// headline fact or a declared reason for none (declareNoFact), each its
// own or its default.
package report
