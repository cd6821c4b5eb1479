package report

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/runs"
)

// withRolling is the synthetic runs with a rolling restart added to the
// scenario run, so that every scenario has records and charts.
func withRolling(t *testing.T) []*capacity.Run {
	rs := syntheticRuns()
	last := rs[len(rs)-1].Results
	var tasks []runs.TaskTimeline
	for _, r := range last.Restores {
		if r.ScaleOut != nil {
			tasks = r.ScaleOut.TaskTimelines
		}
	}
	if len(tasks) == 0 {
		t.Fatal("the scenario run has no scale-out timeline to reuse")
	}
	p := config.DefaultCase()
	p.Name, p.Scenario, p.Engine = "rolling-kept", config.ScenarioRolling, config.EngineKafkaStreams
	ro := &runs.RollingRecord{Instances: 3, Persistent: true, Standbys: 1, TaskTimelines: tasks, Rebalances: 3}
	for i, d := range []float64{0.6, 0.8, 0.5} {
		ro.Restarts = append(ro.Restarts, runs.Restart{Instance: "i" + string(rune('0'+i)), Stop: float64(20 * i), Ready: float64(20*i + 8), DowntimeSeconds: d})
		ro.DowntimeSeconds += d
	}
	last.Restores = append(last.Restores, runs.Restore{Case: p.Name, Repeat: 1, Params: p, Topic: last.Restores[0].Topic,
		Partitions: last.Restores[0].Partitions, StartedAt: last.StartedAt, Verified: true, Rolling: ro})
	return rs
}

// TestPlotAndReportShareTheChartRegistry: for every run, the scenario
// charts `restorebench plot` writes (plots.WriteAll) are the scenario
// figures the report shows, both taken from plots.Charts, the rolling
// timeline included; and every figure in the report, those of the
// analysis across runs (fits, throughput, recovery time) too, is a
// registered chart.
func TestPlotAndReportShareTheChartRegistry(t *testing.T) {
	rs := withRolling(t)
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	var figures []string
	for _, f := range d.Figures() {
		figures = append(figures, f.Name)
	}
	byFile := map[string]plots.Chart{}
	for _, c := range plots.Charts() {
		byFile[c.File] = c
	}
	seen := map[config.Scenario]bool{}
	for _, run := range rs {
		files, err := plots.WriteAll(run.Results, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var plotted, reported []string
		for _, f := range files {
			if filepath.Ext(f) != ".svg" {
				continue
			}
			c, ok := byFile[strings.TrimSuffix(filepath.Base(f), ".svg")]
			if !ok {
				t.Fatalf("plot wrote %s, a chart not in plots.Charts", f)
			}
			if c.Scenario != "" {
				seen[c.Scenario] = true
				plotted = append(plotted, c.Name+"-"+strings.ToLower(run.Label))
			}
		}
		for _, c := range plots.Charts() {
			name := c.Name + "-" + strings.ToLower(run.Label)
			if c.Scenario != "" && slices.Contains(figures, name) {
				reported = append(reported, name)
			}
		}
		slices.Sort(plotted)
		slices.Sort(reported)
		if !slices.Equal(plotted, reported) {
			t.Errorf("%s: plot drew scenario charts %v, the report %v", run.Label, plotted, reported)
		}
	}
	for _, s := range config.Scenarios {
		if s != config.ScenarioCold && !seen[s] {
			t.Errorf("no chart of scenario %s was drawn: the test's runs should cover every scenario", s)
		}
	}
	if !slices.Contains(figures, "rolling-timeline-"+strings.ToLower(rs[len(rs)-1].Label)) {
		t.Errorf("the report has no rolling timeline: %v", figures)
	}
	// Every figure is a registered chart: one of a run named for the run,
	// or one of the analysis across runs under its own name; and each chart
	// of the analysis the report shows is there (the runs have data for all).
	for _, name := range figures {
		if !slices.ContainsFunc(plots.Charts(), func(c plots.Chart) bool {
			return c.Draw != nil && strings.HasPrefix(name, c.Name+"-") || c.Analysis != nil && name == c.Name
		}) {
			t.Errorf("figure %s is no chart of plots.Charts", name)
		}
	}
	for _, c := range plots.Charts() {
		if c.Analysis != nil && c.Report && !slices.Contains(figures, c.Name) {
			t.Errorf("the report has no figure of plots' chart %s of the analysis: %v", c.Name, figures)
		}
	}
}

// TestEveryScenarioHasAReportSection: every scenario config registers but
// cold is shown by exactly one scenario section of the report: its own, or
// the default one of the figure its record declares.
func TestEveryScenarioHasAReportSection(t *testing.T) {
	seen := map[config.Scenario]int{}
	for _, ss := range allSections() {
		for _, sc := range ss.Scenarios {
			seen[sc]++
		}
	}
	for _, def := range config.ScenarioDefs() {
		want := 1
		if def.Name == config.ScenarioCold {
			want = 0
		}
		if seen[def.Name] != want {
			t.Errorf("scenario %s is in %d report sections, want %d (registerSection in report/scenario_%s.go, or a figure declared with its record)",
				def.Name, seen[def.Name], want, def.Name)
		}
	}
}

// TestEveryScenarioHasAHeadlineFact: every scenario config registers has
// exactly one entry of headline facts (registerFact, in its
// report/scenario_<name>.go), declares why it has none (declareNoFact),
// never both, or has neither and declares its figure (its default fact);
// the facts keep their order, and a clashing registration panics.
func TestEveryScenarioHasAHeadlineFact(t *testing.T) {
	var order []config.Scenario
	for _, f := range headlineFacts.All() {
		order = append(order, f.scenario)
	}
	for _, def := range config.ScenarioDefs() {
		why, none := noFact[def.Name]
		_, declared := figureOf(def.Name)
		switch n := countOf(order, def.Name); {
		case n == 0 && !none && !declared:
			t.Errorf("scenario %s has no headline fact: registerFact in report/scenario_%s.go, declareNoFact with why, or a figure declared with its record",
				def.Name, def.Name)
		case n > 0 && none:
			t.Errorf("scenario %s has a headline fact but declares none (%s)", def.Name, why)
		}
	}
	want := []config.Scenario{config.ScenarioWarm, config.ScenarioFailover, config.ScenarioStandby, config.ScenarioCompaction, config.ScenarioScaleOut}
	if len(order) < len(want) || !slices.Equal(order[:len(want)], want) {
		t.Errorf("headline facts %v, want %v first", order, want)
	}
	savedF, savedN := headlineFacts, noFact
	defer func() { headlineFacts, noFact = savedF, savedN }()
	for name, reg := range map[string]func(){
		"a fact of a taken order":       func() { registerFact(headlineFact{order: headlineFacts.All()[0].order, scenario: config.ScenarioCold}) },
		"a second fact of a scenario":   func() { registerFact(headlineFact{order: 1_000, scenario: config.ScenarioWarm}) },
		"a fact of an unknown scenario": func() { registerFact(headlineFact{order: 1_001, scenario: "nope"}) },
		"no fact without a reason":      func() { declareNoFact(config.ScenarioWarm, "") },
		"no fact declared twice":        func() { declareNoFact(config.ScenarioCold, "again") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			reg()
		}()
	}
}

// summaryOrder and sectionOrder are the orders of the summary's tables
// and of the report's scenario sections before each registered from its
// scenario's file; the scenarios registered since come after.
var (
	summaryOrder = []config.Scenario{config.ScenarioCold, config.ScenarioWarm, config.ScenarioStandby, config.ScenarioCompaction,
		config.ScenarioFailover, config.ScenarioScaleOut, config.ScenarioRolling}
	sectionOrder = []config.Scenario{config.ScenarioWarm, config.ScenarioStandby, config.ScenarioScaleOut, config.ScenarioCompaction}
)

// TestEveryScenarioHasASummaryTable: every scenario config registers has
// exactly one table in the summary (its own, or the default one of the
// figure its record declares), the registered tables and scenario
// sections keep their order, and a clashing registration panics.
func TestEveryScenarioHasASummaryTable(t *testing.T) {
	var tables, sections []config.Scenario
	for _, st := range allSummaryTables() {
		tables = append(tables, st.scenario)
	}
	for _, ss := range scenarioSections.All() {
		sections = append(sections, ss.Scenarios[0])
	}
	for _, def := range config.ScenarioDefs() {
		if n := countOf(tables, def.Name); n != 1 {
			t.Errorf("scenario %s has %d summary tables, want 1 (registerSummaryTable, in report/scenario_%s.go, or a figure declared with its record)",
				def.Name, n, def.Name)
		}
	}
	if len(tables) < len(summaryOrder) || !slices.Equal(tables[:len(summaryOrder)], summaryOrder) {
		t.Errorf("summary tables %v, want %v first", tables, summaryOrder)
	}
	if len(sections) < len(sectionOrder) || !slices.Equal(sections[:len(sectionOrder)], sectionOrder) {
		t.Errorf("scenario sections %v, want %v first", sections, sectionOrder)
	}
	savedT, savedS := summaryTables, scenarioSections
	defer func() { summaryTables, scenarioSections = savedT, savedS }()
	p := summaryTables.All()[0].print
	for _, reg := range []func(){
		func() { registerSummaryTable(summaryTable{scenario: config.ScenarioWarm, order: 1_000, print: p}) },
		func() { registerSummaryTable(summaryTable{scenario: "nope", order: 1_001, print: p}) },
		func() {
			registerSummaryTable(summaryTable{scenario: config.ScenarioWarm, order: summaryTables.All()[0].order, print: p})
		},
		func() {
			registerSection(scenarioSection{Order: scenarioSections.All()[0].Order, Scenarios: []config.Scenario{config.ScenarioWarm}})
		},
		func() { registerSection(scenarioSection{Order: 1_002, Scenarios: []config.Scenario{"nope"}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a clashing registration did not panic")
				}
			}()
			reg()
		}()
	}
}

func countOf(xs []config.Scenario, x config.Scenario) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// TestEveryTableHasItsLegend: every table a report holds, from the saved
// runs of every built-in profile and the synthetic scenario runs with a
// deployment asked about, says under it what its columns mean.
func TestEveryTableHasItsLegend(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("..", "testdata", "results", "*", "results.json"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no saved runs: %v", err)
	}
	saved, err := capacity.LoadRuns(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	opts := capacity.Options{RTOs: capacity.DefaultRTOs, Threads: 1,
		Deployment: capacity.Deployment{StateBytes: 50 << 30, Partitions: 16, Instances: 4}}
	tables := 0
	for _, rs := range [][]*capacity.Run{saved, withRolling(t)} {
		d, err := Build(capacity.Analyze(rs, opts))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Sections {
			for _, b := range s.Blocks {
				tab, ok := b.(*Table)
				if !ok {
					continue
				}
				tables++
				if strings.TrimSpace(tab.Legend) == "" {
					t.Errorf("section %q: the table %q (%s) has no legend", s.Title, tab.Caption, strings.Join(tab.Head, " | "))
				}
			}
		}
	}
	if tables < 12 {
		t.Fatalf("only %d tables seen: the inputs should exercise most of the report's tables", tables)
	}
}
