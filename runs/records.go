package runs

import (
	"fmt"
	"slices"

	"github.com/restorebench/restorebench/config"
)

// recordDef is one scenario's part of a restore record, registered once
// from the file that defines the scenario's record type (warm.go registers
// WarmRecord, failover.go FailoverRecord, ...): the kinds of step its
// records have, and how to tell a restore that carries its record. Step
// checks, IsCold, Scenario, StepKindsOf and redaction walk the
// registrations; none lists the scenarios' records itself.
type recordDef struct {
	scenario config.Scenario
	// kinds are the kinds of step the scenario's records have, in
	// sequence order.
	kinds []StepKind
	// holds says whether a restore carries the scenario's record (its
	// Restore field is set); nil for a scenario without a record of its
	// own (cold: the Restore's own figures are its record).
	holds func(r *Restore) bool
	// checkStep checks the record against the restore's step (the kind and
	// the parameter both say); nil when the step carries nothing the
	// record repeats. It is called only on a restore that holds the record.
	checkStep func(r *Restore, s Step) error
	// redact returns the restore with the record's property maps (and its
	// case's settings' maps) through config.Redact, copying what it
	// changes; nil when the record has none.
	redact func(x Restore) Restore
	// headline, when set, is the one figure the scenario's records are
	// measured by: they are not restores, and carry no restore figures.
	headline *Headline
	// figure, when set, is the one figure a simple scenario's records are
	// read by, from which report and plots derive the views the scenario
	// does not register of its own (DeclaredFigure, figure.go).
	figure *DeclaredFigure
	// steps are the kinds' own naming and parameter, for the kinds that
	// have either; a kind not here is named by its case alone and has no
	// parameter (a cold restore, a scale-out).
	steps map[StepKind]stepDef
	// following are the kinds of step whose records measure a standby
	// following writes (their seconds the step's, their rate the records
	// applied a second), not a restore.
	following []StepKind
	// example makes the scenario's example records, for the synthetic
	// results the planner's and the report's tests read (Examples);
	// noExample, when it has none, says why. A scenario gives one or the
	// other (a test holds that, ExampleOf).
	example   func(kit ExampleKit) []Restore
	noExample string
}

// stepDef is one kind of step's part of its record's name and its own
// parameter, registered with its scenario's record: Step.Name, the step
// checks and error texts ask it, and no code outside the scenario's file
// lists which kind carries which parameter.
type stepDef struct {
	// name is the step's part of the record's name, after "/" ("cold",
	// "changed=10000"); nil for a kind its case's name alone names (a
	// failover's kills share their case's name).
	name func(s Step) string
	// param is the kind's parameter as an error text tells it ("changed
	// 10000"); nil for a kind without one (and then keep and check are
	// nil too).
	param func(s Step) string
	// keep copies the parameter from a step to another; check says
	// whether its value is one a measurement gives.
	keep  func(from Step, to *Step)
	check func(s Step) error
}

// stepDefOf is the registration of step kind k's naming and parameter;
// the zero stepDef for a kind with neither.
func stepDefOf(k StepKind) stepDef {
	d, _ := kindDef(k)
	return d.steps[k]
}

// kindName names a step by its kind alone ("cold", "initial").
func kindName(s Step) string { return string(s.Kind) }

// Headline is the figure a scenario's records are measured by when they
// are not restores: a failover kill's longest processing gap, a
// scale-out's warmup assignment time, a rolling restart's downtime. Since
// schema 3 such records carry no restore figures (since schema 4 no
// restore phase, Restore.Phase), and compare, summary and capacity read
// the headline through Restore.Headline or Restore.Gap, never through a
// restore's field.
type Headline struct {
	// Label names the figure for people, with its unit: "gap s (longest
	// task)".
	Label string
	// seconds reads it from a record that holds the scenario's record.
	seconds func(r *Restore) float64
}

// recordDefs are the registrations, by scenario (registeredRecords orders
// them as config lists the scenarios).
var recordDefs = map[config.Scenario]recordDef{}

// registerRecord adds scenario d.scenario's record. It panics, when the
// program starts, unless config registers the scenario, on a second
// registration of it, on a scenario without step kinds, on a declared
// figure lacking one of its parts, on a step parameter of a kind it does
// not list or registered in part, and on a step kind another scenario's
// records have: a restore's step kind names its scenario.
func registerRecord(d recordDef) {
	if _, ok := config.ScenarioDefOf(d.scenario); !ok {
		panic(fmt.Sprintf("runs: record of %s registered: config registers no such scenario", d.scenario))
	}
	if _, dup := recordDefs[d.scenario]; dup {
		panic(fmt.Sprintf("runs: record of %s registered twice", d.scenario))
	}
	if len(d.kinds) == 0 {
		panic(fmt.Sprintf("runs: record of %s registered without step kinds", d.scenario))
	}
	if d.figure != nil {
		if err := d.figure.check(d.scenario); err != nil {
			panic(err.Error())
		}
	}
	for k, s := range d.steps {
		if !slices.Contains(d.kinds, k) {
			panic(fmt.Sprintf("runs: record of %s registers step kind %s's parameter, but not the kind", d.scenario, k))
		}
		if (s.param == nil) != (s.keep == nil) || (s.param == nil) != (s.check == nil) {
			panic(fmt.Sprintf("runs: record of %s registers step kind %s's parameter without its text, copy and check", d.scenario, k))
		}
	}
	for sc, o := range recordDefs {
		for _, k := range d.kinds {
			if slices.Contains(o.kinds, k) {
				panic(fmt.Sprintf("runs: step kind %s registered by %s and %s", k, sc, d.scenario))
			}
		}
	}
	recordDefs[d.scenario] = d
}

// kindDef is the registration whose records have step kind k; false for
// a kind none registers.
func kindDef(k StepKind) (recordDef, bool) {
	for _, d := range recordDefs {
		if slices.Contains(d.kinds, k) {
			return d, true
		}
	}
	return recordDef{}, false
}

// HeadlineOf is the headline of the scenario whose records have step kind
// k; false when they are restores.
func HeadlineOf(k StepKind) (Headline, bool) {
	if d, ok := kindDef(k); ok && d.headline != nil {
		return *d.headline, true
	}
	return Headline{}, false
}

// IsRestore reports whether a record of step kind k is a restore, its
// restore figures meaning what their names say: false for a scenario
// measured by its headline and for a standby's following steps. A record
// without a step ("") is a restore, as in files from before steps.
func (k StepKind) IsRestore() bool {
	if k == "" {
		return true
	}
	d, ok := kindDef(k)
	return ok && d.headline == nil && !slices.Contains(d.following, k)
}

// Headline is the headline figure of the record's scenario, and its value
// in seconds; false for a restore, and for a record holding no
// measurement of its scenario (a step that failed before it measured).
func (r Restore) Headline() (Headline, float64, bool) {
	d := recordDefs[r.Scenario()]
	if d.headline == nil || d.holds == nil || !d.holds(&r) {
		return Headline{}, 0, false
	}
	return *d.headline, d.headline.seconds(&r), true
}

// measuredByHeadline reports whether the record's scenario is measured by
// a headline: its records are not restores.
func (r *Restore) measuredByHeadline() bool { return recordDefs[r.Scenario()].headline != nil }

// restoreFigure is one of the figures only a restore has, by its JSON
// name, with the most a measurement of it gives.
type restoreFigure struct {
	name  string
	value *float64
	max   float64
}

// registeredRecords are the registrations in config's scenario order.
func registeredRecords() []recordDef {
	var out []recordDef
	for _, sc := range config.Scenarios {
		if d, ok := recordDefs[sc]; ok {
			out = append(out, d)
		}
	}
	return out
}

// heldRecord is the registration of the scenario record r carries (the
// first in config's scenario order); false when it carries none.
func (r *Restore) heldRecord() (recordDef, bool) {
	if held := r.heldRecords(); len(held) > 0 {
		return held[0], true
	}
	return recordDef{}, false
}

// heldRecords are the registrations of every scenario record r carries, in
// config's scenario order: one in a record this tool wrote.
func (r *Restore) heldRecords() []recordDef {
	var out []recordDef
	for _, d := range registeredRecords() {
		if d.holds != nil && d.holds(r) {
			out = append(out, d)
		}
	}
	return out
}

// Scenario is the scenario the record measured: the one whose record it
// carries (a warm restart's WarmRecord, a kill's FailoverRecord, ...), else
// its case's (a failed step's record can carry none), else, in files that
// name none, cold.
func (r Restore) Scenario() config.Scenario {
	if d, ok := r.heldRecord(); ok {
		return d.scenario
	}
	return scenarioOf(r.Params)
}
