package capacity

import (
	"fmt"
	"sort"
)

// EvidenceDef is what one scenario's records say for the answers (a warm
// restart's rate, the standbys' catch-up, the failovers' gaps, the
// scale-outs, the cleaner's amplification), derived once from an
// Analysis. Each scenario registers its own in its file, beside the
// answerer and RTO row that read it, with a typed accessor on Analysis
// (Analysis.Warm, Analysis.Failover, …): a new scenario adds a file, not a
// field of Analysis.
type EvidenceDef struct {
	// Name identifies the evidence; registering a name twice panics.
	Name string
	// Derive reads it from the analysis: its Obs and Options, and other
	// evidence through their accessors. A nil value and a nil error mean
	// the inputs hold no records of it; an error says why there is none.
	Derive func(a *Analysis) (any, error)
}

// evidenceDefs are the registered evidence kinds by name.
var evidenceDefs = map[string]EvidenceDef{}

// RegisterEvidence registers an evidence kind; a second registration of
// the same name, or one without Derive, panics.
func RegisterEvidence(d EvidenceDef) {
	if d.Name == "" || d.Derive == nil {
		panic("capacity: RegisterEvidence needs a name and a Derive")
	}
	if _, dup := evidenceDefs[d.Name]; dup {
		panic("capacity: evidence " + d.Name + " registered twice")
	}
	evidenceDefs[d.Name] = d
}

// derivedEvidence is one evidence kind's value for an analysis; deriving
// marks one under way, to catch a cycle between kinds.
type derivedEvidence struct {
	value    any
	err      error
	deriving bool
}

// evidence is evidence kind name for a: derived on first ask and kept.
// Analyze derives every kind before it returns, so an Analysis is only
// read afterwards; an Analysis made by hand (tests) derives on demand.
func (a *Analysis) evidence(name string) (any, error) {
	if d, ok := a.derived[name]; ok {
		if d.deriving {
			panic(fmt.Sprintf("capacity: evidence %s derives from itself", name))
		}
		return d.value, d.err
	}
	def, ok := evidenceDefs[name]
	if !ok {
		panic("capacity: no evidence " + name + " registered")
	}
	if a.derived == nil {
		a.derived = map[string]*derivedEvidence{}
	}
	a.derived[name] = &derivedEvidence{deriving: true}
	v, err := def.Derive(a)
	a.derived[name] = &derivedEvidence{value: v, err: err}
	return v, err
}

// evidenceAs is evidence kind name as its type: the zero T when there is
// none.
func evidenceAs[T any](a *Analysis, name string) (T, error) {
	v, err := a.evidence(name)
	t, _ := v.(T)
	return t, err
}

// deriveEvidence derives every registered kind, in name order.
func (a *Analysis) deriveEvidence() {
	names := make([]string, 0, len(evidenceDefs))
	for n := range evidenceDefs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		_, _ = a.evidence(n)
	}
}
