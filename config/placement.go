package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// PlacementRule pins Kafka Streams instances to the agents whose labels
// (`restorebench agent --labels zone=a,...`) include every one of Labels.
// A rule names its instances by Instance (the fleet's instance id, i0,
// i1, ...) or by Role (what the instance does in its scenario, RoleOf);
// with neither it is the catch-all for every instance no other rule
// names. A profile's placement block is a list of rules: the first that
// names an instance places it; an instance no rule names goes round robin
// over every agent, as without a placement block.
type PlacementRule struct {
	// Instance is an instance id: i<k>. Default "": see Role.
	Instance string `json:"instance,omitempty" yaml:"instance"`
	// Role is a scenario role (RoleActive, RoleStandby, RoleInitial,
	// RoleAdded). Default "": see Instance.
	Role string `json:"role,omitempty" yaml:"role"`
	// Labels the agent must carry, each with the value given. Required.
	Labels map[string]string `json:"labels" yaml:"labels"`
	// Line is the rule's line in the profile (0 when not from a file), so
	// an error about it can say where it was written.
	Line int `json:"-" yaml:"-"`
}

// Roles an instance plays in its scenario (RoleOf).
const (
	// RoleActive is the one instance of a cold restore or a warm
	// restart (i0), and the standby scenario's active instance (i0).
	RoleActive = "active"
	// RoleStandby is the standby scenario's standby instance (i1).
	RoleStandby = "standby"
	// RoleInitial are a scale-out's instances before it scales
	// (i0..before-1); RoleAdded the ones it adds (before..after-1).
	RoleInitial = "initial"
	RoleAdded   = "added"
)

// RoleScenarios are the scenarios a role is played in, in the registry's
// order (nil: no such role): their ScenarioDef.Roles name it.
func RoleScenarios(role string) []Scenario {
	var out []Scenario
	for _, d := range scenarioDefs.All() {
		if slices.Contains(d.Roles, role) {
			out = append(out, d.Name)
		}
	}
	return out
}

// Roles are the roles a placement rule may name, sorted: every
// scenario's ScenarioDef.Roles.
func Roles() []string {
	var out []string
	for _, d := range scenarioDefs.All() {
		out = append(out, d.Roles...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RoleOf is the role instance id plays in case c's scenario, "" when it
// plays none there (its ScenarioDef.RoleOf).
func RoleOf(c Case, id string) string {
	k, ok := instanceIndex(id)
	d, known := ScenarioDefOf(c.Scenario)
	if !ok || !known || d.RoleOf == nil {
		return ""
	}
	return d.RoleOf(c, k)
}

// activeFirst is the roles of a scenario of one instance: i0 is active.
func activeFirst(_ Case, k int) string {
	if k == 0 {
		return RoleActive
	}
	return ""
}

// instanceIndex is k of an instance id i<k>.
func instanceIndex(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "i")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	return k, err == nil && k >= 0
}

// Names says whether the rule places instance id, whose role is role: it
// names the id, or the role, or (a catch-all) neither.
func (r PlacementRule) Names(id, role string) bool {
	switch {
	case r.Instance != "":
		return r.Instance == id
	case r.Role != "":
		return r.Role == role
	}
	return true
}

// Matches says whether an agent with labels may run the rule's instances.
func (r PlacementRule) Matches(labels map[string]string) bool {
	for k, v := range r.Labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// String is the rule as a profile writes it, for errors and logs.
func (r PlacementRule) String() string {
	var b strings.Builder
	b.WriteString("{")
	switch {
	case r.Instance != "":
		fmt.Fprintf(&b, "instance: %s, ", r.Instance)
	case r.Role != "":
		fmt.Fprintf(&b, "role: %s, ", r.Role)
	}
	b.WriteString("labels: {" + FormatLabels(r.Labels, ": ", ", ") + "}}")
	return b.String()
}

// FormatLabels writes labels sorted by key, each key sep value, joined by
// join ("zone=a,rack=3" with "=" and ",").
func FormatLabels(labels map[string]string, sep, join string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+sep+labels[k])
	}
	return strings.Join(parts, join)
}

// CheckPlacement checks a placement block's rules (path names the block,
// "placement"): each has labels and at most one of instance and role, a
// well-formed instance id or a known role, and no two name the same
// instance or role, nor are two catch-alls.
func CheckPlacement(rules []PlacementRule, path string) error {
	seen := map[string]int{}
	for i, r := range rules {
		at := fmt.Sprintf("%s[%d]", path, i)
		fail := func(field, format string, args ...any) error {
			return &FieldError{Path: joinField(at, field), Line: r.Line, Msg: fmt.Sprintf(format, args...)}
		}
		if len(r.Labels) == 0 {
			return fail("labels", "a placement rule needs labels (e.g. labels: {zone: a}): the agents whose --labels include all of them run its instances")
		}
		for k, v := range r.Labels {
			if k == "" || strings.ContainsAny(k, "=,") || strings.ContainsAny(v, "=,") {
				return fail("labels", "label %q=%q: keys and values are written as agents' --labels k=v,... are, without = or ,", k, v)
			}
		}
		key := "catch-all"
		switch {
		case r.Instance != "" && r.Role != "":
			return fail("", "name an instance or a role, not both")
		case r.Instance != "":
			if _, ok := instanceIndex(r.Instance); !ok {
				return fail("instance", "%q is not an instance id: instances are i0, i1, ...", r.Instance)
			}
			key = "instance " + r.Instance
		case r.Role != "":
			if !slices.Contains(Roles(), r.Role) {
				return fail("role", "unknown role %q (roles: %s)", r.Role, strings.Join(Roles(), ", "))
			}
			key = "role " + r.Role
		}
		if j, dup := seen[key]; dup {
			return fail("", "%s is placed by %s[%d] already", key, path, j)
		}
		seen[key] = i
	}
	return nil
}

// joinField is path.field, or path alone without a field.
func joinField(path, field string) string {
	if field == "" {
		return path
	}
	return path + "." + field
}
