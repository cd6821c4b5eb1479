package report

import (
	"fmt"
	"io"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/runs"
)

// The default views of a simple scenario: a scenario whose record declares
// the figure it is read by (runs.DeclaredFigure, in runs/<scenario>.go)
// gets, of each kind of view it registers none of its own, one derived
// from the declaration: a summary table (a row per record: case, repeat,
// partitions, the figure, verified), a report section (its paragraph, a
// table of its records and its default chart, package plots') and a
// headline fact (median, worst, count). They are not registered per
// scenario: the summary, the report and the cards take them, after the
// registered views, from the lists below, for every such scenario in
// config's order. A scenario with views of its own keeps them.

// figureOf is the figure a scenario's record declares (runs.FigureOf);
// tests declare one through it.
var figureOf = runs.FigureOf

// declared is a scenario and the figure its record declares.
type declared struct {
	scenario config.Scenario
	fig      runs.DeclaredFigure
}

// declaredWithout are the scenarios config registers, in its order, whose
// record declares a figure and that have no view of their own of a kind
// (own says whether a scenario has).
func declaredWithout(own func(config.Scenario) bool) []declared {
	var out []declared
	for _, sc := range config.Scenarios {
		if fig, ok := figureOf(sc); ok && !own(sc) {
			out = append(out, declared{sc, fig})
		}
	}
	return out
}

// allSummaryTables are the summary's tables: the registered ones, then the
// default table of each scenario that declares its figure and registers
// no table.
func allSummaryTables() []summaryTable {
	own := summaryTables.All()
	out := slices.Clip(own)
	for _, d := range declaredWithout(func(sc config.Scenario) bool {
		return slices.ContainsFunc(own, func(t summaryTable) bool { return t.scenario == sc })
	}) {
		out = append(out, summaryTable{scenario: d.scenario, print: func(w io.Writer, restores []runs.Restore) {
			printFigureTable(w, d.scenario, d.fig, restores)
		}})
	}
	return out
}

// allSections are the report's scenario sections: the registered ones,
// then the default section of each scenario that declares its figure and
// is in no section.
func allSections() []scenarioSection {
	own := scenarioSections.All()
	out := slices.Clip(own)
	for _, d := range declaredWithout(func(sc config.Scenario) bool {
		return slices.ContainsFunc(own, func(s scenarioSection) bool { return slices.Contains(s.Scenarios, sc) })
	}) {
		out = append(out, scenarioSection{Scenarios: []config.Scenario{d.scenario},
			Build: func(a *capacity.Analysis) (Section, error) { return figureSection(a, d.scenario, d.fig) }})
	}
	return out
}

// allFacts are the headline facts: the registered ones, then the default
// fact of each scenario that declares its figure and neither registers a
// fact nor declares it has none.
func allFacts() []headlineFact {
	own := headlineFacts.All()
	out := slices.Clip(own)
	for _, d := range declaredWithout(func(sc config.Scenario) bool {
		_, none := noFact[sc]
		return none || slices.ContainsFunc(own, func(f headlineFact) bool { return f.scenario == sc })
	}) {
		out = append(out, headlineFact{scenario: d.scenario, facts: func(a *capacity.Analysis) []Fact {
			return figureFacts(a, d.scenario, d.fig)
		}})
	}
	return out
}

// figureLegend says what a default table's figure column is.
func figureLegend(fig runs.DeclaredFigure) string {
	return fmt.Sprintf("%s: %s (%s)", fig.Column, fig.Name, fig.Unit)
}

// figureCell is a record's figure as a default table writes it, with three
// significant digits (its unit in the column's head), or noFigure.
func figureCell(fig runs.DeclaredFigure, r runs.Restore) string {
	if v, ok := fig.Read(r); ok {
		return units.Sig3(v)
	}
	return noFigure
}

// printFigureTable prints scenario sc's default summary table: one row per
// record of restores (its case, repeat, partitions, figure and verdict).
func printFigureTable(w io.Writer, sc config.Scenario, fig runs.DeclaredFigure, restores []runs.Restore) {
	textTable(w, fmt.Sprintf("%s (%s):", sc, lowerFirst(fig.Title)), "case\t#\tpartitions\t"+fig.Column+"\tverified",
		[]string{figureLegend(fig)}, restores, func(r runs.Restore) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%v", r.Case, r.Repeat, r.Partitions, figureCell(fig, r), r.Verified)
		})
}

// figureSection is scenario sc's default report section: the declared
// paragraph, a table of its records in every run, and its charts.
func figureSection(a *capacity.Analysis, sc config.Scenario, fig runs.DeclaredFigure) (Section, error) {
	s := Section{ID: string(sc), Title: fig.Title}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Scenario() == sc })
	if len(recs) == 0 {
		return s, nil
	}
	t := &Table{Caption: fmt.Sprintf("The %s records", sc), Legend: figureLegend(fig) + "; verified: the restored state matched what was written.",
		Head: []string{"record", "partitions", fig.Column, "verified"}, Right: []bool{false, true, true, false}}
	for _, x := range recs {
		t.Rows = append(t.Rows, []string{x.ref(), fmt.Sprint(x.r.Partitions), figureCell(fig, x.r), yesNo(x.r.Verified)})
	}
	s.Blocks = append(s.Blocks, &Para{Text: fig.Paragraph}, t)
	err := s.addFigures(a, sc)
	return s, err
}

// figureFacts is scenario sc's default headline fact: the median of its
// figure over the records that count in every run, the worst (the
// largest: a declared figure is a cost) and how many; a warning when it
// has records and none counts, nothing when it has none.
func figureFacts(a *capacity.Analysis, sc config.Scenario, fig runs.DeclaredFigure) []Fact {
	var all []runs.Restore
	for _, x := range restoresWhere(a, func(r runs.Restore) bool { return r.Scenario() == sc }) {
		all = append(all, x.r)
	}
	if len(all) == 0 {
		return nil
	}
	vals := runs.FigureValues(fig, sc, all)
	if len(vals) == 0 {
		return []Fact{{Label: fig.Title, Value: "not verified", Warn: true,
			Detail: fmt.Sprintf("%s, none verified", capacity.Plural(len(all), "record"))}}
	}
	return []Fact{{Label: fig.Title, Value: fig.Format(runs.Median(vals)),
		Detail: fmt.Sprintf("median of %s; up to %s", capacity.Plural(len(vals), "verified record"), fig.Format(runs.Max(vals)))}}
}

// lowerFirst is s with its first letter in lower case: a title inside a
// sentence.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
