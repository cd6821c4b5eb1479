package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/registry"
	"github.com/restorebench/restorebench/runs"
)

// testFigure is a figure declared for the default views' tests: time to
// ready.
var testFigure = runs.DeclaredFigure{Name: "the restart's time to ready", Unit: "s", Column: "ready s", Title: "Time to ready again",
	Axis: "seconds to ready", Paragraph: "Each case restarted on its kept stores.",
	Read: func(r runs.Restore) (float64, bool) { return r.TimeToReady() }}

// declareForAll makes every scenario declare testFigure until the test ends.
func declareForAll(t *testing.T) {
	saved := figureOf
	t.Cleanup(func() { figureOf = saved })
	figureOf = func(config.Scenario) (runs.DeclaredFigure, bool) { return testFigure, true }
}

// without is a copy of registry r without the entries drop picks.
func without[T any](r registry.Ordered[T], drop func(T) bool) registry.Ordered[T] {
	out := registry.Ordered[T]{What: r.What, Order: r.Order, Name: r.Name, Keys: r.Keys}
	for _, e := range r.All() {
		if !drop(e) {
			out.Add(e)
		}
	}
	return out
}

func scenariosOfTables(ts []summaryTable) (out []config.Scenario) {
	for _, t := range ts {
		out = append(out, t.scenario)
	}
	return out
}

func scenariosOfFacts(fs []headlineFact) (out []config.Scenario) {
	for _, f := range fs {
		out = append(out, f.scenario)
	}
	return out
}

func scenariosOfSections(ss []scenarioSection) (out []config.Scenario) {
	for _, s := range ss {
		out = append(out, s.Scenarios...)
	}
	return out
}

// lacking are the scenarios config registers, in its order, that are not
// in has: those a default view stands in for when they declare a figure.
func lacking(has []config.Scenario) []config.Scenario {
	var out []config.Scenario
	for _, sc := range config.Scenarios {
		if !slices.Contains(has, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// withDefaults is the registered views' scenarios own, then a default for
// each scenario without a view of its own (none: those declaring they
// need none), as every scenario declaring a figure gives.
func withDefaults(own []config.Scenario, none ...config.Scenario) []config.Scenario {
	return append(slices.Clone(own), lacking(append(slices.Clone(own), none...))...)
}

// TestDefaultViewsOnlyWhereAScenarioHasNone: with every scenario declaring
// a figure, a scenario's own views are kept, in their order, and no
// default is added beside them: a default table, section and fact stand,
// after the registered ones, only for the scenarios without one of their
// own (cold has no section; a fact declared as none is no fact missing).
// With warm's own table, section and fact taken away, warm gets a default
// of each.
func TestDefaultViewsOnlyWhereAScenarioHasNone(t *testing.T) {
	declareForAll(t)
	check := func(when string) {
		tables, facts, sections := scenariosOfTables(summaryTables.All()), scenariosOfFacts(headlineFacts.All()), scenariosOfSections(scenarioSections.All())
		var none []config.Scenario
		for sc := range noFact {
			none = append(none, sc)
		}
		if got, want := scenariosOfTables(allSummaryTables()), withDefaults(tables); !slices.Equal(got, want) {
			t.Errorf("%s: summary tables %v, want %v", when, got, want)
		}
		if got, want := scenariosOfFacts(allFacts()), withDefaults(facts, none...); !slices.Equal(got, want) {
			t.Errorf("%s: facts %v, want %v", when, got, want)
		}
		if got, want := scenariosOfSections(allSections()), withDefaults(sections); !slices.Equal(got, want) || !slices.Contains(want, config.ScenarioCold) {
			t.Errorf("%s: sections %v, want %v (cold's default among them)", when, got, want)
		}
	}
	check("every scenario's own views")

	savedT, savedS, savedF := summaryTables, scenarioSections, headlineFacts
	defer func() { summaryTables, scenarioSections, headlineFacts = savedT, savedS, savedF }()
	summaryTables = without(savedT, func(t summaryTable) bool { return t.scenario == config.ScenarioWarm })
	scenarioSections = without(savedS, func(s scenarioSection) bool { return slices.Contains(s.Scenarios, config.ScenarioWarm) })
	headlineFacts = without(savedF, func(f headlineFact) bool { return f.scenario == config.ScenarioWarm })
	check("warm's own views taken away")
	for name, got := range map[string][]config.Scenario{"tables": scenariosOfTables(allSummaryTables()),
		"facts": scenariosOfFacts(allFacts()), "sections": scenariosOfSections(allSections())} {
		if countOf(got, config.ScenarioWarm) != 1 {
			t.Errorf("%s without warm's own %v: want its default once", name, got)
		}
	}
}

// figureRuns are records made for the default views' tests, of the cold
// scenario (which has no section of its own, so the report's tests can
// show its default one): in R1 case a verified at 3, 1 and 2 s and
// unverified at 100 s, case b unverified at 5 s, a warm restart (another
// scenario's) at 50 s; in R2 case c verified at 4 and 6 s and a repeat
// that failed before it measured.
func figureRuns() []*capacity.Run {
	rec := func(name string, rep int, secs float64, verified bool) runs.Restore {
		p := config.DefaultCase()
		p.Name = name
		r := runs.Restore{Case: name, Repeat: rep, Params: p, Partitions: 4, Verified: verified}
		if secs > 0 {
			r.Phase = &runs.RestorePhase{TotalSeconds: secs}
		}
		return r
	}
	warm := rec("w", 1, 50, true)
	warm.Params.Scenario = config.ScenarioWarm
	failed := rec("c", 3, 0, false)
	failed.Error = "boom"
	return []*capacity.Run{
		{Label: "R1", Results: &runs.Results{Restores: []runs.Restore{rec("a", 1, 3, true), rec("b", 1, 5, false), rec("a", 2, 1, true), warm,
			rec("a", 3, 2, true), rec("a", 4, 100, false)}}},
		{Label: "R2", Results: &runs.Results{Restores: []runs.Restore{rec("c", 1, 4, true), rec("c", 2, 6, true), failed}}},
	}
}

// TestDefaultViewsOfADeclaredFigure: on records made for the purpose, the
// default summary table has a row per record of the scenario (case,
// repeat, partitions, figure, verified) and none of another's; the
// default section opens with the declared paragraph and tables every
// record of every run; the default fact is the median over the verified
// records (a 3, 1, 2, c 4, 6: 3 s), the worst (6 s) and their count (5),
// a warning when none is verified and nothing without records.
func TestDefaultViewsOfADeclaredFigure(t *testing.T) {
	rs := figureRuns()
	var b strings.Builder
	restores := rs[0].Results.Restores
	printFigureTable(&b, config.ScenarioCold, testFigure, having(restores, func(r runs.Restore) bool { return r.Scenario() == config.ScenarioCold }))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var rows [][]string
	for _, l := range lines[2 : len(lines)-1] {
		rows = append(rows, strings.Fields(l))
	}
	wantRows := [][]string{{"a", "1", "4", "3.00", "true"}, {"b", "1", "4", "5.00", "false"}, {"a", "2", "4", "1.00", "true"},
		{"a", "3", "4", "2.00", "true"}, {"a", "4", "4", "100", "false"}}
	if lines[0] != "cold (time to ready again):" || strings.Join(strings.Fields(lines[1]), " ") != "case # partitions ready s verified" ||
		!slices.EqualFunc(rows, wantRows, slices.Equal) || lines[len(lines)-1] != "  ready s: the restart's time to ready (s)" {
		t.Errorf("summary table:\n%s", b.String())
	}

	a := &capacity.Analysis{Runs: rs}
	s, err := figureSection(a, config.ScenarioCold, testFigure)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "cold" || s.Title != testFigure.Title || len(s.Blocks) != 2 {
		t.Fatalf("section %s %q with %d blocks", s.ID, s.Title, len(s.Blocks))
	}
	if p, ok := s.Blocks[0].(*Para); !ok || p.Text != testFigure.Paragraph {
		t.Errorf("section opens with %#v, want the declared paragraph", s.Blocks[0])
	}
	tab, ok := s.Blocks[1].(*Table)
	if !ok {
		t.Fatalf("section's second block %#v, want its table", s.Blocks[1])
	}
	wantTab := [][]string{{"R1 a #1", "4", "3.00", "yes"}, {"R1 b #1", "4", "5.00", "no"}, {"R1 a #2", "4", "1.00", "yes"},
		{"R1 a #3", "4", "2.00", "yes"}, {"R1 a #4", "4", "100", "no"}, {"R2 c #1", "4", "4.00", "yes"}, {"R2 c #2", "4", "6.00", "yes"},
		{"R2 c #3", "4", noFigure, "no"}}
	if !slices.Equal(tab.Head, []string{"record", "partitions", "ready s", "verified"}) || !slices.EqualFunc(tab.Rows, wantTab, slices.Equal) ||
		tab.Legend == "" {
		t.Errorf("section table %v / %v, want rows %v", tab.Head, tab.Rows, wantTab)
	}

	facts := figureFacts(a, config.ScenarioCold, testFigure)
	want := Fact{Label: testFigure.Title, Value: "3.00 s", Detail: "median of 5 verified records; up to 6.00 s"}
	if len(facts) != 1 || facts[0] != want {
		t.Errorf("facts %+v, want %+v", facts, want)
	}
	unverified := &capacity.Analysis{Runs: []*capacity.Run{{Label: "R1", Results: &runs.Results{Restores: having(restores,
		func(r runs.Restore) bool { return r.Case == "b" })}}}}
	if f := figureFacts(unverified, config.ScenarioCold, testFigure); len(f) != 1 || !f[0].Warn || f[0].Value != "not verified" {
		t.Errorf("facts of unverified records %+v, want a warning", f)
	}
	none := &capacity.Analysis{Runs: []*capacity.Run{{Label: "R1", Results: &runs.Results{}}}}
	if f := figureFacts(none, config.ScenarioCold, testFigure); f != nil {
		t.Errorf("facts without records %+v", f)
	}
	if s, err := figureSection(none, config.ScenarioCold, testFigure); err != nil || len(s.Blocks) != 0 {
		t.Errorf("section without records: %d blocks, %v", len(s.Blocks), err)
	}
}
