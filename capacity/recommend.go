package capacity

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// RunComparison is one run's cold-restore cases compared with its
// baseline by package compare: medians, spread and significance verdicts
// come from there. A size sweep's run is compared size by size, and a run
// of both engines engine by engine: the engine is not a setting a user
// picks, and the model against Kafka Streams is the calibration's matter.
type RunComparison struct {
	Run *Run
	// Size is the sweep size compared ("1GiB"), "" for a run of one fill.
	Size string
	// Engine is the engine whose cases are compared; Mixed says the run
	// restored on both, so the label names it.
	Engine config.Engine
	Mixed  bool
	// Restores are the cold restores compared (of Size, in a sweep).
	Restores []runs.Restore
	// Baseline is the case compared against: the first with Kafka Streams'
	// default settings (IsDefault), else the first case.
	Baseline  string
	IsDefault bool
	// Comparison is nil when there is a single case.
	Comparison *compare.Comparison
}

// Label names the comparison: "R1", or "R1@1GiB" in a sweep.
func (rc *RunComparison) Label() string {
	l := rc.Run.Label
	if rc.Size != "" {
		l += "@" + rc.Size
	}
	if rc.Mixed {
		l += " (" + string(rc.Engine) + ")"
	}
	return l
}

// FileKey names the comparison in file names: the label's parts in lower
// case joined by "-" ("r1-1gib-model"), without the spaces and brackets
// Label shows.
func (rc *RunComparison) FileKey() string {
	parts := []string{rc.Run.Label}
	if rc.Size != "" {
		parts = append(parts, rc.Size)
	}
	if rc.Mixed {
		parts = append(parts, string(rc.Engine))
	}
	return strings.ToLower(strings.Join(parts, "-"))
}

// Results are the run's results holding only the compared restores, for
// the functions that take a whole run (compare, plots).
func (rc *RunComparison) Results() *runs.Results {
	res := *rc.Run.Results
	res.Restores = rc.Restores
	return &res
}

// compareRuns compares each run's cold-restore cases with its baseline,
// each size of a sweep apart: a case at 2 GB against the defaults at
// 256 MB says nothing. Other scenarios have their own sections.
func compareRuns(rs []*Run) []*RunComparison {
	var out []*RunComparison
	for _, run := range rs {
		groups := coldBySize(run.Results.Restores)
		mixed := bothEngines(groups)
		for _, g := range groups {
			rc := &RunComparison{Run: run, Size: g.size, Engine: g.engine, Mixed: mixed, Restores: g.restores}
			names := runs.CaseNames(g.restores)
			rc.Baseline = names[0]
			for _, c := range runs.GroupByCase(g.restores) {
				if IsKafkaStreamsDefault(c.Restores[0].Params) {
					rc.Baseline, rc.IsDefault = c.Case, true
					break
				}
			}
			if len(names) > 1 {
				rc.Comparison, _ = compare.CompareRunCases(rc.Results(), rc.Label(), rc.Baseline)
			}
			out = append(out, rc)
		}
	}
	return out
}

// sizeGroup is the cold restores of one sweep size on one engine.
type sizeGroup struct {
	size     string
	engine   config.Engine
	restores []runs.Restore
}

// bothEngines says whether the groups hold both engines' restores.
func bothEngines(gs []sizeGroup) bool {
	for _, g := range gs {
		if g.engine != gs[0].engine {
			return true
		}
	}
	return false
}

// coldBySize groups the cold restores by sweep size and engine, in
// first-seen order.
func coldBySize(restores []runs.Restore) []sizeGroup {
	var out []sizeGroup
	index := map[string]int{}
	for _, r := range restores {
		if r.Params.Scenario != config.ScenarioCold && r.Params.Scenario != "" {
			continue
		}
		size, engine := r.SweepSize(), runs.EngineOf(r.Params)
		key := size + "|" + string(engine)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, sizeGroup{size: size, engine: engine})
		}
		out[i].restores = append(out[i].restores, r)
	}
	return out
}

// Win is a case faster to ready than its run's baseline, with compare's
// verdict on the time-to-ready difference.
type Win struct {
	Run  *RunComparison
	Row  compare.CaseRow
	Diff compare.MetricDiff
}

// Fastest is the case with the lowest median time to ready among the rows
// keep accepts, when it is below the baseline's median; nil otherwise.
func (rc *RunComparison) Fastest(keep func(config.Case) bool) *Win {
	if rc.Comparison == nil {
		return nil
	}
	var best *Win
	for _, row := range rc.Comparison.Rows {
		d := metric(row, compare.MetricTotalSeconds)
		if row.Other.Verified == 0 || d.Other.N == 0 || d.Base.N == 0 || !keep(row.Other.Params) {
			continue
		}
		if best == nil || d.Other.Median < best.Diff.Other.Median {
			best = &Win{Run: rc, Row: row, Diff: d}
		}
	}
	if best == nil || best.Diff.Other.Median >= best.Diff.Base.Median {
		return nil
	}
	return best
}

// undecidable is the time-to-ready comparison of the first row keep
// accepts whose repeats could not show a difference whatever they measured
// (compare.CanDecide); nil when every such row could. A verdict that the
// baseline stays fastest rests on rows that could have said otherwise.
func (rc *RunComparison) undecidable(keep func(config.Case) bool) *compare.MetricDiff {
	for _, row := range rc.Comparison.Rows {
		d := metric(row, compare.MetricTotalSeconds)
		if row.Other.Verified > 0 && keep(row.Other.Params) && !compare.CanDecide(d.Base.N, d.Other.N) {
			return &d
		}
	}
	return nil
}

func metric(row compare.CaseRow, m compare.Metric) compare.MetricDiff {
	for _, d := range row.Metrics {
		if d.Metric == m {
			return d
		}
	}
	return compare.MetricDiff{Metric: m}
}

// ProfileCase is the profile case that won: its records' step's case, the
// same at every size of a sweep.
func (w *Win) ProfileCase() string {
	for _, r := range w.Run.Restores {
		if r.Case == w.Row.Case {
			return r.ProfileCase()
		}
	}
	return w.Row.Case
}

// Evidence cites the win: "R3: threads-2 −21.3% time to ready vs
// kstreams-default (exceeds spread, better, p=0.029)".
func (w *Win) Evidence() string {
	return fmt.Sprintf("%s: %s %+.1f%% time to ready vs %s (%s; %s → %s)", w.Run.Label(), w.Row.Case, w.Diff.ChangePct, w.Row.BaseCase,
		w.Diff.VerdictText(), FormatSeconds(w.Diff.Base.Median), FormatSeconds(w.Diff.Other.Median))
}

// Settable reports whether Kafka Streams can restore as c does: the put
// path into RocksDB, with any threads, poll size or RocksDB options
// (RocksDBConfigSetter). Bulk loading was removed (KAFKA-10005) and SST
// ingestion does not exist there; an in-memory store is another store type.
func Settable(c config.Case) bool {
	return c.Strategy == config.StrategyPut && c.Store != config.StoreMemory
}

// anyCase accepts every case: for the upper bound over all strategies.
func anyCase(config.Case) bool { return true }

// Recommendation is one piece of advice and the evidence it rests on.
type Recommendation struct {
	Title, Text string
	// Short and ShortDetail are the advice in a few words for a summary,
	// e.g. "threads-2" and "18% less time to ready than the defaults, …";
	// empty when there is none.
	Short, ShortDetail string
	// Case is the case recommended, if any.
	Case     string
	Evidence []string
}

// recommendations are the report's advice, each tied to its evidence.
func recommendations(a *Analysis) []Recommendation {
	var out []Recommendation
	settable := fastestRecommendation(a.Comparisons, Settable,
		"Fastest configuration you can set in Kafka Streams", "setting you can change in Kafka Streams")
	out = append(out, settable)
	// The upper bound is worth a line only when a strategy Kafka Streams
	// lacks beats what it can be told to do.
	if up := fastestRecommendation(a.Comparisons, anyCase, "Upper bound: fastest of all strategies", "strategy"); up.Case != "" && up.Case != settable.Case {
		out = append(out, up)
	}
	for _, r := range recommenders.All() {
		if rec, ok := r.recommend(a); ok {
			out = append(out, rec)
		}
	}
	return out
}

// recommender gives a scenario's advice, registered from the init of the
// file that computes it (registerRecommendation): the partitions here,
// the standbys in standby.go, the cleaner settings in compaction.go. The
// fastest settable case and the upper bound, which every run's cold
// restores answer, come first in recommendations.
type recommender struct {
	// order places the advice after the fastest cases and among the
	// others: lower first, one recommender an order.
	order int
	// scenarios are the scenarios whose records the advice reads.
	scenarios []config.Scenario
	// recommend gives the advice; false when it has none to give.
	recommend func(a *Analysis) (Recommendation, bool)
}

// recommenders are the scenarios' advice, in order. Every scenario config
// registers has one or declares it has none (declareLacks); a test holds
// that.
var recommenders = byScenario[recommender]("capacity: the recommendation of")

func (r recommender) place() (int, []config.Scenario) { return r.order, r.scenarios }

// registerRecommendation adds r in its order. It panics, when the program
// starts, on an order another recommender has, and on one reading no
// scenario or one config does not register.
func registerRecommendation(r recommender) { register(&recommenders, "the recommendation", r, false) }

// always is a recommendation given whatever the inputs.
func always(f func(a *Analysis) Recommendation) func(a *Analysis) (Recommendation, bool) {
	return func(a *Analysis) (Recommendation, bool) { return f(a), true }
}

// The partitions, from the cold-restore row, come first.
func init() {
	registerRecommendation(recommender{order: 10, scenarios: []config.Scenario{config.ScenarioCold}, recommend: always(partitionRecommendation)})
}

// fastestRecommendation names the case that most often beat the defaults
// by more than the spread, with its margins; or says that none did. Every
// compared run is cited, also those where the defaults stayed fastest.
func fastestRecommendation(rcs []*RunComparison, keep func(config.Case) bool, title, what string) Recommendation {
	rec := Recommendation{Title: title}
	wins := map[string][]*Win{}
	var order []string
	compared := 0
	var undecided []*Win         // faster with disjoint ranges, but too few repeats to decide
	var thin *compare.MetricDiff // the first comparison whose repeats could not decide whatever happened
	for _, rc := range rcs {
		if !rc.IsDefault || rc.Comparison == nil {
			continue
		}
		compared++
		if d := rc.undecidable(keep); d != nil && thin == nil {
			thin = d
		}
		w := rc.Fastest(keep)
		if w == nil {
			rec.Evidence = append(rec.Evidence, fmt.Sprintf("%s: no %s restored faster than %s", rc.Label(), what, rc.Baseline))
			continue
		}
		rec.Evidence = append(rec.Evidence, w.Evidence())
		if w.Diff.Verdict == compare.VerdictDisjointFewRepeats {
			undecided = append(undecided, w)
		}
		if name := w.ProfileCase(); w.Diff.Significant() {
			if _, ok := wins[name]; !ok {
				order = append(order, name)
			}
			wins[name] = append(wins[name], w)
		}
	}
	unit := comparisonUnit(rcs)
	switch {
	case compared == 0:
		rec.Text = "No run compares other settings with Kafka Streams' defaults: add a case with the defaults (e.g. `- " +
			"name: kstreams-default`) next to the settings to try."
		rec.Evidence = nil
	case len(order) == 0 && len(undecided) > 0:
		w := undecided[0]
		rec.Text = fmt.Sprintf("Inconclusive: %s restored faster than Kafka Streams' defaults with ranges that do not "+
			"overlap in %d of %s, but with %d and %d repeats that happens by chance with p = %.2f at best "+
			"(the test needs p ≤ %.2f): run with at least %d repeats per case to decide. Nothing here "+
			"shows the defaults are the fastest.",
			w.ProfileCase(), len(undecided), Plural(compared, unit), w.Diff.Base.N, w.Diff.Other.N, w.Diff.P, compare.SpreadAlpha, compare.RepeatsToDecide())
		rec.Short, rec.ShortDetail = "inconclusive", fmt.Sprintf("%s looked faster, but needs %d repeats per case to decide",
			w.ProfileCase(), compare.RepeatsToDecide())
	case len(order) == 0 && thin != nil:
		rec.Text = fmt.Sprintf("Inconclusive: no %s restored faster than Kafka Streams' defaults beyond the run-to-run spread, "+
			"but with %d and %d repeats no difference could reach p ≤ %.2f whatever was measured: run with at least %d "+
			"repeats per case to decide. Nothing here shows the defaults are the fastest.",
			what, thin.Base.N, thin.Other.N, compare.SpreadAlpha, compare.RepeatsToDecide())
		rec.Short, rec.ShortDetail = "inconclusive", fmt.Sprintf("needs %d repeats per case to decide", compare.RepeatsToDecide())
	case len(order) == 0:
		rec.Text = fmt.Sprintf("No %s restored faster than Kafka Streams' defaults by more than the run-to-run spread in "+
			"any of %s; keep the defaults.", what, Plural(compared, unit))
		rec.Short, rec.ShortDetail = "Kafka Streams' defaults", "nothing beat them beyond the spread in "+Plural(compared, unit)
	default:
		sort.SliceStable(order, func(i, j int) bool { return len(wins[order[i]]) > len(wins[order[j]]) })
		best := wins[order[0]]
		lo, hi := best[0].Diff.ChangePct, best[0].Diff.ChangePct
		for _, w := range best {
			lo, hi = min(lo, w.Diff.ChangePct), max(hi, w.Diff.ChangePct)
		}
		// Counted against the comparisons that restored the case: a
		// model-only strategy has no restore in a run's kafka-streams
		// group (a confirmation), which neither confirms nor contradicts it.
		tried := triedIn(rcs, order[0])
		rec.Case = order[0]
		rec.Short = order[0]
		rec.ShortDetail = fmt.Sprintf("%s time to ready than the defaults, beyond the spread in %d of %d %ss", marginText(lo, hi), len(best), tried, unit)
		rec.Text = fmt.Sprintf("%s (%s): %s.", order[0], Describe(best[0].Row.Other.Params), rec.ShortDetail)
		if 2*len(best) <= tried {
			rec.Text += " In the others the difference stayed within the spread or reversed: not a consistent gain on this " +
				"host; measure it again (more repeats, a quieter machine) before relying on it."
			rec.Short = "no consistent winner"
			rec.ShortDetail = fmt.Sprintf("%s beat the defaults beyond the spread in only %d of %d %ss", order[0], len(best), tried, unit)
		}
	}
	return rec
}

// triedIn counts the comparisons against the defaults that restored case
// (by its profile case name).
func triedIn(rcs []*RunComparison, profileCase string) int {
	n := 0
	for _, rc := range rcs {
		if !rc.IsDefault || rc.Comparison == nil {
			continue
		}
		for _, r := range rc.Restores {
			if r.ProfileCase() == profileCase {
				n++
				break
			}
		}
	}
	return n
}

// comparisonUnit names what fastestRecommendation counts: runs, or sizes
// when a run sweeps sizes (each size is compared on its own).
func comparisonUnit(rcs []*RunComparison) string {
	for _, rc := range rcs {
		if rc.Size != "" {
			return "size"
		}
	}
	return "run"
}

// marginText is a change range as a speed-up: "21% less" or "18-25% less".
func marginText(lo, hi float64) string {
	if fmt.Sprintf("%.0f", -lo) == fmt.Sprintf("%.0f", -hi) {
		return fmt.Sprintf("%.0f%% less", -lo)
	}
	return fmt.Sprintf("%.0f-%.0f%% less", -hi, -lo)
}

// partitionRecommendation turns the cold-restore row into a partition rule.
func partitionRecommendation(a *Analysis) Recommendation {
	rec := Recommendation{Title: "Partitions for a recovery-time objective"}
	row := a.RTO.Row(RowColdRestore)
	if !row.Measured {
		rec.Text = "Cannot say: " + row.Missing + "."
		return rec
	}
	var parts []string
	for _, c := range row.Cells {
		p := fmt.Sprintf("%s: at most %s of changelog per task", FormatRTO(c.RTO), FormatBytes(c.Task.Value))
		switch {
		case c.Task.Wide():
			p += fmt.Sprintf(" (INCONCLUSIVE: %s the sizes measured, where nothing bounds its error)", beyondText(c.Task.Estimate))
		case c.Task.Extrapolated:
			p += " (extrapolated)"
		}
		if s := a.ChangelogBytes(); s > 0 && c.Task.Value > 0 {
			p += fmt.Sprintf(", so %d partitions for %s", int(ceilF(s/c.Task.Value)), FormatBytes(s))
		}
		parts = append(parts, p)
	}
	rec.Text = "Choose partitions ≥ state ÷ the per-task limit, so that each task restores cold within the objective at the measured per-thread rate: " +
		strings.Join(parts, "; ") + "."
	rec.Evidence = append(rec.Evidence, row.Basis...)
	return rec
}

func ceilF(x float64) float64 {
	n := float64(int64(x))
	if n < x {
		n++
	}
	return n
}
