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
package report
