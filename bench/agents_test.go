package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestCheckAgentCases: with agents, every kafka-streams scenario with
// instances runs on them, cold and warm included; a cold or warm case
// with a query load is refused naming it, as is a scenario that would
// start its instance here; model cases run here as ever.
func TestCheckAgentCases(t *testing.T) {
	ks := func(name string, s config.Scenario) config.Case {
		c := config.DefaultCase()
		c.Name, c.Engine, c.Scenario = name, config.EngineKafkaStreams, s
		return c
	}
	var ok []config.Case
	for _, s := range []config.Scenario{config.ScenarioCold, config.ScenarioWarm, config.ScenarioFailover, config.ScenarioScaleOut, config.ScenarioRolling, config.ScenarioStandby} {
		ok = append(ok, ks(string(s), s))
	}
	model := config.DefaultCase()
	model.Name, model.Scenario = "model-compaction", config.ScenarioCompaction
	if err := checkAgentCases(append(ok, model)); err != nil {
		t.Fatalf("refused: %v", err)
	}
	queried := ks("cold-queried", config.ScenarioCold)
	queried.Queries = &config.QueryLoad{}
	if err := checkAgentCases([]config.Case{queried}); err == nil || !strings.Contains(err.Error(), "case cold-queried: its query load runs on this machine") {
		t.Errorf("a queried cold case on agents: %v", err)
	}
	if err := checkAgentCases([]config.Case{ks("compaction", config.ScenarioCompaction)}); err == nil || !strings.Contains(err.Error(), "case compaction: the kafka-streams compaction scenario runs its instance on this machine") {
		t.Errorf("a local-only kafka-streams scenario on agents: %v", err)
	}
}
