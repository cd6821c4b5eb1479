package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time span that profiles write as Go durations ("5s",
// "1m30s") and results.json records the same way.
type Duration time.Duration

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads "5s", "250ms", "1m".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return typeError(n, fmt.Sprintf("%q is not a duration such as 5s or 250ms", n.Value))
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string, "5s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Set parses a flag value (pflag.Value).
func (d *Duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Type names the flag's value kind in help (pflag.Value).
func (d *Duration) Type() string { return "duration" }

// Count is a number of records, absolute (10000) or a percentage of the
// fill's records ("10%").
type Count struct {
	N       int64
	Percent float64
}

// Of resolves the count against a fill of total records.
func (c Count) Of(total int64) int64 {
	if c.Percent > 0 {
		return int64(float64(total) * c.Percent / 100)
	}
	return c.N
}

func (c Count) String() string {
	if c.Percent > 0 {
		return strconv.FormatFloat(c.Percent, 'g', -1, 64) + "%"
	}
	return strconv.FormatInt(c.N, 10)
}

// UnmarshalYAML reads 10000 or "10%".
func (c *Count) UnmarshalYAML(n *yaml.Node) error {
	v := strings.TrimSpace(n.Value)
	if p, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(f > 0 && f <= 1000) {
			return typeError(n, fmt.Sprintf("%q is not a percentage such as 10%%", v))
		}
		*c = Count{Percent: f}
		return nil
	}
	i, err := strconv.ParseInt(v, 10, 64)
	if err != nil || i < 0 {
		return typeError(n, fmt.Sprintf("%q is not a record count (a whole number, or a percentage such as 10%%)", v))
	}
	*c = Count{N: i}
	return nil
}

// MarshalJSON writes the count as a number or "10%".
func (c Count) MarshalJSON() ([]byte, error) {
	if c.Percent > 0 {
		return json.Marshal(c.String())
	}
	return json.Marshal(c.N)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Count) UnmarshalJSON(b []byte) error {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil || len(n.Content) == 0 {
		return fmt.Errorf("count %s: %v", b, err)
	}
	return c.UnmarshalYAML(n.Content[0])
}

// WarmSettings are the warm-restart scenario's: an instance restores cold,
// stops cleanly with its state directory kept, records are written while it
// is down, and it restarts and restores only those.
type WarmSettings struct {
	// Changed are the records written while the instance is down, one
	// restart each, in order: counts or percentages of the fill's records,
	// each at most MaxWarmChangedFactor times the fill's records (1000%).
	// Default [0, 10000, 100000, 1000000, 10%], without the counts over
	// that bound for a small fill (see FitWarmToFill).
	Changed []Count `json:"changed" yaml:"changed"`
	// Rate is how fast the changes are written, records a second; 0 (the
	// default) writes them as fast as the producer goes.
	Rate float64 `json:"rate,omitempty" yaml:"rate"`
	// Fallback adds a last restart whose committed offsets lie below the
	// changelog's log start (a prefix deleted, as retention or
	// DeleteRecords would): Kafka Streams then restores from the log start.
	// Default true.
	Fallback bool `json:"fallback" yaml:"fallback"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *WarmSettings) SetDefaults() { *s = *DefaultWarm() }

// MaxWarmChangedFactor bounds a warm restart's changed records: at most
// this many times the fill's records (the 1000% a percentage may say).
// Past the fill a warm restart already owes more than a cold restore reads,
// which is the crossover worth measuring; ten times past it, it measures
// the producer (4 GB written over a 1 MB fill), not a restart.
const MaxWarmChangedFactor = 10

// FitWarmToFill bounds a warm case's changed counts by MaxWarmChangedFactor
// times the fill's records: a count over that is an error naming it and the
// bound. The default counts over it (a small fill) are dropped instead, so
// the defaults suit any fill. about says records is an estimate (a fill by
// size), which the error then says.
func (c *Case) FitWarmToFill(records int64, about bool) error {
	if c.Warm == nil || records <= 0 {
		return nil
	}
	bound := MaxWarmChangedFactor * records
	if slices.Equal(c.Warm.Changed, DefaultWarm().Changed) {
		kept := c.Warm.Changed[:0:0]
		for _, n := range c.Warm.Changed {
			if n.Of(records) <= bound {
				kept = append(kept, n)
			}
		}
		c.Warm.Changed = kept
		return nil
	}
	for i, n := range c.Warm.Changed {
		if n.N > bound {
			approx := ""
			if about {
				approx = "about "
			}
			return fieldErr(fmt.Sprintf("warm.changed[%d]", i), "%d records is over %d times the fill's %s%d records (at most %d: past that a warm restart measures the producer, not the restart)",
				n.N, MaxWarmChangedFactor, approx, records, bound)
		}
	}
	return nil
}

// DefaultWarm returns the warm scenario's defaults.
func DefaultWarm() *WarmSettings {
	return &WarmSettings{Changed: []Count{{N: 0}, {N: 10_000}, {N: 100_000}, {N: 1_000_000}, {Percent: 10}}, Fallback: true}
}

// StandbySettings are the standby scenario's: a standby keeps a copy of
// the stores while the changelog is written at set rates; it is then
// paused (stopped with its state kept) and restarted, and the time until
// it is caught up again is measured.
type StandbySettings struct {
	// Rates are the changelog write rates, records a second, one step each.
	// Default [2000, 10000, 50000].
	Rates []float64 `json:"rates" yaml:"rates"`
	// Duration is how long each rate is written. Default 15s.
	Duration Duration `json:"duration" yaml:"duration"`
	// Pauses are how long the standby is stopped while writes go on, one
	// catch-up measurement each. Default [5s, 20s].
	Pauses []Duration `json:"pauses" yaml:"pauses"`
	// PauseRate is the write rate during the pause measurements, records
	// a second. Default 10000.
	PauseRate float64 `json:"pause_rate" yaml:"pause_rate"`
	// AcceptableRecoveryLag is Kafka Streams' acceptable.recovery.lag: a
	// standby within it counts as caught up. Default 10000.
	AcceptableRecoveryLag int64 `json:"acceptable_recovery_lag" yaml:"acceptable_recovery_lag"`
	// FindMax searches, after the rates, for the highest write rate the
	// standby sustains (its lag stays bounded), doubling then bisecting.
	// Default true.
	FindMax bool `json:"find_max" yaml:"find_max"`
	// Sample is how often the standby's lag is read. Default 250ms.
	Sample Duration `json:"sample" yaml:"sample"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *StandbySettings) SetDefaults() { *s = *DefaultStandby() }

// MinStandbyLagSamples is the fewest lag samples a standby rate step must
// take while it writes for its verdict (kept up or fell behind) to be a
// measurement; standby.duration must hold that many standby.sample
// intervals.
const MinStandbyLagSamples = 5

// Lag sampling limits on the kafka-streams engine: its driver reports lags
// at most every MinKafkaStreamsLagInterval; the catch-up it times from
// those reports needs one at least every MaxStandbyKafkaStreamsSample.
const (
	MinKafkaStreamsLagInterval   = 100 * time.Millisecond
	MaxStandbyKafkaStreamsSample = time.Second
)

// StandbyLagInterval is how often a standby's lag is read on engine with
// the setting sample: the kafka-streams driver reports it at most every
// MinKafkaStreamsLagInterval.
func StandbyLagInterval(engine Engine, sample Duration) time.Duration {
	if engine == EngineKafkaStreams {
		return max(sample.D(), MinKafkaStreamsLagInterval)
	}
	return sample.D()
}

// DefaultStandby returns the standby scenario's defaults.
func DefaultStandby() *StandbySettings {
	return &StandbySettings{
		Rates: []float64{2000, 10_000, 50_000}, Duration: Duration(15 * time.Second),
		Pauses: []Duration{Duration(5 * time.Second), Duration(20 * time.Second)}, PauseRate: 10_000,
		AcceptableRecoveryLag: 10_000, FindMax: true, Sample: Duration(250 * time.Millisecond),
	}
}

// FailoverSettings are the failover scenario's (kafka-streams engine, the
// domain card's ledger): an active instance and optionally a standby run
// while a producer writes deposits and withdrawals; the active is killed
// with SIGKILL mid-stream and a survivor takes over.
type FailoverSettings struct {
	// Rate is the transactions written a second. Default 1000.
	Rate float64 `json:"rate" yaml:"rate"`
	// Accounts is the number of accounts the transactions spread over.
	// Default 1000.
	Accounts int `json:"accounts" yaml:"accounts"`
	// Kills is how many times an active instance is killed, at random
	// moments, in one measurement. Default 5.
	Kills int `json:"kills" yaml:"kills"`
	// Standby runs a standby instance beside the active one (with
	// num.standby.replicas=1). Default true.
	Standby bool `json:"standby" yaml:"standby"`
	// Persistent keeps a killed instance's state directory when it comes
	// back (a persistent volume); false wipes it (ephemeral storage).
	// Default true.
	Persistent bool `json:"persistent" yaml:"persistent"`
	// Run bounds the wait before each kill: once the group is stable (both
	// instances RUNNING, every task assigned), the kill comes after a random
	// time between Run/2 and Run. Default 10s.
	Run Duration `json:"run" yaml:"run"`
	// Partitions is the ledger input topic's partition count, i.e. the
	// number of tasks (and store partitions). Default 4.
	Partitions int `json:"partitions" yaml:"partitions"`
	// Seed makes the transactions and the kill moments reproducible; each
	// repeat derives its own from it. Default 1.
	Seed int64 `json:"seed" yaml:"seed"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *FailoverSettings) SetDefaults() { *s = *DefaultFailover() }

// DefaultFailover returns the failover scenario's defaults.
func DefaultFailover() *FailoverSettings {
	return &FailoverSettings{Rate: 1000, Accounts: 1000, Kills: 5, Standby: true, Persistent: true, Run: Duration(10 * time.Second),
		Partitions: 4, Seed: 1}
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

// CompactionSettings are the compaction scenario's: the fill is written to a
// changelog of its own with these cleaner settings, the cleaner runs, and a
// cold restore reads what it left.
type CompactionSettings struct {
	// TopicConfigs are the changelog topic's settings, by Kafka's names:
	// min.cleanable.dirty.ratio (default 0.5), segment.bytes (1 GiB),
	// segment.ms (7 days), min.compaction.lag.ms (0), ... Default none:
	// Kafka's defaults.
	TopicConfigs map[string]string `json:"topic_configs,omitempty" yaml:"topic_configs"`
	// Settle is how long the cleaner gets after the writes before the
	// restore. Default 30s.
	Settle Duration `json:"settle" yaml:"settle"`
}

// SetDefaults fills s with the defaults.
func (s *CompactionSettings) SetDefaults() { *s = *DefaultCompaction() }

// DefaultCompaction returns the compaction scenario's defaults.
func DefaultCompaction() *CompactionSettings {
	return &CompactionSettings{Settle: Duration(30 * time.Second)}
}

// scenarioDefaults gives a case the settings of its scenario when it
// names none, so every record says what ran, and drops the settings of
// other scenarios, which do not apply to it.
func (c *Case) scenarioDefaults() {
	keep := map[Scenario]bool{c.Scenario: true}
	if !keep[ScenarioWarm] {
		c.Warm = nil
	}
	if !keep[ScenarioStandby] {
		c.Standby = nil
	}
	if !keep[ScenarioFailover] {
		c.Failover = nil
	}
	if !keep[ScenarioScaleOut] {
		c.ScaleOut = nil
	}
	if !keep[ScenarioRolling] {
		c.Rolling = nil
	}
	if !keep[ScenarioCompaction] {
		c.Compaction = nil
	}
	switch c.Scenario {
	case ScenarioWarm:
		if c.Warm == nil {
			c.Warm = DefaultWarm()
		}
	case ScenarioStandby:
		if c.Standby == nil {
			c.Standby = DefaultStandby()
		}
	case ScenarioFailover:
		if c.Failover == nil {
			c.Failover = DefaultFailover()
		}
	case ScenarioScaleOut:
		if c.ScaleOut == nil {
			c.ScaleOut = DefaultScaleOut()
		}
	case ScenarioRolling:
		if c.Rolling == nil {
			c.Rolling = DefaultRolling()
		}
	case ScenarioCompaction:
		if c.Compaction == nil {
			c.Compaction = DefaultCompaction()
		}
	}
}

// kafkaStreamsOnly are the scenarios only the real client can run: they
// are about its group protocol, assignor and processing.
var kafkaStreamsOnly = map[Scenario]bool{ScenarioFailover: true, ScenarioScaleOut: true, ScenarioRolling: true}

// modelOnly are the scenarios only the model engine runs so far: the
// compaction sweep is not built on the kafka-streams engine yet.
var modelOnly = map[Scenario]bool{ScenarioCompaction: true}

// Bounds on a scenario's counts: what one host can run in one run.
const (
	// MaxInstances bounds the Kafka Streams instances a scenario starts
	// (scaleout.after, rolling.instances): each is a process with its own
	// stores, on this host.
	MaxInstances = 64
	// maxKills bounds failover.kills; each kill waits for a recovery.
	maxKills = 1000
	// maxAccounts bounds failover.accounts, the ledger's keys held in memory.
	maxAccounts = 10_000_000
	// maxScenarioPartitions bounds failover.partitions, as fill.partitions is.
	maxScenarioPartitions = 10_000
	// maxSteps bounds the lists a scenario steps through (warm.changed,
	// standby.rates, standby.pauses): each step is a measurement.
	maxSteps = 100
)

// validateScenario checks the scenario's settings, and that the engine runs it.
func (c Case) validateScenario() error {
	if kafkaStreamsOnly[c.Scenario] && c.Engine != EngineKafkaStreams {
		return fieldErr("engine", "scenario %s runs on the kafka-streams engine only (it measures the real client's group and assignor)", c.Scenario)
	}
	if modelOnly[c.Scenario] && c.Engine != EngineModel {
		return fieldErr("engine", "scenario %s runs on the model engine only (not yet built on the kafka-streams engine)", c.Scenario)
	}
	if c.Scenario != ScenarioCold && c.Strategy != StrategyPut && c.Strategy != StrategyMemory {
		return fieldErr("strategy", "scenario %s keeps stores across restarts and writes into them with put; %s cannot", c.Scenario, c.Strategy)
	}
	switch {
	case c.Warm != nil:
		seen := map[Count]int{}
		for i, n := range c.Warm.Changed {
			if n.N < 0 {
				return fieldErr(fmt.Sprintf("warm.changed[%d]", i), "%s is negative", n)
			}
			if n.Percent > 100*MaxWarmChangedFactor {
				return fieldErr(fmt.Sprintf("warm.changed[%d]", i), "%s is over %d%% of the fill's records", n, 100*MaxWarmChangedFactor)
			}
			if j, dup := seen[n]; dup {
				return fieldErr(fmt.Sprintf("warm.changed[%d]", i), "%s repeats warm.changed[%d]: each step is measured once (use repeats for more)", n, j)
			}
			seen[n] = i
		}
		if len(c.Warm.Changed) == 0 {
			return fieldErr("warm.changed", "want at least one count of records to change")
		}
		if len(c.Warm.Changed) > maxSteps {
			return fieldErr("warm.changed", "%d counts is over %d", len(c.Warm.Changed), maxSteps)
		}
		if c.Warm.Rate < 0 {
			return fieldErr("warm.rate", "%v is negative", c.Warm.Rate)
		}
	}
	if s := c.Standby; s != nil {
		rates := map[float64]int{}
		for i, r := range s.Rates {
			if !(r > 0) {
				return fieldErr(fmt.Sprintf("standby.rates[%d]", i), "%v must be positive", r)
			}
			if j, dup := rates[r]; dup {
				return fieldErr(fmt.Sprintf("standby.rates[%d]", i), "%v repeats standby.rates[%d]: each step is measured once (use repeats for more)", r, j)
			}
			rates[r] = i
		}
		pauses := map[Duration]int{}
		for i, p := range s.Pauses {
			if p <= 0 {
				return fieldErr(fmt.Sprintf("standby.pauses[%d]", i), "%s must be positive", p)
			}
			if j, dup := pauses[p]; dup {
				return fieldErr(fmt.Sprintf("standby.pauses[%d]", i), "%s repeats standby.pauses[%d]: each step is measured once (use repeats for more)", p, j)
			}
			pauses[p] = i
		}
		switch {
		case len(s.Rates) > maxSteps:
			return fieldErr("standby.rates", "%d rates is over %d", len(s.Rates), maxSteps)
		case len(s.Pauses) > maxSteps:
			return fieldErr("standby.pauses", "%d pauses is over %d", len(s.Pauses), maxSteps)
		case len(s.Rates) == 0 && !s.FindMax:
			return fieldErr("standby.rates", "want at least one rate (or find_max: true)")
		case s.Duration < Duration(time.Second):
			return fieldErr("standby.duration", "%s is under 1s", s.Duration)
		case len(s.Pauses) > 0 && !(s.PauseRate > 0):
			return fieldErr("standby.pause_rate", "%v must be positive", s.PauseRate)
		case s.AcceptableRecoveryLag < 0:
			return fieldErr("standby.acceptable_recovery_lag", "%d is negative", s.AcceptableRecoveryLag)
		case s.Sample < Duration(10*time.Millisecond):
			return fieldErr("standby.sample", "%s is under 10ms", s.Sample)
		}
		// A rate step's verdict rests on its lag samples: the settings
		// must give enough of them within a step.
		every := StandbyLagInterval(c.Engine, s.Sample)
		if n := int64(s.Duration.D() / every); n < MinStandbyLagSamples {
			at := ""
			if every != s.Sample.D() {
				at = fmt.Sprintf(" (the %s engine reports lags every %s at the least)", c.Engine, every)
			}
			return fieldErr("standby.sample", "%s%s gives %d lag sample(s) over standby.duration %s; a rate step needs at least %d to say whether the standby kept up: make standby.duration at least %d × standby.sample",
				s.Sample, at, n, s.Duration, MinStandbyLagSamples, MinStandbyLagSamples)
		}
		if c.Engine == EngineKafkaStreams && s.Sample > Duration(MaxStandbyKafkaStreamsSample) {
			return fieldErr("standby.sample", "%s is over %s: on the kafka-streams engine the lag samples also time the standby's catch-up (within a second of a rate step's writes stopping, and after a pause), so they must come at least every %s",
				s.Sample, MaxStandbyKafkaStreamsSample, MaxStandbyKafkaStreamsSample)
		}
	}
	if f := c.Failover; f != nil {
		switch {
		case !(f.Rate > 0):
			return fieldErr("failover.rate", "%v must be positive", f.Rate)
		case f.Accounts <= 0:
			return fieldErr("failover.accounts", "%d must be positive", f.Accounts)
		case f.Kills <= 0:
			return fieldErr("failover.kills", "%d must be positive", f.Kills)
		case f.Kills > maxKills:
			return fieldErr("failover.kills", "%d is over %d", f.Kills, maxKills)
		case f.Accounts > maxAccounts:
			return fieldErr("failover.accounts", "%d is over %d", f.Accounts, maxAccounts)
		case f.Run < Duration(time.Second):
			return fieldErr("failover.run", "%s is under 1s", f.Run)
		case f.Partitions <= 0:
			return fieldErr("failover.partitions", "%d must be positive", f.Partitions)
		case f.Partitions > maxScenarioPartitions:
			return fieldErr("failover.partitions", "%d is over %d", f.Partitions, maxScenarioPartitions)
		}
	}
	if s := c.ScaleOut; s != nil {
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
			return fieldErr("scaleout.settle", "%s is not under scaleout.timeout %s: the assignment must stay balanced for scaleout.settle within scaleout.timeout, which it never can", s.Settle, s.Timeout)
		case s.GapThreshold >= s.Timeout:
			return fieldErr("scaleout.gap_threshold", "%s is not under scaleout.timeout %s: no pause in processing within the scale-out could count, and its longest gap would read 0", s.GapThreshold, s.Timeout)
		}
	}
	if cs := c.Compaction; cs != nil {
		if cs.Settle < 0 {
			return fieldErr("compaction.settle", "%s is negative", cs.Settle)
		}
		keys := make([]string, 0, len(cs.TopicConfigs))
		for k := range cs.TopicConfigs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := CheckTopicConfig(k, cs.TopicConfigs[k]); err != nil {
				return fieldErr("compaction.topic_configs."+k, "%v", err)
			}
		}
	}
	if r := c.Rolling; r != nil {
		switch {
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
			return fieldErr("rolling.settle", "%s is not under rolling.timeout %s: the application must stay ready for rolling.settle within rolling.timeout of each restart, which it never can", r.Settle, r.Timeout)
		case r.GapThreshold >= r.Timeout:
			return fieldErr("rolling.gap_threshold", "%s is not under rolling.timeout %s: no pause in processing within a restart could count, and its downtime would read 0", r.GapThreshold, r.Timeout)
		}
	}
	return nil
}

// Clone returns a copy of c that shares nothing with it: its scenario
// settings, Kafka Streams properties and JVM flags are copied too, so a
// profile's cases can start from one base and change their own.
func (c Case) Clone() Case {
	out := c
	if c.Streams != nil {
		out.Streams = make(map[string]string, len(c.Streams))
		for k, v := range c.Streams {
			out.Streams[k] = v
		}
	}
	out.JVMFlags = append([]string(nil), c.JVMFlags...)
	if c.JVMFlags == nil {
		out.JVMFlags = nil
	}
	out.Warm = clonePtr(c.Warm)
	if out.Warm != nil {
		out.Warm.Changed = append([]Count(nil), c.Warm.Changed...)
	}
	out.Standby = clonePtr(c.Standby)
	if out.Standby != nil {
		out.Standby.Rates = append([]float64(nil), c.Standby.Rates...)
		out.Standby.Pauses = append([]Duration(nil), c.Standby.Pauses...)
	}
	out.Failover, out.ScaleOut, out.Rolling = clonePtr(c.Failover), clonePtr(c.ScaleOut), clonePtr(c.Rolling)
	out.Compaction = clonePtr(c.Compaction)
	if c.Compaction != nil && c.Compaction.TopicConfigs != nil {
		out.Compaction.TopicConfigs = make(map[string]string, len(c.Compaction.TopicConfigs))
		for k, v := range c.Compaction.TopicConfigs {
			out.Compaction.TopicConfigs[k] = v
		}
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
