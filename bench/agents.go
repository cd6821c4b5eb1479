package bench

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/profiles"
)

// scenarioDef is s's descriptor; a scenario a case names is registered
// (profiles refuse any other), so the zero def only stands for none.
func scenarioDef(s config.Scenario) config.ScenarioDef {
	d, _ := config.ScenarioDefOf(s)
	return d
}

// scenariosWhere lists the scenarios whose descriptor has has, in the
// registry's order, for an error: "cold, warm or standby".
func scenariosWhere(has func(config.ScenarioDef) bool) string {
	var names []string
	for _, d := range config.ScenarioDefs() {
		if has(d) {
			names = append(names, string(d.Name))
		}
	}
	return listing.Or(names)
}

// checkAgentPlan refuses, with agents, a plan the agents cannot run: a
// case whose restore would still run on this machine, limits (measured
// here), or a placement rule no agent matches. It hands the plan's placement to the
// coordinator, which places every instance of the run by it.
func (e *Env) checkAgentPlan(plan *profiles.Plan) error {
	if err := checkAgentCases(plan.Cases); err != nil {
		return err
	}
	if plan.Limits {
		return fmt.Errorf("--agents: profile %s measures limits: its fetch-only and write-only restores run on this "+
			"machine, and would rate restores on the agents' hosts against this one's network and disk; run "+
			"it without limits, or without --agents", plan.Name)
	}
	if err := e.Agents.CheckPlacement(plan.Placement); err != nil {
		return fmt.Errorf("--agents: profile %s: %w", plan.Name, err)
	}
	e.Agents.SetPlacement(plan.Placement)
	return nil
}

// checkAgentCases refuses, with agents, a case whose restore would still
// run on this machine (measuring this host, not the agent's), and a fleet
// case (failover, scaleout, rolling, standby) with a query load: a cold
// or warm case's load runs on its instance's agent, but a fleet's spans
// instances on several hosts, and agents open no port between them.
func checkAgentCases(cases []config.Case) error {
	for _, c := range cases {
		if c.Engine != config.EngineKafkaStreams {
			if err := checkModelAgentCase(c); err != nil {
				return err
			}
			continue
		}
		d := scenarioDef(c.Scenario)
		if !d.OnAgents {
			return fmt.Errorf("--agents: case %s: the kafka-streams %s scenario runs its instance on this machine; on agents "+
				"run %s", c.Name, c.Scenario, scenariosWhere(func(d config.ScenarioDef) bool { return d.OnAgents }))
		}
		if !d.SingleInstance && c.Queries != nil {
			return fmt.Errorf("--agents: case %s: the %s scenario's query load asks instances on several agents' hosts, and "+
				"agents open no port to one another nor to this machine (only a %s case's load runs, "+
				"on its instance's agent); run it without --agents, or without queries", c.Name, c.Scenario,
				scenariosWhere(func(d config.ScenarioDef) bool { return d.SingleInstance }))
		}
	}
	return nil
}

// checkModelAgentCase refuses, with agents, a model-engine case the
// agents cannot run: a scenario other than cold, and a query load (its
// lookups read the stores in this process).
func checkModelAgentCase(c config.Case) error {
	if !scenarioDef(c.Scenario).ModelOnAgents {
		return fmt.Errorf("--agents: case %s: the model %s scenario restores on this machine, not on an agent; on agents "+
			"the model engine runs %s (run this case without --agents)", c.Name, c.Scenario,
			strings.ReplaceAll(scenariosWhere(func(d config.ScenarioDef) bool { return d.ModelOnAgents }), " or ", " and "))
	}
	if c.Queries != nil {
		return fmt.Errorf("--agents: case %s: its query load reads the model's stores in this process, and an agent's are "+
			"on its host; run it without --agents, or without queries", c.Name)
	}
	return nil
}
