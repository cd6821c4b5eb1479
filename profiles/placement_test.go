package profiles

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

const placementProfile = `fill:
  size: 1MB
cases:
  - name: sb
    engine: kafka-streams
    scenario: standby
placement:
`

// TestPlacementParses: the block's rules come out in order, with their
// lines.
func TestPlacementParses(t *testing.T) {
	p, err := Parse([]byte(placementProfile+"  - {role: active, labels: {zone: a}}\n  - role: standby\n    labels: {zone: b, disk: ssd}\n  - {instance: i2, labels: {zone: c}}\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []config.PlacementRule{
		{Role: "active", Labels: map[string]string{"zone": "a"}, Line: 8},
		{Role: "standby", Labels: map[string]string{"zone": "b", "disk": "ssd"}, Line: 9},
		{Instance: "i2", Labels: map[string]string{"zone": "c"}, Line: 11},
	}
	if len(p.Placement) != len(want) {
		t.Fatalf("placement %+v, want %+v", p.Placement, want)
	}
	for i, r := range p.Placement {
		if r.String() != want[i].String() || r.Line != want[i].Line {
			t.Errorf("rule %d: %s at line %d, want %s at line %d", i, r, r.Line, want[i], want[i].Line)
		}
	}
}

// TestPlacementErrorsNameTheField: a wrong placement block is refused
// naming the field and its line.
func TestPlacementErrorsNameTheField(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"  - {role: active, label: {zone: a}}\n", "line 8: placement[0].label: unknown field (did you mean labels?)"},
		{"  - {role: added, labels: {zone: a}}\n", "line 8: placement[0].role: no kafka-streams case plays role added: it is played in scenario(s) scaleout"},
		{"  - {role: active}\n", "line 8: placement[0].labels: a placement rule needs labels"},
		{"  - {instance: one, labels: {zone: a}}\n", `line 8: placement[0].instance: "one" is not an instance id`},
		{"  - {instance: i0, labels: {zone: [a]}}\n", "line 8: placement[0].labels"},
		{"  zone: a\n", "line 8: placement: want a list of rules"},
	} {
		_, err := Parse([]byte(placementProfile+c.yaml), "test.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}
