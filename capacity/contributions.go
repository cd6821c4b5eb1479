package capacity

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/registry"
)

// contribution is a kind of thing a scenario gives the planner beside its
// answers (registerAnswerer): each is a registration from the file that
// computes it.
type contribution string

const (
	// contribRTORow is a row of the RTO table (registerRTORow, rto.go).
	contribRTORow contribution = "RTO row"
	// contribRecommendation is a piece of advice (registerRecommendation,
	// recommend.go).
	contribRecommendation contribution = "recommendation"
	// contribUnknown is a line of what the inputs cannot tell
	// (registerUnknown, analysis.go).
	contribUnknown contribution = "unknown"
)

// contributions are every kind, in the order a test checks them.
var contributions = []contribution{contribRTORow, contribRecommendation, contribUnknown}

// lacks are the contributions a scenario declares it does not make, each
// with why. Every scenario config registers makes each contribution (a
// registration naming it) or declares here that it lacks it; a test holds
// that, so a new scenario that forgets its RTO row fails it rather than
// dropping out of the table silently.
var lacks = map[config.Scenario]map[contribution]string{}

// declareLacks records, from the init of the scenario's file, that sc
// makes none of contribution c, and why. It panics, when the program
// starts, on a scenario config does not register, on a second declaration
// and on an empty reason.
func declareLacks(sc config.Scenario, c contribution, why string) {
	if _, ok := config.ScenarioDefOf(sc); !ok {
		panic(fmt.Sprintf("capacity: scenario %s, which config does not register, declares it lacks a %s", sc, c))
	}
	if why == "" {
		panic(fmt.Sprintf("capacity: scenario %s declares it lacks a %s without saying why", sc, c))
	}
	if _, dup := lacks[sc][c]; dup {
		panic(fmt.Sprintf("capacity: scenario %s declares twice that it lacks a %s", sc, c))
	}
	if lacks[sc] == nil {
		lacks[sc] = map[contribution]string{}
	}
	lacks[sc][c] = why
}

// placed is what the planner's registrations share (answerers, RTO rows,
// recommenders, unknowns): a place among their kind, lower first, and the
// scenarios whose records they read.
type placed interface {
	place() (order int, scenarios []config.Scenario)
}

// byScenario is the ordered registry of one kind of registration, what
// naming the kind in a clash's panic ("capacity: the RTO row of"), each
// entry placed by its order and named by its scenarios.
func byScenario[T placed](what string) registry.Ordered[T] {
	return registry.Ordered[T]{
		What:  what,
		Order: func(t T) int { o, _ := t.place(); return o },
		Name:  func(t T) string { _, s := t.place(); return fmt.Sprint(s) },
	}
}

// register adds t to r in its order. It panics, when the program starts,
// on an order another entry has, and on t reading a scenario config does
// not register, or none unless general (a registration about the inputs
// as a whole, such as an unknown of the broker's).
func register[T placed](r *registry.Ordered[T], what string, t T, general bool) {
	order, scenarios := t.place()
	if !general || len(scenarios) > 0 {
		checkScenarios(what, order, scenarios)
	}
	r.Add(t)
}

// checkScenarios panics, when the program starts, on a registration (what,
// of order) naming no scenario or one config does not register.
func checkScenarios(what string, order int, scenarios []config.Scenario) {
	if len(scenarios) == 0 {
		panic(fmt.Sprintf("capacity: %s of order %d reads no scenario", what, order))
	}
	for _, sc := range scenarios {
		if _, ok := config.ScenarioDefOf(sc); !ok {
			panic(fmt.Sprintf("capacity: %s of order %d reads scenario %s, which config does not register", what, order, sc))
		}
	}
}

// Rolling restarts have no file here: they answer no capacity question
// yet (their downtime is in the report's scale-out section).
func init() {
	const why = "rolling restarts answer no capacity question yet: their downtime is in the report's scale-out section"
	for _, c := range contributions {
		declareLacks(config.ScenarioRolling, c, why)
	}
}
