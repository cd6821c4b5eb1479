package agent

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// placingCoordinator is a coordinator of agents with labels, for placement
// alone (no topics).
func placingCoordinator(labels map[string]map[string]string, order ...string) *Coordinator {
	c := &Coordinator{cfg: CoordinatorConfig{Agents: order}, agents: map[string]*agentState{}}
	for _, name := range order {
		c.agents[name] = &agentState{info: runs.Agent{Name: name, Labels: labels[name]}}
	}
	return c
}

// TestPlaceByLabels: instances a rule names go to the least loaded agent
// whose labels match; the others round robin over every agent; a rule no
// agent matches is one error naming the rule, its line and the agents'
// labels, before anything starts.
func TestPlaceByLabels(t *testing.T) {
	c := placingCoordinator(map[string]map[string]string{
		"a1": {"zone": "a"}, "b1": {"zone": "b"}, "b2": {"zone": "b", "disk": "ssd"},
	}, "a1", "b1", "b2")
	c.SetPlacement([]config.PlacementRule{
		{Role: config.RoleActive, Labels: map[string]string{"zone": "a"}},
		{Role: config.RoleStandby, Labels: map[string]string{"zone": "b"}},
		{Instance: "i5", Labels: map[string]string{"disk": "ssd"}},
	})
	place := func(id, role string, load map[string]int) string {
		t.Helper()
		a, err := c.Place(id, role, load)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := place("i0", config.RoleActive, nil); a != "a1" {
		t.Errorf("active on %s, want a1 (zone a)", a)
	}
	if a := place("i1", config.RoleStandby, map[string]int{"a1": 1}); a != "b1" {
		t.Errorf("standby on %s, want b1 (zone b, first)", a)
	}
	if a := place("i2", config.RoleStandby, map[string]int{"a1": 1, "b1": 1}); a != "b2" {
		t.Errorf("second standby on %s, want b2 (zone b, least loaded)", a)
	}
	if a := place("i5", "", map[string]int{"b2": 3}); a != "b2" {
		t.Errorf("i5 on %s, want b2 (the one ssd agent, however loaded)", a)
	}
	if a := place("i3", "", map[string]int{"a1": 1, "b1": 1}); a != "b2" {
		t.Errorf("an unnamed instance on %s, want b2 (round robin: the least loaded)", a)
	}
	bad := []config.PlacementRule{{Role: config.RoleAdded, Labels: map[string]string{"zone": "c"}, Line: 12}}
	err := c.CheckPlacement(bad)
	want := "placement[0] (line 12) {role: added, labels: {zone: c}}: no agent of this run has labels zone=c (agents: a1 {zone=a}; b1 {zone=b}; b2 {disk=ssd,zone=b})"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v, want %q", err, want)
	}
	c.SetPlacement(bad)
	if _, err := c.Place("i4", config.RoleAdded, nil); err == nil || !strings.Contains(err.Error(), "instance i4: placement[0]") {
		t.Errorf("place: %v, want the rule named", err)
	}
}
