package profiles

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
)

// decodePlacement reads a profile's placement block (n; absent: none), a
// list of rules each written as {instance: i0, labels: {zone: a}} or
// {role: standby, labels: {zone: b}} (config.PlacementRule), checks them
// and refuses a role none of the plan's kafka-streams cases plays: a rule
// that could never place anything is a mistake the user wants to hear of
// before the fill.
func decodePlacement(n *yaml.Node, cases []config.Case) ([]config.PlacementRule, error) {
	if n == nil || n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, &config.FieldError{Path: "placement", Line: n.Line, Msg: "want a list of rules, e.g. [{instance: i0, " +
			"labels: {zone: a}}, {role: standby, labels: {zone: b}}]"}
	}
	rules := make([]config.PlacementRule, len(n.Content))
	for i, item := range n.Content {
		path := fmt.Sprintf("placement[%d]", i)
		if err := decodeOnto(item, &rules[i], path); err != nil {
			return nil, err
		}
		rules[i].Line = item.Line
	}
	if err := config.CheckPlacement(rules, "placement"); err != nil {
		return nil, err
	}
	for i, r := range rules {
		if r.Role != "" && !playsRole(cases, r.Role) {
			return nil, &config.FieldError{Path: fmt.Sprintf("placement[%d].role", i), Line: lineOf(n.Content[i], "role"),
				Msg: fmt.Sprintf("no kafka-streams case plays role %s: it is played in scenario(s) %s", r.Role, scenarioList(config.RoleScenarios(r.Role)))}
		}
	}
	return rules, nil
}

// playsRole says whether a kafka-streams case runs a scenario with role.
func playsRole(cases []config.Case, role string) bool {
	for _, c := range cases {
		if c.Engine == config.EngineKafkaStreams && slices.Contains(config.RoleScenarios(role), c.Scenario) {
			return true
		}
	}
	return false
}

func scenarioList(ss []config.Scenario) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}
