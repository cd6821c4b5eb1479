package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
)

// TestCheckAgentCases: with agents, every kafka-streams scenario with
// instances runs on them, cold and warm included, with a query load too
// (it runs on the instance's agent); a fleet case with a query load is
// refused naming it, as is a scenario that would start its instance here; a model cold case runs on an agent, and a model
// scenario that would restore here, or a model case with queries, is
// refused naming it.
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
	model.Name, model.Scenario = "model-cold", config.ScenarioCold
	if err := checkAgentCases(append(ok, model)); err != nil {
		t.Fatalf("refused: %v", err)
	}
	compaction := config.DefaultCase()
	compaction.Name, compaction.Scenario = "model-compaction", config.ScenarioCompaction
	if err := checkAgentCases([]config.Case{compaction}); err == nil || !strings.Contains(err.Error(), "case model-compaction: the model compaction scenario restores on this machine") {
		t.Errorf("a model scenario agents do not run: %v", err)
	}
	model.Name, model.Queries = "model-queried", &config.QueryLoad{}
	if err := checkAgentCases([]config.Case{model}); err == nil || !strings.Contains(err.Error(), "case model-queried: its query load reads the model's stores in this process") {
		t.Errorf("a queried model cold case on agents: %v", err)
	}
	var single []config.Case
	for _, s := range []config.Scenario{config.ScenarioCold, config.ScenarioWarm} {
		queried := ks(string(s)+"-queried", s)
		queried.Queries = &config.QueryLoad{}
		single = append(single, queried)
	}
	if err := checkAgentCases(single); err != nil {
		t.Errorf("cold and warm cases with queries run on their instance's agent, yet: %v", err)
	}
	for _, s := range []config.Scenario{config.ScenarioFailover, config.ScenarioScaleOut, config.ScenarioRolling, config.ScenarioStandby} {
		queried := ks(string(s)+"-queried", s)
		queried.Queries = &config.QueryLoad{}
		want := "case " + queried.Name + ": the " + string(s) + " scenario's query load asks instances on several agents' hosts"
		if err := checkAgentCases([]config.Case{queried}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a queried %s case on agents: %v", s, err)
		}
	}
	if err := checkAgentCases([]config.Case{ks("compaction", config.ScenarioCompaction)}); err == nil || !strings.Contains(err.Error(), "case compaction: the kafka-streams compaction scenario runs its instance on this machine") {
		t.Errorf("a local-only kafka-streams scenario on agents: %v", err)
	}
}

// TestAgentPlanRefusesLimits: with agents, a profile that measures limits
// is refused before anything runs, naming it: the limits would be this
// machine's, the restores the agents' hosts'.
func TestAgentPlanRefusesLimits(t *testing.T) {
	c := config.DefaultCase()
	c.Name = "cold"
	plan := &profiles.Plan{Name: "limited", Cases: []config.Case{c}, Limits: true}
	err := (&Env{}).checkAgentPlan(plan)
	if err == nil || !strings.Contains(err.Error(), "--agents: profile limited measures limits") {
		t.Fatalf("limits with agents: %v", err)
	}
}
