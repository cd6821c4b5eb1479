package config

import "time"

// ScenarioRolling restarts an application's instances one at a time and
// measures the downtime.
const ScenarioRolling Scenario = "rolling"

func init() { registerScenario(rollingDef) }

// rollingDef registers the rolling-restart scenario.
var rollingDef = ScenarioDef{
	Queries:           true,
	KafkaStreamsNeeds: []KSFeature{FeatureStandbyListener},
	Name:              ScenarioRolling,
	KindNeeds:         []KindCap{CapReopenLater, CapWriteLoad},
	Order:             60,
	Engines:           []Engine{EngineKafkaStreams},
	EnginesWhy:        "it measures the real client's group and assignor",
	PutOnly:           true,
	OnAgents:          true,
	KindGaps: []KindGap{
		{Kind: "timestamped-key-value", Why: "no test found runs it either"},
		{Kind: "window", Why: "integration's TestRollingRestartOfAWindowStore runs it"},
	},
	Settings: settingsOf[RollingSettings]{
		key:      "rolling",
		field:    func(c *Case) **RollingSettings { return &c.Rolling },
		defaults: DefaultRolling,
		check:    checkRolling,
	},
}

// RollingSettings are the rolling-restart scenario's (kafka-streams
// engine): Instances are restarted one at a time.
type RollingSettings struct {
	// Instances is the application's instance count. Default 3.
	Instances int `json:"instances" yaml:"instances"`
	// Persistent keeps each instance's state directory across its restart;
	// false wipes it (ephemeral pod storage). Default true.
	Persistent bool `json:"persistent" yaml:"persistent"`
	// StaticMembership gives each instance a group.instance.id, so a
	// restart within session.timeout.ms causes no rebalance. Default false.
	StaticMembership bool `json:"static_membership" yaml:"static_membership"`
	// Rate is the records written a second during the restarts. Default 1000.
	Rate float64 `json:"rate" yaml:"rate"`
	// Down is how long each instance stays stopped. Default 5s.
	Down Duration `json:"down" yaml:"down"`
	// Timeout bounds the wait for the application to be ready again after
	// each restart (the restarted instance RUNNING, every task active and
	// running). Default 10m.
	Timeout Duration `json:"timeout" yaml:"timeout"`
	// Settle is how long the application must stay ready before the next
	// restart. Default 5s.
	Settle Duration `json:"settle" yaml:"settle"`
	// GapThreshold is the shortest pause in a task's processing (while
	// its input has records) that counts as downtime. Default 1s.
	GapThreshold Duration `json:"gap_threshold" yaml:"gap_threshold"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *RollingSettings) SetDefaults() { *s = *DefaultRolling() }

// DefaultRolling returns the rolling-restart scenario's defaults.
func DefaultRolling() *RollingSettings {
	return &RollingSettings{Instances: 3, Persistent: true, Rate: 1000, Down: Duration(5 * time.Second),
		Timeout: Duration(10 * time.Minute), Settle: Duration(5 * time.Second), GapThreshold: Duration(time.Second)}
}

// checkRolling validates a rolling-restart case's settings. A window
// store's needs a write load: Kafka Streams does not persist a segmented
// store's stream time (AbstractRocksDBSegmentedBytesStore.observedStreamTime
// starts at -1 on every init), so a restarted instance's reopened store
// serves expired windows too until it puts a new record, a state the
// fill's expected state does not describe.
func checkRolling(c Case, r *RollingSettings) error {
	switch {
	case r.Rate == 0 && c.StoreKind.Segmented():
		return fieldErr("rolling.rate", "0 with a %s store: a restarted instance reopens its stores with no stream time "+
			"(Kafka Streams does not persist it) and serves expired windows until it puts a new record; set "+
			"a write rate", c.StoreKind)
	case r.Instances <= 0:
		return fieldErr("rolling.instances", "%d must be positive", r.Instances)
	case r.Instances > MaxInstances:
		return fieldErr("rolling.instances", "%d is over %d (instances one host runs)", r.Instances, MaxInstances)
	case r.Rate < 0:
		return fieldErr("rolling.rate", "%v is negative", r.Rate)
	case r.Down < 0:
		return fieldErr("rolling.down", "%s is negative", r.Down)
	case r.Timeout <= 0:
		return fieldErr("rolling.timeout", "%s must be positive", r.Timeout)
	case r.Settle < 0:
		return fieldErr("rolling.settle", "%s is negative", r.Settle)
	case r.GapThreshold < Duration(100*time.Millisecond):
		return fieldErr("rolling.gap_threshold", "%s is under 100ms (the driver reports processing every 100ms)", r.GapThreshold)
	case r.Settle >= r.Timeout:
		return fieldErr("rolling.settle", "%s is not under rolling.timeout %s: the application must stay ready for "+
			"rolling.settle within rolling.timeout of each restart, which it never can", r.Settle, r.Timeout)
	case r.GapThreshold >= r.Timeout:
		return fieldErr("rolling.gap_threshold", "%s is not under rolling.timeout %s: no pause in processing within a "+
			"restart could count, and its downtime would read 0", r.GapThreshold, r.Timeout)
	}
	return firstErr(checkRate("rolling.rate", r.Rate), checkDuration("rolling.down", r.Down), checkDuration("rolling.timeout", r.Timeout))
}
