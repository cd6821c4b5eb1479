package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/registry"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/runs"
)

// scenarioSection is the report's section for scenarios' measurements,
// registered from the file of the scenario it is named for
// (scenario_<name>.go, beside its summary table): Scenarios names every
// scenario it shows (a standby section also shows failovers; a scale-out
// section rolling restarts), and a scenario's section is found here, not
// by name in Build.
type scenarioSection struct {
	// Order places the section among the scenario sections: lower first,
	// one section an order (the registry is filled from the files' inits,
	// in whatever order they run).
	Order     int
	Scenarios []config.Scenario
	Build     func(*capacity.Analysis) (Section, error)
}

// scenarioSections are the report's scenario sections, in report order.
// Every scenario but cold (whose evidence is the fits and throughput
// sections) appears in exactly one, or declares its figure and has its
// default section (allSections); a test holds that to config's registry.
var scenarioSections = registry.Ordered[scenarioSection]{
	What:  "report: section of",
	Order: func(s scenarioSection) int { return s.Order },
	Name:  func(s scenarioSection) string { return fmt.Sprint(s.Scenarios) },
}

// registerSection adds s in its order. It panics, when the program
// starts, on an order another section has and on a scenario config does
// not register.
func registerSection(s scenarioSection) {
	for _, sc := range s.Scenarios {
		if _, ok := config.ScenarioDefOf(sc); !ok {
			panic(fmt.Sprintf("report: a section of scenario %s, which config does not register", sc))
		}
	}
	scenarioSections.Add(s)
}

// headlineFact gives a scenario's key answers on the summary's cards,
// registered from the scenario's file (registerFact, in report/
// scenario_<name>.go) and shown after the general facts, in order.
type headlineFact struct {
	// order places the facts among the scenarios': lower first, one entry
	// an order (the registry is filled from the files' inits).
	order    int
	scenario config.Scenario
	// facts are its facts, none when the inputs hold no records of it.
	facts func(*capacity.Analysis) []Fact
}

// headlineFacts are the scenarios' facts, in order. Every scenario config
// registers has one entry, declares it has none (declareNoFact) or
// declares its figure and has its default fact (allFacts); a test holds
// that.
var headlineFacts = byScenario("report: headline fact of",
	func(f headlineFact) int { return f.order }, func(f headlineFact) config.Scenario { return f.scenario })

// byScenario is a registry of at most one entry per scenario (scenario
// gives an entry's), placed by order: the summary's tables, the headline
// facts. An entry is named by its scenario in panics.
func byScenario[T any](what string, order func(T) int, scenario func(T) config.Scenario) registry.Ordered[T] {
	return registry.Ordered[T]{
		What:  what,
		Order: order,
		Name:  func(t T) string { return string(scenario(t)) },
		Keys:  func(t T) []string { return []string{string(scenario(t))} },
	}
}

// registerFact adds f in its order. It panics, when the program starts, on
// an order or a scenario another entry has, and on a scenario config does
// not register.
func registerFact(f headlineFact) {
	if _, ok := config.ScenarioDefOf(f.scenario); !ok {
		panic(fmt.Sprintf("report: a headline fact of scenario %s, which config does not register", f.scenario))
	}
	headlineFacts.Add(f)
}

// noFact are the scenarios that declare they have no headline fact, each
// with why (declareNoFact, from the scenario's file).
var noFact = map[config.Scenario]string{}

// declareNoFact records that scenario sc has no headline fact, and why. It
// panics on a scenario config does not register, an empty reason and a
// second declaration.
func declareNoFact(sc config.Scenario, why string) {
	if _, ok := config.ScenarioDefOf(sc); !ok || why == "" {
		panic(fmt.Sprintf("report: scenario %s declares no headline fact without a reason, or is not registered in config", sc))
	}
	if _, dup := noFact[sc]; dup {
		panic(fmt.Sprintf("report: scenario %s declares twice that it has no headline fact", sc))
	}
	noFact[sc] = why
}

// scenarioCharts are the charts of package plots' registry that the
// report shows for scenario s, in registry order.
func scenarioCharts(s config.Scenario) []plots.Chart {
	var out []plots.Chart
	for _, c := range plots.ChartsOf(s) {
		if c.Report {
			out = append(out, c)
		}
	}
	return out
}

// runFigures draws each chart for every run that has data for it, named
// "<chart>-<run label>" so figures of several runs stay apart.
func runFigures(a *capacity.Analysis, charts ...plots.Chart) ([]Block, error) {
	var out []Block
	for _, c := range charts {
		for _, run := range a.Runs {
			f, err := runFigure(run, c)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// runFigure draws one chart of one run; nil when the run has nothing for it.
func runFigure(run *capacity.Run, c plots.Chart) (*Figure, error) {
	p, err := c.Draw(run.Results)
	if errors.Is(err, plots.ErrNotApplicable) || errors.Is(err, plots.ErrNoRestores) || (err == nil && p == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: chart %s of %s: %w", c.Name, run.Label, err)
	}
	svg, err := svgOf(p)
	if err != nil {
		return nil, fmt.Errorf("report: chart %s of %s: %w", c.Name, run.Label, err)
	}
	name := c.Name + "-" + strings.ToLower(run.Label)
	return &Figure{Name: name, Title: c.Title + ", " + run.Label, Caption: c.Caption + " (package plots, " + run.Label + ")", SVG: svg}, nil
}

// restoresWhere lists the restores of every run that keep accepts, with
// their run, in input order.
func restoresWhere(a *capacity.Analysis, keep func(runs.Restore) bool) []runRestore {
	var out []runRestore
	for _, run := range a.Runs {
		for _, r := range run.Results.Restores {
			if keep(r) {
				out = append(out, runRestore{run, r})
			}
		}
	}
	return out
}

// runRestore is a restore and the run it is from.
type runRestore struct {
	run *capacity.Run
	r   runs.Restore
}

// ref cites the restore: "R1 warm@256MiB/changed=0 #2".
func (x runRestore) ref() string { return fmt.Sprintf("%s %s #%d", x.run.Label, x.r.Case, x.r.Repeat) }

// noFigure stands in for a figure a step did not measure.
const noFigure = "–"

// addFigures adds the figures of every run for the charts of scenario sc
// (runFigures of scenarioCharts) to the section.
func (s *Section) addFigures(a *capacity.Analysis, sc config.Scenario) error {
	figs, err := runFigures(a, scenarioCharts(sc)...)
	s.Blocks = append(s.Blocks, figs...)
	return err
}

// groupRecords groups restores by run and record name, in first-seen order.
func groupRecords(recs []runRestore) [][]runRestore {
	var out [][]runRestore
	index := map[string]int{}
	for _, x := range recs {
		k := x.run.Label + "\x00" + x.r.Case
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], x)
	}
	return out
}

// verifiedOf are the repeats of g that count (verified, no error).
func verifiedOf(g []runRestore) []runRestore {
	var out []runRestore
	for _, x := range g {
		if x.r.Counts() {
			out = append(out, x)
		}
	}
	return out
}

// totals are the repeats' times to ready (runs.Restore.TimeToReady), of
// those that measured a restore.
func totals(g []runRestore) []float64 {
	var out []float64
	for _, x := range g {
		if t, ok := x.r.TimeToReady(); ok {
			out = append(out, t)
		}
	}
	return out
}

// durations are the repeats' restore phases (runs.Restore.RestoreSeconds),
// of those that measured a restore.
func durations(g []runRestore) []float64 {
	var out []float64
	for _, x := range g {
		if d, ok := x.r.RestoreSeconds(); ok {
			out = append(out, d)
		}
	}
	return out
}

// restoreSeconds is the record's restore phase in seconds as format
// writes it, or noFigure when the record measured no restore.
func restoreSeconds(r runs.Restore, format string) string {
	if d, ok := r.RestoreSeconds(); ok {
		return fmt.Sprintf(format, d)
	}
	return noFigure
}

// refsOf cites a group of repeats: "#1,2,3".
func refsOf(g []runRestore) string {
	reps := make([]string, len(g))
	for i, x := range g {
		reps[i] = fmt.Sprint(x.r.Repeat)
	}
	return "#" + strings.Join(reps, ",")
}

// perSec writes a rate in records a second with separators: "80,000".
func perSec(x float64) string { return thousands(int64(x + 0.5)) }

// secondsRange is "min–max" of xs in seconds.
func secondsRange(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f–%.2f", runs.Min(xs), runs.Max(xs))
}
