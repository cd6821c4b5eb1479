package plots

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// TestEveryScenarioHasAChartOrAFigure: every scenario config registers but
// cold (whose records the general charts draw) registers a chart of its
// own or declares the figure its default chart is drawn from.
func TestEveryScenarioHasAChartOrAFigure(t *testing.T) {
	for _, sc := range config.Scenarios {
		if sc == config.ScenarioCold {
			continue
		}
		own := slices.ContainsFunc(charts.All(), func(c Chart) bool { return c.Scenario == sc })
		if _, declared := figureOf(sc); !own && !declared {
			t.Errorf("scenario %s has no chart: register one in plots/%s.go, or declare its figure with its record (runs/%s.go)", sc, sc, sc)
		}
	}
}

// testFigure is a figure declared for the default views' tests: time to
// ready.
var testFigure = runs.DeclaredFigure{Name: "the restart's time to ready", Unit: "s", Column: "ready s", Title: "Time to ready again",
	Axis: "seconds to ready", Paragraph: "Each case restarted.", Read: func(r runs.Restore) (float64, bool) { return r.TimeToReady() }}

// figureRecords are records made for the default chart's test, of the
// cold scenario: case a verified at 3, 1 and 2 s (and unverified at 100 s),
// case b never verified, case c verified at 4 and 6 s, and a warm restart
// (another scenario's) at 50 s.
func figureRecords() *runs.Results {
	rec := func(name string, rep int, secs float64, verified bool) runs.Restore {
		p := config.DefaultCase()
		p.Name = name
		return runs.Restore{Case: name, Repeat: rep, Params: p, Partitions: 4, Verified: verified, Phase: &runs.RestorePhase{TotalSeconds: secs}}
	}
	warm := rec("w", 1, 50, true)
	warm.Params.Scenario = config.ScenarioWarm
	return &runs.Results{Restores: []runs.Restore{rec("a", 1, 3, true), rec("b", 1, 5, false), rec("a", 2, 1, true), warm,
		rec("a", 3, 2, true), rec("c", 1, 4, true), rec("a", 4, 100, false), rec("c", 2, 6, true)}}
}

// TestFigureChartDrawsEachCasesMedian: a scenario declaring a figure and
// registering no chart (cold, here, through figureOf) gets its default
// chart in Charts, ChartsOf and WriteAll, after the registry's; a scenario
// with charts of its own (warm) gets none. The chart has one bar per case
// of the scenario's records, the median of its verified repeats (a: 2 s
// of 3, b: none verified, c: 5 s of 2), the other scenario's record left
// out.
func TestFigureChartDrawsEachCasesMedian(t *testing.T) {
	saved := figureOf
	defer func() { figureOf = saved }()
	figureOf = func(sc config.Scenario) (runs.DeclaredFigure, bool) {
		return testFigure, sc == config.ScenarioCold || sc == config.ScenarioWarm
	}
	all := Charts()
	if len(all) != charts.Len()+1 {
		t.Fatalf("%d charts, want the registry's %d and cold's default", len(all), charts.Len())
	}
	def := all[len(all)-1]
	if def.Scenario != config.ScenarioCold || def.Name != "cold" || def.File != "cold" || !def.Report || def.Title != testFigure.Title ||
		def.Order <= charts.All()[charts.Len()-1].Order {
		t.Errorf("default chart %+v", def)
	}
	if got := ChartsOf(config.ScenarioCold); len(got) != 1 || got[0].Name != "cold" {
		t.Errorf("ChartsOf(cold) = %v", got)
	}
	if got := ChartsOf(config.ScenarioWarm); slices.ContainsFunc(got, func(c Chart) bool { return c.Name == "warm" }) {
		t.Error("warm, which has charts of its own, got a default chart")
	}

	res := figureRecords()
	want := []figureCase{{name: "a", median: 2, verified: 3}, {name: "b"}, {name: "c", median: 5, verified: 2}}
	if got := figureCases(res, config.ScenarioCold, testFigure); !slices.Equal(got, want) {
		t.Errorf("cases %+v, want %+v", got, want)
	}
	p, err := def.Draw(res)
	if err != nil || p == nil {
		t.Fatalf("draw: %v, %v", p, err)
	}
	if p.Y.Label.Text != "seconds to ready" || !strings.HasPrefix(p.Title.Text, "Time to ready again") {
		t.Errorf("title %q, axis %q", p.Title.Text, p.Y.Label.Text)
	}
	svg := svgText(t, p)
	for _, s := range []string{"2.00 s", "n=3", "5.00 s", "n=2", "b (unverified)", "no verified"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the chart lacks %q", s)
		}
	}
	if strings.Contains(svg, "50.0 s") || strings.Contains(svg, ">w<") {
		t.Error("the chart draws the warm restart")
	}
	files, err := WriteAll(res, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(files, func(f string) bool { return filepath.Base(f) == "cold.png" }) {
		t.Errorf("WriteAll wrote %v, no cold.png", files)
	}
	if p, err := FigureMedians(&runs.Results{}, config.ScenarioCold, testFigure); p != nil || err != nil {
		t.Errorf("no records: %v, %v, want nil, nil", p, err)
	}
}
