package plots

import (
	"slices"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestChartRegistryIsWellFormed: each chart has a name and a file of its
// own and a draw function, belongs to a known scenario or none, and a
// chart the report shows has the report's title and caption.
func TestChartRegistryIsWellFormed(t *testing.T) {
	names, files := map[string]bool{}, map[string]bool{}
	for _, c := range Charts {
		if c.Name == "" || c.File == "" || c.Draw == nil {
			t.Errorf("chart %+v lacks a name, file or draw function", c)
		}
		if names[c.Name] || files[c.File] {
			t.Errorf("chart %s / %s registered twice", c.Name, c.File)
		}
		names[c.Name], files[c.File] = true, true
		if c.Scenario != "" && !slices.Contains(config.Scenarios, c.Scenario) {
			t.Errorf("chart %s: unknown scenario %q", c.Name, c.Scenario)
		}
		if c.Report && (c.Title == "" || c.Caption == "") {
			t.Errorf("chart %s is in the report without a title and caption", c.Name)
		}
		if got, ok := ChartNamed(c.Name); !ok || got.File != c.File {
			t.Errorf("ChartNamed(%q) = %v, %v", c.Name, got.File, ok)
		}
	}
	if got := ChartsOf(config.ScenarioRolling); len(got) != 2 || got[0].File != RollingTimelineFile || got[1].File != RollingDowntimeFile {
		t.Errorf("rolling charts %v", got)
	}
}
