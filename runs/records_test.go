package runs

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestEveryScenarioRegistersItsRecord: every scenario config registers has
// a record registration with step kinds; every scenario record field of
// Restore (a pointer to a *Record struct, JSON-named as its scenario) is
// what exactly one registration's holds reads, that of its scenario; and
// a restore without any is cold. Adding a record field without
// registering it, or a scenario without its record's registration, fails
// here.
func TestEveryScenarioRegistersItsRecord(t *testing.T) {
	for _, sc := range config.Scenarios {
		if len(StepKindsOf(sc)) == 0 {
			t.Errorf("scenario %s registers no record (registerRecord, in its record's file)", sc)
		}
	}
	if len(recordDefs) != len(config.Scenarios) {
		t.Errorf("%d record registrations for %d scenarios", len(recordDefs), len(config.Scenarios))
	}
	held := map[config.Scenario]bool{}
	rt := reflect.TypeOf(Restore{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Record") {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		var r Restore
		reflect.ValueOf(&r).Elem().Field(i).Set(reflect.New(f.Type.Elem()))
		got := r.heldRecords()
		if len(got) != 1 || string(got[0].scenario) != name {
			t.Errorf("Restore.%s (%s) is held by %v: register its record, with holds reading this field", f.Name, name, scenariosOf(got))
			continue
		}
		held[got[0].scenario] = true
		if r.Scenario() != got[0].scenario || r.IsCold() {
			t.Errorf("Restore.%s: Scenario %s, IsCold %v", f.Name, r.Scenario(), r.IsCold())
		}
	}
	for sc, d := range recordDefs {
		if (d.holds != nil) != held[sc] {
			t.Errorf("scenario %s: holds set %v, but a Restore field of its record found %v", sc, d.holds != nil, held[sc])
		}
	}
	if r := (Restore{}); len(r.heldRecords()) != 0 || !r.IsCold() || r.Scenario() != config.ScenarioCold {
		t.Errorf("a restore without a scenario record: held %v, cold %v", scenariosOf(r.heldRecords()), r.IsCold())
	}
}

// TestRegisterRecordRefusesAClash: a second registration of a scenario,
// one of a scenario config does not register, one without kinds, one
// claiming a kind another scenario registered, and a step parameter of a
// kind not its own or registered in part, and a declared figure lacking
// one of its parts (its reader) all panic.
func TestRegisterRecordRefusesAClash(t *testing.T) {
	saved := maps.Clone(recordDefs)
	defer func() { recordDefs = saved }()
	for _, tc := range []struct {
		why  string
		d    recordDef
		free config.Scenario // taken off the registry first
	}{
		{"twice", recordDef{scenario: config.ScenarioWarm, kinds: []StepKind{"other"}}, ""},
		{"unknown to config", recordDef{scenario: "nope", kinds: []StepKind{"nope"}}, ""},
		{"without kinds", recordDef{scenario: config.ScenarioRolling}, config.ScenarioRolling},
		{"another's kind", recordDef{scenario: config.ScenarioRolling, kinds: []StepKind{StepKill}}, config.ScenarioRolling},
		{"a parameter of a kind not its own", recordDef{scenario: config.ScenarioRolling, kinds: []StepKind{StepRolling},
			steps: map[StepKind]stepDef{"other": {name: kindName}}}, config.ScenarioRolling},
		{"a parameter without its check", recordDef{scenario: config.ScenarioRolling, kinds: []StepKind{StepRolling},
			steps: map[StepKind]stepDef{StepRolling: {param: kindName, keep: func(Step, *Step) {}}}}, config.ScenarioRolling},
		{"a figure without its reader", recordDef{scenario: config.ScenarioRolling, kinds: []StepKind{StepRolling},
			figure: &DeclaredFigure{Name: "n", Unit: "s", Column: "c", Title: "t", Axis: "a", Paragraph: "p"}}, config.ScenarioRolling},
	} {
		recordDefs = maps.Clone(saved)
		delete(recordDefs, tc.free)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registerRecord(%s, %v) did not panic", tc.why, tc.d.scenario, tc.d.kinds)
				}
			}()
			registerRecord(tc.d)
		}()
	}
}

func scenariosOf(ds []recordDef) []config.Scenario {
	var out []config.Scenario
	for _, d := range ds {
		out = append(out, d.scenario)
	}
	return out
}
