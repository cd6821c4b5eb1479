package runs

import (
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
)

// ExampleKit makes what every scenario's example records share: the
// synthetic results the planner's and the report's tests read
// (capacitytest.ScenarioRun) implement it, and each scenario's record file
// registers its example (recordDef.example) built with it, so the records
// a new scenario adds to that run are written beside its record type, not
// in a list of the test package.
type ExampleKit interface {
	// Case is a case named name of scenario s on engine e, with the
	// scenario's default settings.
	Case(name string, s config.Scenario, e config.Engine) config.Case
	// Record is a verified record of step s, repeat rep of case p, its
	// time to ready seconds, reading records records of bytes bytes.
	Record(s Step, rep int, p config.Case, seconds float64, records, bytes int64) Restore
	// Noise multiplies repeat rep's time (1-based): a few percent.
	Noise(rep int) float64
	// Fill is the run's fill, Start when it started, RecordBytes the size
	// of one of its records.
	Fill() *Fill
	Start() time.Time
	RecordBytes() int64
}

// Examples are the example records of every scenario that registers one,
// made with kit, in config's scenario order.
func Examples(kit ExampleKit) []Restore {
	var out []Restore
	for _, d := range registeredRecords() {
		if d.example != nil {
			out = append(out, d.example(kit)...)
		}
	}
	return out
}

// ExampleOf says whether scenario sc registers example records, and if
// not, the reason its registration gives; an error when it gives neither
// or both, or registers no record.
func ExampleOf(sc config.Scenario) (has bool, why string, err error) {
	d, ok := recordDefs[sc]
	switch {
	case !ok:
		return false, "", fmt.Errorf("scenario %s registers no record", sc)
	case d.example == nil && d.noExample == "":
		return false, "", fmt.Errorf("scenario %s registers no example records: give its registerRecord an example, or a noExample saying why it has none", sc)
	case d.example != nil && d.noExample != "":
		return false, "", fmt.Errorf("scenario %s registers example records and a reason it has none", sc)
	}
	return d.example != nil, d.noExample, nil
}

// exampleStep is case p's step of kind k, with no parameter.
func exampleStep(p config.Case, k StepKind) Step { return Step{Case: p.Name, Kind: k} }
