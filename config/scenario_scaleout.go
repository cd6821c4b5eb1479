package config

import "time"

// ScenarioScaleOut adds instances to a running application and measures
// the warmup-assignment time (KIP-441 warmups).
const ScenarioScaleOut Scenario = "scaleout"

func init() { registerScenario(scaleOutDef) }

// scaleOutDef registers the scale-out scenario.
var scaleOutDef = ScenarioDef{
	Queries:           true,
	KafkaStreamsNeeds: []KSFeature{FeatureStandbyListener},
	Name:              ScenarioScaleOut,
	KindNeeds:         []KindCap{CapWriteLoad, CapWarmups},
	Order:             50,
	Engines:           []Engine{EngineKafkaStreams},
	EnginesWhy:        "it measures the real client's group and assignor",
	PutOnly:           true,
	// i0..before-1 run before it scales, before..after-1 are added.
	Roles: []string{RoleInitial, RoleAdded},
	RoleOf: func(c Case, k int) string {
		before := DefaultScaleOut().Before
		if c.ScaleOut != nil && c.ScaleOut.Before > 0 {
			before = c.ScaleOut.Before
		}
		if k < before {
			return RoleInitial
		}
		return RoleAdded
	},
	OnAgents: true,
	Settings: settingsOf[ScaleOutSettings]{
		key:      "scaleout",
		field:    func(c *Case) **ScaleOutSettings { return &c.ScaleOut },
		defaults: DefaultScaleOut,
		check:    checkScaleOut,
	},
}

// ScaleOutSettings are the scale-out scenario's (kafka-streams engine):
// Before instances run with state and a steady write load, then instances
// are added to reach After.
type ScaleOutSettings struct {
	// Before and After are the instance counts. Default 2 and 4.
	Before int `json:"before" yaml:"before"`
	After  int `json:"after" yaml:"after"`
	// Rate is the records written a second while scaling. Default 1000.
	Rate float64 `json:"rate" yaml:"rate"`
	// Topology is "kv" (the filled changelog) or "ledger". Default kv.
	Topology string `json:"topology" yaml:"topology"`
	// Timeout bounds the wait for a balanced assignment. Default 15m.
	Timeout Duration `json:"timeout" yaml:"timeout"`
	// Lead is how long the write load runs before instances are added, so
	// processing is steady when they come. Default 5s.
	Lead Duration `json:"lead" yaml:"lead"`
	// Settle is how long the assignment must stay balanced, with every
	// task running and no warmups, to count as done (the time recorded is
	// when it began). Default 5s.
	Settle Duration `json:"settle" yaml:"settle"`
	// GapThreshold is the shortest pause in a task's processing (while
	// its input has records) that counts as not processing. Default 1s.
	GapThreshold Duration `json:"gap_threshold" yaml:"gap_threshold"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *ScaleOutSettings) SetDefaults() { *s = *DefaultScaleOut() }

// DefaultScaleOut returns the scale-out scenario's defaults.
func DefaultScaleOut() *ScaleOutSettings {
	return &ScaleOutSettings{Before: 2, After: 4, Rate: 1000, Topology: "kv", Timeout: Duration(15 * time.Minute),
		Lead: Duration(5 * time.Second), Settle: Duration(5 * time.Second), GapThreshold: Duration(time.Second)}
}

// checkScaleOut validates a scale-out case's settings.
func checkScaleOut(_ Case, s *ScaleOutSettings) error {
	switch {
	case s.Before <= 0:
		return fieldErr("scaleout.before", "%d must be positive", s.Before)
	case s.After <= s.Before:
		return fieldErr("scaleout.after", "%d must be more than before (%d)", s.After, s.Before)
	case s.After > MaxInstances:
		return fieldErr("scaleout.after", "%d is over %d (instances one host runs)", s.After, MaxInstances)
	case s.Rate < 0:
		return fieldErr("scaleout.rate", "%v is negative", s.Rate)
	case s.Topology != "kv" && s.Topology != "ledger":
		return fieldErr("scaleout.topology", "%q is not kv or ledger", s.Topology)
	case s.Timeout <= 0:
		return fieldErr("scaleout.timeout", "%s must be positive", s.Timeout)
	case s.Topology != "kv":
		return fieldErr("scaleout.topology", "ledger is not measured yet: the scale-out writes its load through the kv topology's input topic")
	case s.Lead < 0:
		return fieldErr("scaleout.lead", "%s is negative", s.Lead)
	case s.Settle < Duration(time.Second):
		return fieldErr("scaleout.settle", "%s is under 1s", s.Settle)
	case s.GapThreshold < Duration(100*time.Millisecond):
		return fieldErr("scaleout.gap_threshold", "%s is under 100ms (the driver reports processing every 100ms)", s.GapThreshold)
	case s.Settle >= s.Timeout:
		return fieldErr("scaleout.settle", "%s is not under scaleout.timeout %s: the assignment must stay balanced for "+
			"scaleout.settle within scaleout.timeout, which it never can", s.Settle, s.Timeout)
	case s.GapThreshold >= s.Timeout:
		return fieldErr("scaleout.gap_threshold", "%s is not under scaleout.timeout %s: no pause in processing within the "+
			"scale-out could count, and its longest gap would read 0", s.GapThreshold, s.Timeout)
	}
	return firstErr(checkRate("scaleout.rate", s.Rate), checkDuration("scaleout.lead", s.Lead), checkDuration("scaleout.timeout", s.Timeout))
}
