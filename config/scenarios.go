package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/internal/registry"
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

// Bounds shared by scenarios' counts: what one host can run in one run.
const (
	// MaxInstances bounds the Kafka Streams instances a scenario starts
	// (scaleout.after, rolling.instances): each is a process with its own
	// stores, on this host.
	MaxInstances = 64
	// maxSteps bounds the lists a scenario steps through (warm.changed,
	// standby.rates, standby.pauses): each step is a measurement.
	maxSteps = 100
)

// A scenario is one descriptor, registered once: its ScenarioDef, in a file
// of its own (scenario_<name>.go) beside its settings type, which registers
// it from its init (registerScenario). Case.Finalize, Validate and Clone,
// the engine and strategy checks, the profile's "settings of another
// scenario" check, the runner table (package scenario), the broker check,
// the placement roles (RoleOf, RoleScenarios) and the agents' checks
// (package bench) walk the registry; none switches on scenario names.
//
// Adding a scenario: write config/scenario_<name>.go (its Scenario
// constant, its settings type with defaults, validation and clone, its
// ScenarioDef with an Order of its own, its roles and where it runs with
// --agents, and the init registering it), add a
// *Settings field to Case if it has settings, register a runner per engine
// it names in package scenario, and give it a case in a built-in profile.

// ScenarioDef describes one scenario: what config needs to default,
// validate and copy a case of it, and what the runner layer needs to pick
// and check its run.
type ScenarioDef struct {
	// Name is the scenario's name, what a case's scenario says.
	Name Scenario
	// Order places the scenario in the registry (Scenarios, error
	// messages listing them): lower first, one scenario an order. The
	// registry is filled from each scenario file's init, in whatever order
	// the files run; Order keeps the list the same whatever that is.
	Order int
	// Engines are the engines that run it; a case of it on another engine
	// is refused when the profile is read.
	Engines []Engine
	// EnginesWhy says why the other engines do not run it, in the error
	// refusing them ("it measures the real client's group and assignor").
	EnginesWhy string
	// PutOnly restricts its strategies to put and memory: it keeps stores
	// across restarts and writes into them with put.
	PutOnly bool
	// EverySize runs it at every size of a size sweep (the fit of restore
	// time against size needs it); scenarios without it run once, at the
	// first size.
	EverySize bool
	// Broker is the broker it needs.
	Broker Broker
	// BrokerWhy says why it needs a real broker, in the error refusing the
	// embedded one.
	BrokerWhy string
	// Settings are its settings block; nil when it has none.
	Settings Settings
	// TransactionalFill says it runs on a transactional fill
	// (fill.transactional): it reads the fill as written. Scenarios
	// without it change the changelog with plain writes or through Kafka
	// Streams, against expected states derived for plain fills, and are
	// refused on one when the profile is read.
	TransactionalFill bool
	// NeedsCleaner, when set, says it needs the log cleaner running, and
	// why ("measures what the log cleaner leaves"): a profile holding the
	// cleaner (hold_cleaner) is refused beside a case of it when read.
	// Empty: it runs with the cleaner held too.
	NeedsCleaner string
	// KafkaStreamsAnyTopic says it runs on the kafka-streams engine on a
	// topic not named <application_id>-<store>-changelog (fill.topic): the
	// cold restore restores one as a KTable's source-topic changelog, and
	// failover makes its own topics. Scenarios without it keep the kv
	// topology's store, whose changelog is always the one named after it,
	// and are refused on such a topic when the profile is read.
	KafkaStreamsAnyTopic bool
	// KindNeeds are what it needs of a case's store kind
	// (StoreKindDef.Can): a case of a kind lacking one is refused when the
	// profile is read, naming the scenarios the kind runs and what it
	// lacks (or the kind's own reason, StoreKindDef.Refused).
	KindNeeds []KindCap
	// KafkaStreamsNeeds are what it needs of the Kafka Streams version on
	// the kafka-streams engine (KafkaStreamsVersions): a case of it on a
	// version lacking one is refused when the profile is read.
	KafkaStreamsNeeds []KSFeature
	// Roles are the roles its kafka-streams instances play, which a
	// placement rule may name (RoleActive…); RoleOf the role instance i<k>
	// of case c plays, "" none. Both nil: its instances are alike
	// (failover's victim is whichever holds the most active tasks at each
	// kill; rolling restarts every instance in turn).
	Roles  []string
	RoleOf func(c Case, k int) string
	// OnAgents says that with --agents its kafka-streams instances run on
	// the agents; SingleInstance that it runs one, whose query load runs
	// on the agent hosting it; ModelOnAgents that its model-engine
	// restores run on an agent too (agent.OpModelRestore).
	OnAgents, SingleInstance, ModelOnAgents bool
	// Queries says a query load (a case's queries block) runs beside it:
	// key-value stores' cold restores and warm restarts on both engines (on
	// kafka-streams through the driver's API layer), and on kafka-streams
	// failovers, scale-outs and rolling restarts (a failover then runs the
	// kv topology over the fill instead of the ledger, whose values
	// lookups cannot judge; scale-outs and rolling restarts always run
	// it). A case of a scenario without it is refused a queries block.
	Queries bool
	// KindGaps are the store kinds its needs admit (KindNeeds against
	// StoreKindDef.Can) that no built-in profile runs it on yet, each with
	// why that is acceptable (another test runs the pair, or none does and
	// it says so). scenario's TestEveryKindsScenariosRunInABuiltinProfile
	// reads them: a kind that can run the scenario and is neither run by a
	// built-in profile nor listed here fails it, as does a gap a profile
	// has since closed or a kind that does not run the scenario.
	KindGaps []KindGap
}

// KindGap is a store kind a scenario's needs admit that no built-in
// profile runs it on (ScenarioDef.KindGaps), and why.
type KindGap struct {
	Kind StoreKind
	Why  string
}

// Broker is the broker a scenario needs.
type Broker int

const (
	// BrokerAny runs on the embedded broker or a real one.
	BrokerAny Broker = iota
	// BrokerReal needs a real broker: the embedded one (kfake) lacks what
	// the scenario uses.
	BrokerReal
)

// RunsOn reports whether engine runs the scenario.
func (d ScenarioDef) RunsOn(engine Engine) bool { return slices.Contains(d.Engines, engine) }

// scenarioDefs is the registry, by Order: what the scenario files' inits
// register (registerScenario).
var scenarioDefs = registry.Ordered[ScenarioDef]{
	What:  "config: scenario",
	Order: func(d ScenarioDef) int { return d.Order },
	Name:  func(d ScenarioDef) string { return string(d.Name) },
	Keys:  func(d ScenarioDef) []string { return []string{string(d.Name)} },
}

// Scenarios lists the scenarios that can run, in the registry's order.
// It is complete once package config is initialized.
var Scenarios []Scenario

// registerScenario adds d to the registry, in its Order, and to Scenarios.
// It panics, when the program starts, on a def without a name, engines
// or KindNeeds (a scenario says what it needs of a store kind, at least
// CapRestore), a kind gap without a kind or a reason, or one whose name
// or order another def has: two files cannot claim one scenario or one
// place.
func registerScenario(d ScenarioDef) {
	if d.Name == "" || len(d.Engines) == 0 {
		panic(fmt.Sprintf("config: scenario %q registered without a name or engines", d.Name))
	}
	if len(d.KindNeeds) == 0 {
		panic(fmt.Sprintf("config: scenario %s registered without KindNeeds: say what it needs of a store kind (at least CapRestore)", d.Name))
	}
	for _, g := range d.KindGaps {
		if g.Kind == "" || g.Why == "" {
			panic(fmt.Sprintf("config: scenario %s declares a kind gap without a kind or a reason: %+v", d.Name, g))
		}
	}
	i := scenarioDefs.Add(d)
	Scenarios = slices.Insert(slices.Clip(Scenarios), i, d.Name)
}

// ScenarioDefs returns every scenario's descriptor, in the registry's order.
// The slice is the caller's; the descriptors' Engines are shared.
func ScenarioDefs() []ScenarioDef { return slices.Clone(scenarioDefs.All()) }

// ScenarioDefOf returns the descriptor of scenario s.
func ScenarioDefOf(s Scenario) (ScenarioDef, bool) {
	for _, d := range scenarioDefs.All() {
		if d.Name == s {
			return d, true
		}
	}
	return ScenarioDef{}, false
}

// Settings is a scenario's settings block on a case: the Case field that
// holds it, its defaults, validation and deep copy. Only this package
// implements it (settingsOf).
type Settings interface {
	// Key is the block's name in a profile's case and in results.json's
	// params ("warm").
	Key() string
	// In reports whether c holds the block.
	In(c *Case) bool
	setDefaults(c *Case)
	drop(c *Case)
	validate(c Case) error
	checkSecrets(c Case) error
	clone(dst *Case, src Case)
}

// settingsOf implements Settings for the settings type T held in a *T field
// of Case.
type settingsOf[T any] struct {
	key string
	// field points at the Case field holding the block.
	field func(c *Case) **T
	// defaults returns a fresh block of the defaults.
	defaults func() *T
	// check validates the block on case c (nil: nothing to check); its
	// errors are FieldErrors naming the setting ("warm.rate").
	check func(c Case, s *T) error
	// secrets refuses credentials in the block's property maps (nil: none).
	secrets func(s *T) error
	// deepCopy copies what a shallow copy of *T would share: slices and
	// maps (nil: a shallow copy shares nothing).
	deepCopy func(dst, src *T)
}

func (s settingsOf[T]) Key() string     { return s.key }
func (s settingsOf[T]) In(c *Case) bool { return *s.field(c) != nil }
func (s settingsOf[T]) drop(c *Case)    { *s.field(c) = nil }
func (s settingsOf[T]) setDefaults(c *Case) {
	if f := s.field(c); *f == nil {
		*f = s.defaults()
	}
}

func (s settingsOf[T]) validate(c Case) error {
	if v := *s.field(&c); v != nil && s.check != nil {
		return s.check(c, v)
	}
	return nil
}

func (s settingsOf[T]) checkSecrets(c Case) error {
	if v := *s.field(&c); v != nil && s.secrets != nil {
		return s.secrets(v)
	}
	return nil
}

func (s settingsOf[T]) clone(dst *Case, src Case) {
	p := *s.field(&src)
	if p == nil {
		*s.field(dst) = nil
		return
	}
	v := *p
	if s.deepCopy != nil {
		s.deepCopy(&v, p)
	}
	*s.field(dst) = &v
}

// ScenarioDefaults gives a case the settings of its scenario when it
// names none, so every record says what ran, and drops the settings of
// other scenarios, which do not apply to it. Finalize does it; a case
// built in code (a test's fixture) can do it alone, without the rest of
// Finalize's rules.
func (c *Case) ScenarioDefaults() {
	for _, d := range scenarioDefs.All() {
		switch {
		case d.Settings == nil:
		case d.Name == c.Scenario:
			d.Settings.setDefaults(c)
		default:
			d.Settings.drop(c)
		}
	}
}

// validateScenario checks the scenario's settings, and that the engine runs it.
func (c Case) validateScenario() error {
	if d, ok := ScenarioDefOf(c.Scenario); ok {
		if !d.RunsOn(c.Engine) {
			return fieldErr("engine", "scenario %s runs on the %s only (%s)", c.Scenario, engineList(d.Engines), d.EnginesWhy)
		}
		if d.PutOnly && c.Strategy != StrategyPut && c.Strategy != StrategyMemory {
			return fieldErr("strategy", "scenario %s keeps stores across restarts and writes into them with put; %s cannot", c.Scenario, c.Strategy)
		}
	}
	for _, d := range scenarioDefs.All() {
		if d.Settings == nil {
			continue
		}
		if err := d.Settings.validate(c); err != nil {
			return err
		}
	}
	return nil
}

// engineList names engines for a message: "model engine", "model and
// kafka-streams engines".
func engineList(es []Engine) string {
	if len(es) == 1 {
		return string(es[0]) + " engine"
	}
	return listing.And(es) + " engines"
}

// checkScenarioSecrets refuses a secret in any scenario settings' property
// maps (see checkNoSecrets).
func (c Case) checkScenarioSecrets() error {
	for _, d := range scenarioDefs.All() {
		if d.Settings == nil {
			continue
		}
		if err := d.Settings.checkSecrets(c); err != nil {
			return err
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
	if c.Queries != nil {
		q := *c.Queries
		out.Queries = &q
	}
	out.JVMFlags = append([]string(nil), c.JVMFlags...)
	if c.JVMFlags == nil {
		out.JVMFlags = nil
	}
	for _, d := range scenarioDefs.All() {
		if d.Settings != nil {
			d.Settings.clone(&out, c)
		}
	}
	return out
}

// cloneMap copies m; nil stays nil.
func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
