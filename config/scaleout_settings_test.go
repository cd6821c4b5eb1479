package config

import (
	"strings"
	"testing"
	"time"
)

// TestScaleOutAndRollingSettingsNameTheField: the defaults validate; each
// setting out of range is an error naming it.
func TestScaleOutAndRollingSettingsNameTheField(t *testing.T) {
	ks := func(s Scenario) Case {
		c := DefaultCase()
		c.Engine, c.Scenario = EngineKafkaStreams, s
		return c
	}
	for _, s := range []Scenario{ScenarioScaleOut, ScenarioRolling} {
		c := ks(s)
		if err := c.Finalize(); err != nil {
			t.Fatalf("%s defaults: %v", s, err)
		}
	}
	d := DefaultScaleOut()
	if d.Lead != Duration(5*time.Second) || d.Settle != Duration(5*time.Second) || d.GapThreshold != Duration(time.Second) {
		t.Fatalf("scale-out defaults %+v", d)
	}
	for _, bad := range []struct {
		edit func(*Case)
		want string
	}{
		{func(c *Case) { c.ScaleOut = DefaultScaleOut(); c.ScaleOut.Settle = Duration(time.Millisecond) }, "scaleout.settle"},
		{func(c *Case) { c.ScaleOut = DefaultScaleOut(); c.ScaleOut.GapThreshold = Duration(time.Millisecond) }, "scaleout.gap_threshold"},
		{func(c *Case) { c.ScaleOut = DefaultScaleOut(); c.ScaleOut.Lead = Duration(-time.Second) }, "scaleout.lead"},
		{func(c *Case) { c.ScaleOut = DefaultScaleOut(); c.ScaleOut.Topology = "ledger" }, "scaleout.topology"},
		{func(c *Case) { c.Scenario = ScenarioRolling; c.Rolling = DefaultRolling(); c.Rolling.Timeout = 0 }, "rolling.timeout"},
		{func(c *Case) { c.Scenario = ScenarioRolling; c.Rolling = DefaultRolling(); c.Rolling.GapThreshold = 0 }, "rolling.gap_threshold"},
	} {
		c := ks(ScenarioScaleOut)
		bad.edit(&c)
		if err := c.Finalize(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("got %v, want an error naming %s", err, bad.want)
		}
	}
}

// TestScenarioOnAnEngineThatLacksItNamesTheEngine: a scenario the chosen
// engine does not run is refused when the profile is read, naming engine,
// not halfway through a run.
func TestScenarioOnAnEngineThatLacksItNamesTheEngine(t *testing.T) {
	for _, tc := range []struct {
		engine   Engine
		scenario Scenario
	}{
		{EngineModel, ScenarioFailover}, {EngineModel, ScenarioScaleOut}, {EngineModel, ScenarioRolling},
		{EngineKafkaStreams, ScenarioCompaction},
	} {
		c := DefaultCase()
		c.Engine, c.Scenario = tc.engine, tc.scenario
		err := c.Finalize()
		if err == nil || !strings.Contains(err.Error(), "engine") || !strings.Contains(err.Error(), string(tc.scenario)) {
			t.Errorf("%s on %s: got %v, want an error naming engine and the scenario", tc.scenario, tc.engine, err)
		}
	}
}
