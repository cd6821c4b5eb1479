package capacitytest

import (
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// TestEveryScenarioHasExampleRecords: every scenario config registers
// registers example records with its record (in runs/<scenario>.go), or
// says why it has none, so a new scenario's records reach the report's
// and the planner's tests without an edit here; and ScenarioRun holds a
// record of each that does.
func TestEveryScenarioHasExampleRecords(t *testing.T) {
	held := map[config.Scenario]bool{}
	for _, r := range ScenarioRun(0).Restores {
		held[r.Scenario()] = true
	}
	for _, sc := range config.Scenarios {
		has, _, err := runs.ExampleOf(sc)
		switch {
		case err != nil:
			t.Error(err)
		case has && !held[sc]:
			t.Errorf("scenario %s registers example records, yet ScenarioRun holds none", sc)
		}
	}
}
