package scenario_test

import (
	"slices"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/scenario"
	_ "github.com/restorebench/restorebench/scenario/all" // the runners of scenario's subpackages
)

// builtinGaps are (scenario, engine) pairs a runner exists for but no
// built-in profile runs yet. The test fails if one is closed (so it is
// taken off this list) or if another pair goes unrun.
var builtinGaps = map[[2]string]bool{}

// TestEveryScenarioHasSettingsRunnersAndAProfile is the coverage test of
// issue 15: every scenario config lists has a descriptor; scenario.For
// returns a runner on each engine the descriptor names and refuses the
// others (and config refuses them too); and some built-in profile runs
// each scenario, on each of its engines but the listed gaps. Adding a
// scenario to config without a runner or a profile fails here.
func TestEveryScenarioHasSettingsRunnersAndAProfile(t *testing.T) {
	ran := map[[2]string]string{}
	for _, name := range profiles.Builtins() {
		p, err := profiles.Load(name)
		if err != nil {
			t.Fatalf("built-in profile %s: %v", name, err)
		}
		for _, c := range p.Cases {
			k := [2]string{string(c.Scenario), string(c.Engine)}
			if ran[k] == "" {
				ran[k] = name
			}
		}
	}
	if len(config.Scenarios) == 0 {
		t.Fatal("config lists no scenarios")
	}
	for _, sc := range config.Scenarios {
		def, ok := config.ScenarioDefOf(sc)
		if !ok {
			t.Errorf("scenario %s has no descriptor (config.ScenarioDef)", sc)
			continue
		}
		if def.Settings != nil {
			c := config.DefaultCase()
			c.Scenario, c.Engine = sc, def.Engines[0]
			if err := c.Finalize(); err != nil {
				t.Errorf("scenario %s on %s: its defaults do not validate: %v", sc, c.Engine, err)
			} else if !def.Settings.In(&c) {
				t.Errorf("scenario %s: a case of it has no %s settings after Finalize", sc, def.Settings.Key())
			}
		}
		runs := false
		for _, e := range config.Engines {
			c := config.DefaultCase()
			c.Name, c.Scenario, c.Engine = "c", sc, e
			r, err := scenario.For(c)
			k := [2]string{string(sc), string(e)}
			switch {
			case def.RunsOn(e) && (err != nil || r == nil):
				t.Errorf("scenario %s names engine %s but has no runner there: %v (register one in package scenario or a subpackage imported by scenario/all)", sc, e, err)
			case !def.RunsOn(e) && err == nil:
				t.Errorf("scenario %s does not name engine %s, yet scenario.For returns a runner", sc, e)
			case !def.RunsOn(e) && c.Finalize() == nil:
				t.Errorf("scenario %s does not name engine %s, yet config accepts a case of it there", sc, e)
			case !def.RunsOn(e) && ran[k] != "":
				t.Errorf("built-in profile %s runs scenario %s on engine %s, which it does not name", ran[k], sc, e)
			case def.RunsOn(e) && ran[k] == "" && !builtinGaps[k]:
				t.Errorf("no built-in profile runs scenario %s on engine %s: add a case to one (profiles/*.yaml)", sc, e)
			case ran[k] != "" && builtinGaps[k]:
				t.Errorf("built-in profile %s now runs scenario %s on engine %s: take the pair off builtinGaps", ran[k], sc, e)
			}
			if ran[k] != "" {
				runs = true
			}
		}
		if !runs {
			t.Errorf("no built-in profile runs scenario %s", sc)
		}
	}
}

// kindGaps are the (store kind, scenario) pairs each scenario declares
// its needs admit but no built-in profile runs (config.ScenarioDef.KindGaps,
// in the scenario's own file, with the reason).
func kindGaps() map[[2]string]bool {
	gaps := map[[2]string]bool{}
	for _, def := range config.ScenarioDefs() {
		for _, g := range def.KindGaps {
			gaps[[2]string{string(g.Kind), string(def.Name)}] = true
		}
	}
	return gaps
}

// TestEveryKindsScenariosRunInABuiltinProfile ties what a store kind
// declares it can to what is run: every scenario a kind's capabilities
// let it run is run on that kind by some built-in profile (a store-kind
// sweep's kinds included), but the gaps each scenario declares in its own
// file (config.ScenarioDef.KindGaps). A capability declared without a
// profile exercising it fails here, as does a declared gap a profile has
// closed or one of a kind that is not registered or does not run the
// scenario; a profile running a scenario the kind cannot is refused when
// it is read.
func TestEveryKindsScenariosRunInABuiltinProfile(t *testing.T) {
	kindGaps := kindGaps()
	for pair := range kindGaps {
		if !slices.Contains(config.StoreKinds, config.StoreKind(pair[0])) {
			t.Errorf("scenario %s's KindGaps lists store kind %s, which is not registered", pair[1], pair[0])
		}
	}
	ran := map[[2]string]string{}
	add := func(name string, cs []config.Case) {
		for _, c := range cs {
			if k := [2]string{string(c.StoreKind.Of()), string(c.Scenario)}; ran[k] == "" {
				ran[k] = name
			}
		}
	}
	for _, name := range profiles.Builtins() {
		p, err := profiles.Load(name)
		if err != nil {
			t.Fatalf("built-in profile %s: %v", name, err)
		}
		add(name, p.Cases)
		for _, spec := range p.KindSpecs {
			cs, err := p.CasesFor(spec)
			if err != nil {
				t.Fatalf("built-in profile %s, kind %s: %v", name, spec.StoreKind, err)
			}
			add(name, cs)
		}
	}
	for _, k := range config.StoreKinds {
		d, _ := config.StoreKindDefOf(k)
		for _, sc := range config.Scenarios {
			pair := [2]string{string(k), string(sc)}
			switch {
			case d.Runs(sc) && ran[pair] == "" && !kindGaps[pair]:
				t.Errorf("%s stores can run scenario %s, yet no built-in profile runs it on them: add a case, take the capability back, or declare the gap in the scenario's KindGaps", k, sc)
			case ran[pair] != "" && kindGaps[pair]:
				t.Errorf("built-in profile %s now runs scenario %s on %s stores: take %s off scenario %s's KindGaps", ran[pair], sc, k, k, sc)
			case !d.Runs(sc) && kindGaps[pair]:
				t.Errorf("scenario %s's KindGaps lists %s stores, which do not run it", sc, k)
			}
		}
	}
}

// TestCheckBrokerFollowsTheDescriptor: a scenario whose descriptor needs a
// real broker is refused on the embedded one, naming the reason; the
// others run on either.
func TestCheckBrokerFollowsTheDescriptor(t *testing.T) {
	for _, def := range config.ScenarioDefs() {
		c := config.DefaultCase()
		c.Name, c.Scenario = "c", def.Name
		if err := scenario.CheckBroker(c, false); err != nil {
			t.Errorf("scenario %s on a real broker: %v", def.Name, err)
		}
		err := scenario.CheckBroker(c, true)
		if (err != nil) != (def.Broker == config.BrokerReal) {
			t.Errorf("scenario %s on the embedded broker: %v (broker need %v)", def.Name, err, def.Broker)
		}
	}
	c := config.DefaultCase()
	c.Name, c.Scenario = "f", config.ScenarioFailover
	want := "case f: the failover scenario needs a real broker (Kafka Streams creates the ledger topology's changelog itself, which the embedded broker refuses): make kafka-up, then --brokers 127.0.0.1:19092"
	if err := scenario.CheckBroker(c, true); err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
