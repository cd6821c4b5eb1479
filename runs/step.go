package runs

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/restorebench/restorebench/config"
)

// StepKind is what one record measured within its scenario's sequence.
// Each kind belongs to one scenario (StepKindsOf), and is declared beside
// that scenario's record type, which registers it (registerRecord).
type StepKind string

// StepRestore is a cold restore: the cold scenario's one step.
const StepRestore StepKind = "restore"

// The cold scenario's record is the Restore's own figures: its one kind
// of step, and no record of its own.
func init() {
	registerRecord(recordDef{scenario: config.ScenarioCold, kinds: []StepKind{StepRestore},
		noExample: "every synthetic run is made of cold restores (capacitytest.Run): the example run of the other scenarios is one of them"})
}

// StepKindsOf lists the kinds of step a scenario's records have, in
// sequence order; a record without a scenario (files from before
// scenarios were recorded) is a cold restore.
func StepKindsOf(sc config.Scenario) []StepKind {
	if sc == "" {
		sc = config.ScenarioCold
	}
	return recordDefs[sc].kinds
}

// IsRate says whether the step wrote at a set rate (a standby's rate
// step, or a step of its search for the highest rate): its lag samples
// judge it.
func (k StepKind) IsRate() bool { return k == StepRate || k == StepMax }

// Step is a record's identity within its run, as fields: the profile case
// it measured, the size of a sweep it ran at, and the step of its
// scenario's sequence with that step's own parameters. The record's Case
// is the same identity as people read it ("warm@256MiB/changed=10000",
// Step.Name); nothing reads a name back.
//
// A parameter belongs to its kind and is zero for the others: Changed to
// StepWarm, Rate to StepRate and StepMax, PauseSeconds to StepPause, Kill
// to StepKill (each registered with its scenario's record: stepDef). Each
// equals its figure in the scenario's record (Check).
type Step struct {
	// Case is the profile case's name ("warm").
	Case string `json:"case"`
	// Size is the label of a size sweep's fill: its size ("256MiB");
	// empty outside one. (Files from before StoreKind put a store-kind
	// sweep's kind here; Load moves it: upgradeStepKinds.)
	Size string `json:"size,omitempty"`
	// StoreKind is a store-kind sweep's fill's kind ("window"); empty
	// outside one. With Size, the fill is that kind at that size.
	StoreKind config.StoreKind `json:"store_kind,omitempty"`
	// Shape is a shape sweep's fill's name ("v8-k8"); empty outside one.
	Shape string   `json:"shape,omitempty"`
	Kind  StepKind `json:"kind"`
	// Changed is the records written while the instance was down
	// (StepWarm; absent for 0).
	Changed int64 `json:"changed,omitempty"`
	// Rate is the write rate the step asked for, records a second
	// (StepRate, StepMax).
	Rate float64 `json:"rate,omitempty"`
	// PauseSeconds is how long the standby was stopped (StepPause).
	PauseSeconds float64 `json:"pause_seconds,omitempty"`
	// Kill is the kill's number in its sequence, from 1 (StepKill).
	Kill int `json:"kill,omitempty"`
}

// Name is the record's case name for the step: the case, "@" and the
// sweep's fill (FillLabel: "256MiB", "window", "256MiB@window"), then "/"
// and the step for the steps of a sequence named
// apart ("warm@256MiB/cold", "warm/changed=10000", "standby/rate=200.4",
// "standby/pause=5s"). Kills of a failover share their case's name: a
// sequence's kills are one case.
func (s Step) Name() string {
	n := s.Case
	if l := s.FillLabel(); l != "" {
		n += "@" + l
	}
	if name := stepDefOf(s.Kind).name; name != nil {
		return n + "/" + name(s)
	}
	return n
}

// FillLabel labels the sweep's fill the step restored: its size, its
// store kind, or both as "<size>@<kind>", or a shape sweep's shape;
// empty outside a sweep.
func (s Step) FillLabel() string {
	l := s.Size
	for _, p := range []string{string(s.StoreKind), s.Shape} {
		switch {
		case p == "":
		case l == "":
			l = p
		default:
			l += "@" + p
		}
	}
	return l
}

// SetStep gives the record its step and the name that step has.
func (r *Restore) SetStep(s Step) {
	r.Step = &s
	r.Case = s.Name()
}

// SetSize places the record at a sweep's size, its store kind kept
// (SetFill).
func (r *Restore) SetSize(size string) {
	if r.Step != nil {
		r.SetFill(size, r.Step.StoreKind)
	}
}

// SetFill places the record at a sweep's fill: its step's Size and
// StoreKind (either may be empty) and its name. It does nothing to a
// record without a step.
func (r *Restore) SetFill(size string, kind config.StoreKind) {
	if r.Step == nil {
		return
	}
	s := *r.Step
	s.Size, s.StoreKind = size, kind
	r.SetStep(s)
}

// SetShape places the record at a shape sweep's fill: its step's Shape
// and its name. It does nothing to a record without a step.
func (r *Restore) SetShape(shape string) {
	if r.Step == nil {
		return
	}
	s := *r.Step
	s.Shape = shape
	r.SetStep(s)
}

// StepKind is the record's kind of step; "" without a step.
func (r Restore) StepKind() StepKind {
	if r.Step == nil {
		return ""
	}
	return r.Step.Kind
}

// ProfileCase is the profile case the record measured (its step's Case):
// the records of one case at every size and step share it. A record
// without a step answers its name.
func (r Restore) ProfileCase() string {
	if r.Step == nil {
		return r.Case
	}
	return r.Step.Case
}

// CaseAtSize names the record's case at its sweep size, without its
// step ("warm@256MiB"): what the steps of one sequence share. A record
// without a step answers its name.
func (r Restore) CaseAtSize() string {
	if r.Step == nil {
		return r.Case
	}
	return Step{Case: r.Step.Case, Size: r.Step.Size, StoreKind: r.Step.StoreKind, Shape: r.Step.Shape}.Name()
}

// SweepSize is the label of the sweep's fill the record restored
// (Step.FillLabel: "1GiB", "window", "1GiB@window"), or "" outside a
// sweep: what tells the fills of a sweep apart.
func (r Restore) SweepSize() string {
	if r.Step == nil {
		return ""
	}
	return r.Step.FillLabel()
}

// checkStep checks the record's step: present, named by the record's
// name, of a kind its scenario records, with its kind's parameters (and
// only those) set as its scenario's record has them.
func (r *Restore) checkStep() error {
	s := r.Step
	if s == nil {
		return fmt.Errorf("no step: a record names its case, size and step (schema 2 on)")
	}
	if s.Case == "" {
		return fmt.Errorf("its step names no case")
	}
	if name := s.Name(); r.Case != name {
		return fmt.Errorf("named %q, but its step (case %q, size %q, store kind %q, shape %q, %s) is named %q",
			r.Case, s.Case, s.Size, s.StoreKind, s.Shape, s.describe(), name)
	}
	if s.StoreKind != "" && s.StoreKind.Of() != r.Params.StoreKind.Of() {
		return fmt.Errorf("its step is a %s store's, but its case restored a %s store", s.StoreKind, r.Params.StoreKind.Of())
	}
	kinds := StepKindsOf(r.Params.Scenario)
	switch {
	case s.Kind == "" && len(kinds) > 1 && r.Failed():
		// A failed step of a schema-1 file whose build named its record
		// only once measured: which step it was is not recorded.
	case !slices.Contains(kinds, s.Kind):
		return fmt.Errorf("step kind %q is not one of the %s scenario's %v", s.Kind, scenarioOf(r.Params), kinds)
	}
	return r.checkStepParams()
}

// scenarioOf is the record's scenario, cold for files that named none.
func scenarioOf(p config.Case) config.Scenario {
	if p.Scenario == "" {
		return config.ScenarioCold
	}
	return p.Scenario
}

// describe says the step's kind with its parameter.
func (s Step) describe() string {
	if param := stepDefOf(s.Kind).param; param != nil {
		return fmt.Sprintf("kind %s, %s", s.Kind, param(s))
	}
	return fmt.Sprintf("kind %q", s.Kind)
}

// checkStepParams checks the step's parameters against its kind and the
// scenario's record.
func (r *Restore) checkStepParams() error {
	s := *r.Step
	want := Step{Case: s.Case, Size: s.Size, StoreKind: s.StoreKind, Shape: s.Shape, Kind: s.Kind}
	if d := stepDefOf(s.Kind); d.param != nil {
		d.keep(s, &want)
		if err := d.check(s); err != nil {
			return err
		}
	}
	if s != want {
		return fmt.Errorf("step %+v carries a parameter its kind %q has not", s, s.Kind)
	}
	return r.checkStepAgainstRecord()
}

// checkStepAgainstRecord checks the step against the scenario records the
// restore carries: each record's own check of the kind and parameter
// (recordDef.checkStep), then that the step is of a kind of each record's
// scenario.
func (r *Restore) checkStepAgainstRecord() error {
	s := *r.Step
	held := r.heldRecords()
	for _, d := range held {
		if d.checkStep == nil {
			continue
		}
		if err := d.checkStep(r, s); err != nil {
			return err
		}
	}
	for _, d := range held {
		if !slices.Contains(d.kinds, s.Kind) {
			return fmt.Errorf("a %s record on a step of kind %q", d.scenario, s.Kind)
		}
	}
	return nil
}

// UnmarshalJSON reads a step, moving a store-kind sweep's kind from its
// Size, where files from before Step.StoreKind put it, to its StoreKind
// (kindFromSize).
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step // without this method
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	s.kindFromSize()
	return nil
}

// kindFromSize moves a store kind's name from the step's Size to its
// StoreKind: a size label is never a kind's name. The step's name stays
// the same.
func (s *Step) kindFromSize() {
	if s.StoreKind == "" && slices.Contains(config.StoreKinds, config.StoreKind(s.Size)) {
		s.StoreKind, s.Size = config.StoreKind(s.Size), ""
	}
}
