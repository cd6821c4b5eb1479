package bench

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
)

// agentScenarios are the scenarios whose kafka-streams instances run on
// agents (they run a fleet); the others start their one instance here.
var agentScenarios = map[config.Scenario]bool{config.ScenarioFailover: true, config.ScenarioScaleOut: true,
	config.ScenarioRolling: true, config.ScenarioStandby: true}

// checkAgentPlan refuses, with agents, a plan the agents cannot run: a
// kafka-streams case whose instance would still run on this machine, or
// a placement rule no agent matches. It hands the plan's placement to the
// coordinator, which places every instance of the run by it.
func (e *Env) checkAgentPlan(plan *profiles.Plan) error {
	if err := checkAgentCases(plan.Cases); err != nil {
		return err
	}
	if err := e.Agents.CheckPlacement(plan.Placement); err != nil {
		return fmt.Errorf("--agents: profile %s: %w", plan.Name, err)
	}
	e.Agents.SetPlacement(plan.Placement)
	return nil
}

// checkAgentCases refuses, with agents, a kafka-streams case whose
// instance would still run on this machine.
func checkAgentCases(cases []config.Case) error {
	for _, c := range cases {
		if c.Engine == config.EngineKafkaStreams && !agentScenarios[c.Scenario] {
			return fmt.Errorf("--agents: case %s: the kafka-streams %s scenario runs its one instance on this machine; on agents run failover, scaleout, rolling or standby", c.Name, c.Scenario)
		}
	}
	return nil
}
