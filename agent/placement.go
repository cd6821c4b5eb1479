package agent

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/config"
)

// SetPlacement makes the coordinator place instances by rules (a
// profile's placement block) from now on; nil places round robin.
func (c *Coordinator) SetPlacement(rules []config.PlacementRule) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.placement = append([]config.PlacementRule(nil), rules...)
}

// CheckPlacement refuses placement rules one of which no agent of the
// run matches, naming the rule, where it was written and every agent's
// labels: checked before anything is filled.
func (c *Coordinator) CheckPlacement(rules []config.PlacementRule) error {
	for i, r := range rules {
		if len(c.matching(r)) == 0 {
			return c.noMatch(i, r)
		}
	}
	return nil
}

// Place chooses the agent of instance id, whose role in its scenario is
// role ("" none), given how many instances of its fleet each agent runs
// already (load): the first placement rule that names the instance
// restricts the choice to the agents whose labels match; among those
// allowed, the least loaded, the first in placement order on a tie. With
// no rule naming the instance every agent is allowed: round robin, as
// without a placement.
func (c *Coordinator) Place(id, role string, load map[string]int) (string, error) {
	c.mu.Lock()
	rules := c.placement
	c.mu.Unlock()
	allowed := c.Names()
	for i, r := range rules {
		if !r.Names(id, role) {
			continue
		}
		if allowed = c.matching(r); len(allowed) == 0 {
			return "", fmt.Errorf("instance %s: %w", id, c.noMatch(i, r))
		}
		break
	}
	best := allowed[0]
	for _, a := range allowed[1:] {
		if load[a] < load[best] {
			best = a
		}
	}
	return best, nil
}

// matching are the run's agents, in placement order, whose labels match r.
func (c *Coordinator) matching(r config.PlacementRule) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, name := range c.cfg.Agents {
		if r.Matches(c.agents[name].info.Labels) {
			out = append(out, name)
		}
	}
	return out
}

// noMatch is the error for rule i, which no agent matches.
func (c *Coordinator) noMatch(i int, r config.PlacementRule) error {
	at := ""
	if r.Line > 0 {
		at = fmt.Sprintf(" (line %d)", r.Line)
	}
	var have []string
	for _, a := range c.Agents() {
		have = append(have, fmt.Sprintf("%s {%s}", a.Name, config.FormatLabels(a.Labels, "=", ",")))
	}
	return fmt.Errorf("placement[%d]%s %s: no agent of this run has labels %s (agents: %s): start one with `restorebench agent --labels %s`, or change the rule",
		i, at, r, config.FormatLabels(r.Labels, "=", ","), strings.Join(have, "; "), config.FormatLabels(r.Labels, "=", ","))
}
