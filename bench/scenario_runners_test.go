package bench

import (
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/scenario"
)

// TestRunFindsEveryScenarioRunner: the bench, and so the binary, is linked
// with a runner for every scenario on each engine config names for it,
// also those of scenario's subpackages (scenario/failover): without them a
// failover case would fail at run time with "not available".
func TestRunFindsEveryScenarioRunner(t *testing.T) {
	for _, def := range config.ScenarioDefs() {
		for _, e := range def.Engines {
			c := config.DefaultCase()
			c.Name, c.Scenario, c.Engine = "c", def.Name, e
			if _, err := scenario.For(c); err != nil {
				t.Errorf("scenario %s on %s: %v", def.Name, e, err)
			}
		}
	}
}
