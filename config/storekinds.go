package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// A store kind is one descriptor, registered once: its StoreKindDef, in a
// file of its own (storekind_<name>.go) beside its constant, which
// registers it from its init (registerStoreKind). Its fill's half (how its
// records look, its expected-state tracker) is loadgen's FillKindDef of the
// same name, in loadgen/storekind_<name>.go. Case validation, the fill's
// spec, the driver's properties, the engine's store and the record's store
// figures walk the descriptor; none switches on kind names.
//
// A kind declares what its store can do (Can: KindCaps such as a warm
// restart's reopened store) and each scenario what it needs of a kind
// (ScenarioDef.KindNeeds); a kind runs the scenarios whose needs it has
// (Runs), and no list of scenarios is kept per kind.
//
// Adding a kind of an existing layout: write loadgen/storekind_<name>.go
// (its loadgen.StoreKind constant and FillKindDef), config/storekind_<name>.go
// (its StoreKind constant and StoreKindDef, on a Layout the engines
// register) and the driver's Java store class (listed in StoreKinds.java).
// A kind of a new layout also declares its StoreLayout constant in its
// file and registers the model engine's store of it
// (engine/kinds_<layout>.go: registerLayout); engine's tests fail while a
// layout a kind names has no registration there.

// StoreKindDef describes one store kind: what a case of it may run and
// needs, what its fill sets, what the Kafka Streams driver is told, which
// of the engines' stores restores it and what its record says.
type StoreKindDef struct {
	// Kind is the kind's name, what a case's and a fill's store_kind say.
	// Its loadgen.FillKindDef must be registered (its Segmented, Timed and
	// TimestampedValue are the kind's).
	Kind StoreKind
	// Can is what its store can do, as restorebench has built and verified
	// it; it runs the scenarios whose ScenarioDef.KindNeeds it all has
	// (Runs). Every kind has CapRestore.
	Can []KindCap
	// Refused says why it does not run a scenario, for the scenarios it
	// has a reason of its own for: the reason only, which the refusal
	// writes after the scenarios the kind runs (listed from the registry,
	// so a scenario added later is named without an edit here); the
	// others are refused listing those scenarios and what it lacks.
	Refused map[Scenario]string
	// NoLookups says why a query load's key lookups cannot read it ("" for
	// a store they read: a key-value one).
	NoLookups string
	// Layout is the engine store that restores it; required.
	Layout StoreLayout
	// Retention says its fill has a retention (fill.retention: a window
	// or session store's, a versioned store's history), recorded on its
	// cases (Case.Retention).
	Retention bool
	// check validates a case of it, once its scenario is known to run
	// (nil: nothing to check).
	check func(c Case) error
	// fillSpec sets its part of a timed fill's spec once the event step is
	// set (windows, retention), refusing what it does not read (nil:
	// nothing to set).
	fillSpec func(f Fill, spec *loadgen.Spec) error
	// driverProps are the driver's keys a case of it sets beside
	// restorebench.store.kind (nil: none).
	driverProps func(c Case) map[string]string
	// fillProps are the driver's keys its fill's spec sets (nil: none);
	// an error when spec lacks what it needs.
	fillProps func(c Case, spec *loadgen.Spec) (map[string]string, error)
	// Figures is what a restore's record says of its store.
	Figures KindFigures
	// Foreign says a topic restorebench did not fill restores as the
	// kind's changelog, verified against an independent read of it
	// (restore --topic, plan --measure); on the kafka-streams engine its
	// store over the topic is the table topology's.
	Foreign bool
	// foreignProps are the driver's keys of its store over such a topic
	// beside the case's own (nil: none).
	foreignProps func(c Case) map[string]string
	// ForeignRead is how the independent read of such a topic reads it
	// (zero: a key-value store's changelog, each key's last value).
	ForeignRead ForeignRead
}

// StoreLayout is the engine store a kind restores into, declared in the
// file of the kind that introduced it (LayoutKeyValue in
// storekind_keyvalue.go, ...); the model engine registers its store of
// each (engine.registerLayout).
type StoreLayout string

// ForeignRead is how the independent read of a topic restorebench did not
// fill reads it as a kind's changelog (topicshape.StateOptions), and what
// that read keeps, in the summary's words.
type ForeignRead struct {
	// Keys is how the changelog's keys are laid out. Default
	// KeysPlain.
	Keys ChangelogKeys
	// Folds says what the read keeps of the topic; "" is a key-value
	// changelog's "each key's last value".
	Folds string
}

// ChangelogKeys is how a changelog's keys are laid out, one of the
// changelogs topicshape reads.
type ChangelogKeys int

const (
	// KeysPlain are a key-value store's: the record key.
	KeysPlain ChangelogKeys = iota
	// KeysWindow are a window store's: record key, window start and
	// sequence number, windows expiring by the case's retention.
	KeysWindow
	// KeysSession are a session store's: record key, session end and
	// start, sessions expiring by the case's retention.
	KeysSession
)

// ForeignReadOf is how a topic restorebench did not fill is read as kind
// k's changelog (StoreKindDef.ForeignRead, its Folds filled in).
func ForeignReadOf(k StoreKind) ForeignRead {
	r := kindDef(k).ForeignRead
	if r.Folds == "" {
		r.Folds = "each key's last value"
	}
	return r
}

// KindCap is something a store kind's store can do, as restorebench has
// built and verified it, which a scenario needs of the kinds it runs
// (StoreKindDef.Can, ScenarioDef.KindNeeds). Its text names it in a
// refusal ("... not scaleout: it needs <cap>").
type KindCap string

const (
	// CapRestore is a cold restore from its changelog, verified against
	// the fill's expected state (cold). Every kind has it.
	CapRestore KindCap = "a cold restore from its changelog"
	// CapReopen is a kept store reopened by a restart and restored from
	// the changelog offset it committed (warm, a standby's pause).
	CapReopen KindCap = "its kept store reopened and restored from its committed offset"
	// CapReopenLater is a store reopened after a pause or from an earlier
	// assignment (a standby's pause step, a failover's warm takeover, a
	// rolling restart's instance) holding the state the fill's expected
	// state describes; a session store's stream time, for one, does not.
	CapReopenLater KindCap = "a store reopened after a pause or from an earlier assignment holding the state the fill describes"
	// CapWriteLoad is a write load put into it through the kv topology
	// over the fill (the driver's put processor of the kind), its stores
	// verified against the fill plus the load (failover, rolling).
	CapWriteLoad KindCap = "a write load put into it through the kv topology, verified against the fill plus the load"
	// CapWarmups is its tasks moved to added instances through KIP-441
	// warmup replicas and verified there (scaleout).
	CapWarmups KindCap = "warmup replicas moving its tasks to added instances, verified there"
	// CapCompacted is its changelog compacted by the log cleaner, then
	// restored and verified against the live keys (compaction).
	CapCompacted KindCap = "a changelog the log cleaner compacted, restored and verified"
)

// Has says whether the kind can cap.
func (d StoreKindDef) Has(cap KindCap) bool { return slices.Contains(d.Can, cap) }

// lacks is what of scenario s's needs the kind does not have; every need
// of a scenario not registered.
func (d StoreKindDef) lacks(s Scenario) []KindCap {
	sd, ok := ScenarioDefOf(s)
	if !ok {
		return []KindCap{CapRestore}
	}
	var out []KindCap
	for _, n := range sd.KindNeeds {
		if !d.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

// StoreLayouts lists the layouts the registered kinds restore into, in
// the registry's order, each once.
func StoreLayouts() []StoreLayout {
	var out []StoreLayout
	for _, d := range storeKindDefs {
		if !slices.Contains(out, d.Layout) {
			out = append(out, d.Layout)
		}
	}
	return out
}

// KindFigures is what a restore's record says of a kind's store
// (runs.StoreFigures).
type KindFigures struct {
	// Recorded says a record holds its store's figures; false for the
	// key-value store, whose restore's own figures say it all.
	Recorded bool
	// Uncounted says the kafka-streams engine cannot count what its
	// store kept and dropped (no listener or metric sees it).
	Uncounted bool
	// SegmentInterval is its store's segment interval, recorded with its
	// retention; nil for a store without segments.
	SegmentInterval func(c Case) time.Duration
	// SegmentDirs says its RocksDB segments are directories the
	// kafka-streams engine counts on disk (<task>/<store>/<store>.<start>);
	// in memory it has none, and no segment interval.
	SegmentDirs bool
}

// storeKindDefs is the registry, in loadgen.StoreKinds' order.
var storeKindDefs []StoreKindDef

// StoreKinds lists the store kinds a case can restore, in the registry's
// order. It is complete once package config is initialized.
var StoreKinds []StoreKind

// registerStoreKind adds d to the registry and StoreKinds. It panics, when
// the program starts, on a def without a loadgen.FillKindDef of its name
// or one whose name another def has, and on one without a layout or
// CapRestore.
func registerStoreKind(d StoreKindDef) {
	if _, ok := loadgen.FillKindOf(d.Kind); !ok || d.Kind == "" {
		panic(fmt.Sprintf("config: store kind %q registered without its fill's (loadgen.FillKindDef)", d.Kind))
	}
	if d.Layout == "" || !d.Has(CapRestore) {
		panic(fmt.Sprintf("config: store kind %s registered without a layout or %s: every kind restores cold into a layout", d.Kind, CapRestore))
	}
	for _, o := range storeKindDefs {
		if o.Kind == d.Kind {
			panic(fmt.Sprintf("config: store kind %s registered twice: a kind is one descriptor", d.Kind))
		}
	}
	order := func(k StoreKind) int { return slices.Index(loadgen.StoreKinds, k) }
	i, _ := slices.BinarySearchFunc(storeKindDefs, order(d.Kind), func(o StoreKindDef, n int) int { return order(o.Kind) - n })
	storeKindDefs = slices.Insert(storeKindDefs, i, d)
	StoreKinds = slices.Insert(StoreKinds, i, d.Kind)
}

// StoreKindDefOf returns the descriptor of kind k ("" is key-value).
func StoreKindDefOf(k StoreKind) (StoreKindDef, bool) {
	k = k.Of()
	for _, d := range storeKindDefs {
		if d.Kind == k {
			return d, true
		}
	}
	return StoreKindDef{}, false
}

// kindDef is k's descriptor; the zero one (no scenarios) for an unknown
// kind, which validation refuses first.
func kindDef(k StoreKind) StoreKindDef {
	d, _ := StoreKindDefOf(k)
	return d
}

// RestoresForeign says whether a topic restorebench did not fill restores
// as kind k's changelog (StoreKindDef.Foreign).
func RestoresForeign(k StoreKind) bool { return kindDef(k).Foreign }

// ForeignKinds names the kinds a topic restorebench did not fill restores
// as, in the registry's order: "key-value, timestamped-key-value or
// window".
func ForeignKinds() string {
	var names []string
	for _, d := range storeKindDefs {
		if d.Foreign {
			names = append(names, string(d.Kind))
		}
	}
	return listing.Or(names)
}

// ForeignProperties are the driver's keys of the case's store over a topic
// restorebench did not fill, beside the case's own (StoreKindDef.foreignProps).
func (c Case) ForeignProperties() map[string]string {
	if d := kindDef(c.StoreKind); d.foreignProps != nil {
		return d.foreignProps(c)
	}
	return nil
}

// Runs says whether the kind runs scenario s: it can all s needs of a
// kind (ScenarioDef.KindNeeds). False for a scenario not registered.
func (d StoreKindDef) Runs(s Scenario) bool { return d.Kind != "" && len(d.lacks(s)) == 0 }

// kindRunsScenario says whether store kind k runs scenario s.
func kindRunsScenario(k StoreKind, s Scenario) bool { return kindDef(k).Runs(s) }

// kindScenarioErr says why store kind k does not run scenario s.
func kindScenarioErr(k StoreKind, s Scenario) error {
	if why, ok := kindDef(k).Refused[s]; ok {
		return fieldErr("store_kind", "%s stores run %s only so far, not %s: %s", k, scenariosNamed(KindScenarios(k)), s, why)
	}
	var needs []string
	for _, c := range kindDef(k).lacks(s) {
		needs = append(needs, string(c))
	}
	return fieldErr("store_kind", "%s stores run scenarios %s only so far, not %s: it needs %s, which %s stores do not have yet",
		k, KindScenarios(k), s, strings.Join(needs, "; "), k)
}

// scenariosNamed introduces a list of scenarios: "scenario cold" for
// one, "scenarios cold and warm" for more.
func scenariosNamed(list string) string {
	if strings.Contains(list, " and ") {
		return "scenarios " + list
	}
	return "scenario " + list
}

// KindScenarios lists the scenarios store kind k runs, in the registry's
// order, as its refusals name them: "cold, warm and standby".
func KindScenarios(k StoreKind) string {
	d := kindDef(k)
	var names []Scenario
	for _, s := range Scenarios {
		if d.Runs(s) {
			names = append(names, s)
		}
	}
	return listing.And(names)
}

// checkStoreKind checks what the case's store kind allows: read_expired
// only on a segmented store and the model engine, then the scenarios the
// kind runs and its own rules (StoreKindDef.check).
func (c Case) checkStoreKind() error {
	d := kindDef(c.StoreKind)
	switch {
	case c.ReadExpired && !c.StoreKind.Segmented():
		return fieldErr("read_expired", "set only for window and session stores, whose cold restore can skip the records the retention expired")
	case c.ReadExpired && c.Engine == EngineKafkaStreams:
		return fieldErr("read_expired", "the kafka-streams engine reads as its kafka_streams_version does (3.9.1-4.1.2 and "+
			"4.3.x from the log start, 4.2.2 and 4.4.0 from the first record within the retention): set that "+
			"instead")
	case !d.Runs(c.Scenario):
		return kindScenarioErr(c.StoreKind, c.Scenario)
	case d.check != nil:
		return d.check(c)
	}
	return nil
}

// checkSegmented checks a window or session store's case: a strategy
// that writes rows one by one (put, memory), and a retention and segment
// interval that are not negative, the interval at least a millisecond.
func (c Case) checkSegmented() error {
	switch {
	case c.Strategy != StrategyPut && c.Strategy != StrategyMemory:
		return fieldErr("strategy", "%s: %s stores restore with put or memory so far (one RocksDB per segment)", c.Strategy, c.StoreKind)
	case c.Retention < 0:
		return fieldErr("retention", "%s is negative", c.Retention)
	case c.SegmentInterval < 0:
		return fieldErr("segment_interval", "%s is negative", c.SegmentInterval)
	case c.SegmentInterval != 0 && c.SegmentInterval.D() < time.Millisecond:
		return fieldErr("segment_interval", "%s is under a millisecond", c.SegmentInterval)
	}
	return nil
}

// segmentedFillSpec sets a window or session fill's window size and
// retention, with their defaults.
func segmentedFillSpec(f Fill, spec *loadgen.Spec) error {
	spec.WindowSizeMs = orDefault(f.WindowSize, DefaultWindowSize).D().Milliseconds()
	spec.RetentionMs = orDefault(f.Retention, DefaultRetention).D().Milliseconds()
	return nil
}

// retentionProperties are the driver's keys of a store with a retention:
// it and (when the case sets one) the segment interval, in milliseconds.
func retentionProperties(c Case) map[string]string {
	p := map[string]string{ksdriver.PropStoreRetentionMs: strconv.FormatInt(c.Retention.D().Milliseconds(), 10)}
	if c.SegmentInterval > 0 {
		p[ksdriver.PropStoreSegmentIntervalMs] = strconv.FormatInt(c.SegmentInterval.D().Milliseconds(), 10)
	}
	return p
}

// windowSizeProperties give a window or session store's instance its
// window size, which is the fill's (the case holds the retention and
// segment interval): the changelog's keys are windows of that size, or
// sessions within such windows.
func windowSizeProperties(c Case, spec *loadgen.Spec) (map[string]string, error) {
	if spec == nil || spec.WindowSizeMs <= 0 {
		return nil, fmt.Errorf("case %s: a %s store is built with its fill's window size, and this restore has no such fill's spec", c.Name, c.StoreKind)
	}
	return map[string]string{ksdriver.PropStoreWindowSizeMs: strconv.FormatInt(spec.WindowSizeMs, 10)}, nil
}

// storeKindProperties are the driver's store-kind keys of a case whose
// store is not key-value (the driver's default, which needs none): the
// kind and the kind's own (StoreKindDef.driverProps).
func (c Case) storeKindProperties() map[string]string {
	p := map[string]string{}
	if c.StoreKind.Of() == StoreKeyValue {
		return p
	}
	p[ksdriver.PropStoreKind] = string(c.StoreKind)
	if d := kindDef(c.StoreKind); d.driverProps != nil {
		for k, v := range d.driverProps(c) {
			p[k] = v
		}
	}
	return p
}

// FillProperties are the driver's keys of the case's store kind that its
// fill's spec sets (a window store's window size, a versioned store's key
// count), for an instance restoring that fill; an error naming the case
// when spec lacks what they need.
func (c Case) FillProperties(spec *loadgen.Spec) (map[string]string, error) {
	if d := kindDef(c.StoreKind); d.fillProps != nil {
		return d.fillProps(c, spec)
	}
	return nil, nil
}
