package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/registry"
	"github.com/restorebench/restorebench/runs"
)

// Chart is one chart this package draws from a run's results, registered
// once in the registry (Charts), from the file that draws it: `restorebench
// plot` (WriteAll) writes every chart of the registry a run has data for,
// and the report draws its figures of a run from the same entries.
type Chart struct {
	// Order places the chart in the registry: lower first, one chart an
	// order (the registry is filled from the files' inits, in whatever
	// order they run).
	Order int
	// Name identifies the chart; the report names its figures of a run
	// Name + "-" + the run's label.
	Name string
	// File is the base name WriteAll writes the chart as (File + ".png",
	// File + ".svg").
	File string
	// Scenario is the scenario whose records the chart draws; "" for a
	// general chart of any run's restores and fill.
	Scenario config.Scenario
	// Title and Caption are the report's heading and caption of the
	// figure (the report adds the run's label).
	Title, Caption string
	// Report says whether the report shows the chart. Every scenario's
	// chart is in its scenario's section; of the general charts of one run
	// the report shows only the time per case, in its throughput section,
	// and then only when it has no cross-size chart; the charts of the
	// analysis each in its section (fits, throughput, recovery-time table).
	Report bool
	// Draw draws the chart of one run; it returns ErrNoRestores,
	// ErrNotASweep or ErrNotApplicable, or (nil, nil), for results without
	// data for it. Nil for a chart of the analysis.
	Draw func(*runs.Results) (*plot.Plot, error)
	// Analysis draws, instead of Draw, a chart of the planner's analysis
	// across runs (analysis.go: the fits, throughput per size, size
	// within a recovery time); (nil, nil) when the analysis has no data
	// for it. WriteAll, which draws one run, skips these charts; the
	// report draws each once, named Name. Nil for a chart of one run.
	Analysis func(*capacity.Analysis) (*plot.Plot, error)
}

// charts is the chart registry, in the order WriteAll writes them and the
// report shows them within a section: each chart registers from the file
// that draws it (registerChart in its init), placed by its Order. Adding a
// chart is writing its draw function and registering it beside it.
var charts = registry.Ordered[Chart]{
	What:  "plots: chart",
	Order: func(c Chart) int { return c.Order },
	Name:  func(c Chart) string { return c.Name },
	Keys:  func(c Chart) []string { return []string{c.Name, c.File} },
}

// Charts returns the registry's charts, in order, then the default chart
// of each simple scenario that registers none of its own (figureCharts,
// figure.go). Without a default chart the slice is the registry's: read
// it, do not change it.
func Charts() []Chart {
	own := charts.All()
	if derived := figureCharts(own); len(derived) > 0 {
		return append(slices.Clip(own), derived...)
	}
	return own
}

// registerChart adds c to the registry in its Order. It panics, when the
// program starts, on a chart without a name, file or draw function (or
// with both Draw and Analysis), one whose name, file or order another
// has, and one of a scenario config does not register.
func registerChart(c Chart) {
	if c.Name == "" || c.File == "" || (c.Draw == nil) == (c.Analysis == nil) {
		panic(fmt.Sprintf("plots: chart %q registered without a name, file or exactly one draw function", c.Name))
	}
	if _, ok := config.ScenarioDefOf(c.Scenario); c.Scenario != "" && !ok {
		panic(fmt.Sprintf("plots: chart %s of scenario %s, which config does not register", c.Name, c.Scenario))
	}
	charts.Add(c)
}

// ChartsOf returns the charts of scenario s ("" for the general charts),
// in Charts' order: its registered charts, or its default chart.
func ChartsOf(s config.Scenario) []Chart {
	var out []Chart
	for _, c := range Charts() {
		if c.Scenario == s {
			out = append(out, c)
		}
	}
	return out
}

// ChartNamed returns the chart of Charts called name.
func ChartNamed(name string) (Chart, bool) {
	for _, c := range Charts() {
		if c.Name == name {
			return c, true
		}
	}
	return Chart{}, false
}
