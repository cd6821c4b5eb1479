package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestScenarioRegistryOwnsEverySettingsField: every scenario settings
// field of Case (a pointer to a struct, YAML-named) belongs to exactly one
// registered scenario whose settings key is that name, and the registry's
// defaults, drop and clone act on that field alone.
func TestScenarioRegistryOwnsEverySettingsField(t *testing.T) {
	owner := map[string]Scenario{}
	for _, d := range scenarioDefs.All() {
		if d.Settings == nil {
			continue
		}
		if prev, dup := owner[d.Settings.Key()]; dup {
			t.Fatalf("settings key %s registered by %s and %s", d.Settings.Key(), prev, d.Name)
		}
		owner[d.Settings.Key()] = d.Name
	}
	ct := reflect.TypeOf(Case{})
	fields := map[string]int{}
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || !strings.HasSuffix(f.Type.Elem().Name(), "Settings") {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if json, _, _ := strings.Cut(f.Tag.Get("json"), ","); json != key {
			t.Errorf("Case.%s: yaml %q and json %q differ", f.Name, key, json)
		}
		fields[key] = i
		if _, ok := owner[key]; !ok {
			t.Errorf("Case.%s (%s) belongs to no registered scenario: register its ScenarioDef (registerScenario, in its file's init)", f.Name, key)
		}
	}
	for key, sc := range owner {
		i, ok := fields[key]
		if !ok {
			t.Errorf("scenario %s's settings key %s is no settings field of Case", sc, key)
			continue
		}
		c := DefaultCase()
		c.Scenario = sc
		c.ScenarioDefaults()
		v := reflect.ValueOf(c)
		for k, j := range fields {
			if set := !v.Field(j).IsNil(); set != (j == i) {
				t.Errorf("scenario %s: after its defaults, %s set=%v", sc, k, set)
			}
		}
		def, _ := ScenarioDefOf(sc)
		if !def.Settings.In(&c) {
			t.Errorf("scenario %s: In says its defaults are missing", sc)
		}
		cl := c.Clone()
		if cl.Scenario != sc || reflect.ValueOf(cl).Field(i).Pointer() == v.Field(i).Pointer() {
			t.Errorf("scenario %s: Clone shares the settings block", sc)
		}
		if !reflect.DeepEqual(cl, c) {
			t.Errorf("scenario %s: Clone differs: %+v", sc, cl)
		}
	}
}

// builtinOrder is the order of the scenarios registered before each
// scenario file registered its own def: Scenarios lists them so (error
// messages name them in it), whichever order the files' inits run in.
var builtinOrder = []Scenario{ScenarioCold, ScenarioWarm, ScenarioStandby, ScenarioFailover, ScenarioScaleOut, ScenarioRolling, ScenarioCompaction}

// TestScenarioRegistryListsScenarios: Scenarios is the registry's names in
// order (the scenarios of builtinOrder first, in that order), each known to
// ScenarioDefOf, of an Order of its own, and running on at least one
// engine config knows.
func TestScenarioRegistryListsScenarios(t *testing.T) {
	if got := ScenarioDefs(); len(got) != len(Scenarios) {
		t.Fatalf("%d defs, %d scenarios", len(got), len(Scenarios))
	}
	if len(Scenarios) < len(builtinOrder) || !slices.Equal(Scenarios[:len(builtinOrder)], builtinOrder) {
		t.Fatalf("Scenarios %v, want %v first", Scenarios, builtinOrder)
	}
	for i, s := range Scenarios {
		d, ok := ScenarioDefOf(s)
		if !ok || d.Name != s || scenarioDefs.All()[i].Name != s {
			t.Fatalf("scenario %s: def %+v, %v", s, d, ok)
		}
		if i > 0 && scenarioDefs.All()[i-1].Order >= d.Order {
			t.Errorf("scenario %s (order %d) after %s (order %d)", s, d.Order, scenarioDefs.All()[i-1].Name, scenarioDefs.All()[i-1].Order)
		}
		if len(d.Engines) == 0 {
			t.Errorf("scenario %s runs on no engine", s)
		}
		for _, e := range d.Engines {
			if !oneOf(e, Engines) {
				t.Errorf("scenario %s names engine %q, not one of %s", s, e, list(Engines))
			}
		}
		if len(d.Engines) < len(Engines) && d.EnginesWhy == "" {
			t.Errorf("scenario %s refuses an engine without saying why (EnginesWhy)", s)
		}
		if d.KafkaStreamsAnyTopic && !d.RunsOn(EngineKafkaStreams) {
			t.Errorf("scenario %s runs on any topic on the kafka-streams engine, which does not run it", s)
		}
		if d.Broker == BrokerReal && d.BrokerWhy == "" {
			t.Errorf("scenario %s needs a real broker without saying why (BrokerWhy)", s)
		}
	}
	if _, ok := ScenarioDefOf("nope"); ok {
		t.Fatal("ScenarioDefOf found an unregistered scenario")
	}
}

// TestScenarioEngineRefusalTexts: the engine refusals read as they did
// before the registry.
func TestScenarioEngineRefusalTexts(t *testing.T) {
	for _, tc := range []struct {
		engine   Engine
		scenario Scenario
		want     string
	}{
		{EngineModel, ScenarioFailover, "engine: scenario failover runs on the kafka-streams engine only (it measures the real client's group and assignor)"},
		{EngineKafkaStreams, ScenarioCompaction, "engine: scenario compaction runs on the model engine only (not yet built on the kafka-streams engine)"},
	} {
		c := DefaultCase()
		c.Engine, c.Scenario = tc.engine, tc.scenario
		if err := c.Finalize(); err == nil || err.Error() != tc.want {
			t.Errorf("%s on %s: got %v, want %q", tc.scenario, tc.engine, err, tc.want)
		}
	}
}

// TestRegisterScenarioRefusesAClash: a second def of a registered name or
// order panics when the program starts, so two files cannot claim one.
func TestRegisterScenarioRefusesAClash(t *testing.T) {
	saved, savedNames := scenarioDefs, slices.Clone(Scenarios)
	defer func() { scenarioDefs, Scenarios = saved, savedNames }()
	for _, d := range []ScenarioDef{
		{Name: ScenarioWarm, Order: 1000, Engines: []Engine{EngineModel}, KindNeeds: []KindCap{CapRestore}},
		{Name: "another", Order: coldDef.Order, Engines: []Engine{EngineModel}, KindNeeds: []KindCap{CapRestore}},
		{Name: "no-engine", Order: 1001},
		{Name: "no-kind-needs", Order: 1002, Engines: []Engine{EngineModel}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registerScenario(%s, order %d) did not panic", d.Name, d.Order)
				}
			}()
			registerScenario(d)
		}()
	}
}
