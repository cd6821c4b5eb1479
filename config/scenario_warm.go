package config

import (
	"fmt"
	"slices"

	"github.com/restorebench/restorebench/recovery"
)

// ScenarioWarm is a restart with the state directory kept (a persistent
// volume): records are written while the instance is down, and it
// restores only those, from the offsets its stores committed.
const ScenarioWarm Scenario = "warm"

func init() { registerScenario(warmDef) }

// warmDef registers the warm scenario.
var warmDef = ScenarioDef{
	Queries:   true,
	Name:      ScenarioWarm,
	KindNeeds: []KindCap{CapRestore, CapReopen},
	Order:     20,
	Engines:   []Engine{EngineModel, EngineKafkaStreams},
	PutOnly:   true,
	// Its one instance restarts: i0, the active one.
	Roles:          []string{RoleActive},
	RoleOf:         activeFirst,
	OnAgents:       true,
	SingleInstance: true,
	ModelOnAgents:  true,
	KindGaps: []KindGap{
		{Kind: "session", Why: "bench's TestWarmRestartOfEachStoreKind runs it"},
	},
	Settings: settingsOf[WarmSettings]{
		key:      "warm",
		field:    func(c *Case) **WarmSettings { return &c.Warm },
		defaults: DefaultWarm,
		check:    checkWarm,
		deepCopy: func(dst, src *WarmSettings) { dst.Changed = append([]Count(nil), src.Changed...) },
	},
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
	// Stop is how the instance ends before each restart: "clean" (the
	// default: Kafka Streams closes, flushing its stores and writing their
	// offsets) or "kill" (SIGKILL once it restored and was verified, as a
	// crashed pod: the restart finds whatever offsets and store files were
	// durable, a .checkpoint before 4.3, the store's own offsets from 4.3,
	// KIP-1035; under exactly-once a wiped store). On the model engine a
	// kill is emulated by the default Kafka Streams version's crash rule
	// for a crash right after a restore (recovery.AfterCrash: on 4.4.0 the
	// stores restore whole under either guarantee, as measured), which
	// each record names (crash_rule); not on agents. "" (settings
	// from before it existed) is clean.
	Stop WarmStop `json:"stop,omitempty" yaml:"stop"`
	// CrashRule is, on the model engine with stop kill, the Kafka Streams
	// version whose crash rule the emulated kill follows (one of
	// recovery.Versions: 3.9.1 resumes from the restore's checkpoint, 4.4.0
	// restores whole). Default "": the driver's default version, 4.4.0.
	// Not on kafka-streams cases, whose kill crashes the real client of
	// their kafka_streams_version.
	CrashRule string `json:"crash_rule,omitempty" yaml:"crash_rule"`
}

// CrashRuleVersion is the Kafka Streams version whose crash rule a model
// case's kill follows: crash_rule, else the driver's default version.
func (s *WarmSettings) CrashRuleVersion() string {
	if s.CrashRule != "" {
		return s.CrashRule
	}
	return DriverKafkaStreamsVersion
}

// Kills reports whether the instance is killed before each restart.
func (s *WarmSettings) Kills() bool { return s.Stop == WarmStopKill }

// WarmStop is how a warm-restart case's instance ends before a restart.
type WarmStop string

const (
	// WarmStopClean closes Kafka Streams cleanly (KafkaStreams#close).
	WarmStopClean WarmStop = "clean"
	// WarmStopKill ends the instance's process with SIGKILL.
	WarmStopKill WarmStop = "kill"
)

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
			return fieldErr(fmt.Sprintf("warm.changed[%d]", i), "%d records is over %d times the fill's %s%d records (at most "+
				"%d: past that a warm restart measures the producer, not the restart)",
				n.N, MaxWarmChangedFactor, approx, records, bound)
		}
	}
	return nil
}

// DefaultWarm returns the warm scenario's defaults.
func DefaultWarm() *WarmSettings {
	return &WarmSettings{Changed: []Count{{N: 0}, {N: 10_000}, {N: 100_000}, {N: 1_000_000}, {Percent: 10}}, Fallback: true, Stop: WarmStopClean}
}

// checkWarm validates a warm case's settings.
func checkWarm(c Case, w *WarmSettings) error {
	switch {
	case w.Stop != "" && w.Stop != WarmStopClean && w.Stop != WarmStopKill:
		return fieldErr("warm.stop", "%q is not clean or kill", w.Stop)
	}
	if err := checkCrashRule(c, w); err != nil {
		return err
	}
	seen := map[Count]int{}
	for i, n := range w.Changed {
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
	if len(w.Changed) == 0 {
		return fieldErr("warm.changed", "want at least one count of records to change")
	}
	if len(w.Changed) > maxSteps {
		return fieldErr("warm.changed", "%d counts is over %d", len(w.Changed), maxSteps)
	}
	if w.Rate < 0 {
		return fieldErr("warm.rate", "%v is negative", w.Rate)
	}
	return checkRate("warm.rate", w.Rate)
}

// checkCrashRule validates warm.crash_rule: only on the model engine with
// stop kill, a version with a rule for the case's guarantee and
// transactional setting; and a model kill's rule must exist.
func checkCrashRule(c Case, w *WarmSettings) error {
	if w.CrashRule != "" {
		switch {
		case c.Engine != EngineModel:
			return fieldErr("warm.crash_rule", "%s: the %s engine crashes the real client of its kafka_streams_version; "+
				"crash_rule names the rule the model engine emulates", w.CrashRule, c.Engine)
		case !w.Kills():
			return fieldErr("warm.crash_rule", "%s is set only with stop: kill", w.CrashRule)
		}
	}
	if c.Engine != EngineModel || !w.Kills() {
		return nil
	}
	if _, err := recovery.AfterCrash(w.CrashRuleVersion(), c.ProcessingGuarantee(), c.TransactionalStateStores(), recovery.AfterRestore); err != nil {
		return fieldErr("warm.crash_rule", "%v", err)
	}
	return nil
}
