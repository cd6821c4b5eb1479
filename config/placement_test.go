package config

import (
	"slices"
	"strings"
	"testing"
)

// TestRoleOf: each scenario's instances play the roles a placement rule
// names them by, and failover's and rolling's none.
func TestRoleOf(t *testing.T) {
	so := DefaultCase()
	so.Scenario, so.ScaleOut = ScenarioScaleOut, &ScaleOutSettings{Before: 3, After: 5}
	sb := DefaultCase()
	sb.Scenario = ScenarioStandby
	cold := DefaultCase()
	cold.Scenario = ScenarioCold
	fo := DefaultCase()
	fo.Scenario = ScenarioFailover
	for _, c := range []struct {
		c        Case
		id, want string
	}{
		{so, "i0", RoleInitial}, {so, "i2", RoleInitial}, {so, "i3", RoleAdded}, {so, "i4", RoleAdded},
		{sb, "i0", RoleActive}, {sb, "i1", RoleStandby}, {sb, "i2", ""},
		{cold, "i0", RoleActive}, {cold, "i1", ""},
		{fo, "i1", ""}, {so, "x1", ""}, {so, "i01", ""},
	} {
		if got := RoleOf(c.c, c.id); got != c.want {
			t.Errorf("%s %s: role %q, want %q", c.c.Scenario, c.id, got, c.want)
		}
	}
}

// TestPlacementRuleNamesAndMatches: a rule names its instance or role or,
// with neither, every instance; it matches an agent that has all its
// labels.
func TestPlacementRuleNamesAndMatches(t *testing.T) {
	byID := PlacementRule{Instance: "i1", Labels: map[string]string{"zone": "a"}}
	byRole := PlacementRule{Role: RoleStandby, Labels: map[string]string{"zone": "b", "disk": "ssd"}}
	all := PlacementRule{Labels: map[string]string{"zone": "c"}}
	if !byID.Names("i1", "") || byID.Names("i2", RoleStandby) || !byRole.Names("i7", RoleStandby) || byRole.Names("i1", RoleActive) || !all.Names("i9", "") {
		t.Error("a rule names the wrong instances")
	}
	if !byRole.Matches(map[string]string{"zone": "b", "disk": "ssd", "rack": "3"}) || byRole.Matches(map[string]string{"zone": "b"}) || byRole.Matches(nil) {
		t.Error("a rule matches the wrong agents")
	}
}

// TestCheckPlacementNamesTheRule: every mistake names the rule's field
// and line.
func TestCheckPlacementNamesTheRule(t *testing.T) {
	l := map[string]string{"zone": "a"}
	for _, c := range []struct {
		rules []PlacementRule
		want  string
	}{
		{[]PlacementRule{{Instance: "i0", Line: 4}}, "line 4: placement[0].labels: a placement rule needs labels"},
		{[]PlacementRule{{Instance: "i0", Role: RoleActive, Labels: l, Line: 5}}, "line 5: placement[0]: name an instance or a role, not both"},
		{[]PlacementRule{{Instance: "zero", Labels: l, Line: 6}}, `line 6: placement[0].instance: "zero" is not an instance id`},
		{[]PlacementRule{{Role: "victim", Labels: l, Line: 7}}, `line 7: placement[0].role: unknown role "victim" (roles: active, added, initial, standby)`},
		{[]PlacementRule{{Instance: "i1", Labels: l}, {Instance: "i1", Labels: l, Line: 9}}, "line 9: placement[1]: instance i1 is placed by placement[0] already"},
		{[]PlacementRule{{Labels: l}, {Labels: l, Line: 3}}, "placement[1]: catch-all is placed by placement[0] already"},
		{[]PlacementRule{{Labels: map[string]string{"zone": "a,b"}, Line: 2}}, "line 2: placement[0].labels: label"},
	} {
		err := CheckPlacement(c.rules, "placement")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.rules, err, c.want)
		}
	}
	if err := CheckPlacement([]PlacementRule{{Instance: "i0", Labels: l}, {Role: RoleStandby, Labels: l}, {Labels: l}}, "placement"); err != nil {
		t.Errorf("good rules refused: %v", err)
	}
}

// Every scenario's RoleOf names only roles its Roles list, and a scenario
// with roles says who plays them: the descriptor is the one place a role
// is defined, so a placement rule's role is played where it says.
func TestScenarioRolesAgree(t *testing.T) {
	for _, d := range ScenarioDefs() {
		if (d.RoleOf == nil) != (len(d.Roles) == 0) {
			t.Errorf("%s: roles %v but RoleOf set %v", d.Name, d.Roles, d.RoleOf != nil)
			continue
		}
		if d.RoleOf == nil {
			continue
		}
		c := DefaultCase()
		c.Scenario = d.Name
		played := map[string]bool{}
		for k := range 8 {
			r := d.RoleOf(c, k)
			if r != "" && !slices.Contains(d.Roles, r) {
				t.Errorf("%s: i%d plays %q, not one of %v", d.Name, k, r, d.Roles)
			}
			played[r] = true
		}
		for _, r := range d.Roles {
			if !played[r] {
				t.Errorf("%s: no instance of i0..i7 plays %s", d.Name, r)
			}
			if !slices.Contains(RoleScenarios(r), d.Name) {
				t.Errorf("RoleScenarios(%s) lacks %s", r, d.Name)
			}
		}
	}
	if got := RoleScenarios(RoleActive); !slices.Equal(got, []Scenario{ScenarioCold, ScenarioWarm, ScenarioStandby}) {
		t.Errorf("RoleScenarios(active) = %v", got)
	}
}
