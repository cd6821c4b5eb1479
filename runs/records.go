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
}

// recordDefs are the registrations, by scenario (registeredRecords orders
// them as config lists the scenarios).
var recordDefs = map[config.Scenario]recordDef{}

// registerRecord adds scenario d.scenario's record. It panics, when the
// program starts, unless config registers the scenario, on a second
// registration of it, on a scenario without step kinds, and on a step
// kind another scenario's records have: a restore's step kind names its
// scenario.
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
	for sc, o := range recordDefs {
		for _, k := range d.kinds {
			if slices.Contains(o.kinds, k) {
				panic(fmt.Sprintf("runs: step kind %s registered by %s and %s", k, sc, d.scenario))
			}
		}
	}
	recordDefs[d.scenario] = d
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
