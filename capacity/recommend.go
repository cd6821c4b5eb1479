package capacity

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// RunComparison is one run's cases compared with its baseline by package
// compare: medians, spread and significance verdicts come from there.
type RunComparison struct {
	Run *Run
	// Baseline is the case compared against: the first with Kafka Streams'
	// default settings (IsDefault), else the run's first case.
	Baseline  string
	IsDefault bool
	// Comparison is nil when the run has a single case.
	Comparison *compare.Comparison
}

// compareRuns compares each run's cases with its baseline.
func compareRuns(rs []*Run) []*RunComparison {
	var out []*RunComparison
	for _, run := range rs {
		res := run.Results
		names := runs.CaseNames(res.Restores)
		if len(names) == 0 {
			continue
		}
		rc := &RunComparison{Run: run, Baseline: names[0]}
		for _, g := range runs.GroupByCase(res.Restores) {
			if IsKafkaStreamsDefault(g.Restores[0].Params) {
				rc.Baseline, rc.IsDefault = g.Case, true
				break
			}
		}
		if len(names) > 1 {
			rc.Comparison, _ = compare.CompareRunCases(res, run.Name(), rc.Baseline)
		}
		out = append(out, rc)
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

func metric(row compare.CaseRow, m compare.Metric) compare.MetricDiff {
	for _, d := range row.Metrics {
		if d.Metric == m {
			return d
		}
	}
	return compare.MetricDiff{Metric: m}
}

// Evidence cites the win: "R3: threads-2 −21.3% time to ready vs
// kstreams-default (exceeds spread, better, p=0.029)".
func (w *Win) Evidence() string {
	return fmt.Sprintf("%s: %s %+.1f%% time to ready vs %s (%s; %s → %s)", w.Run.Run.Label, w.Row.Case, w.Diff.ChangePct, w.Row.BaseCase,
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
	out = append(out, partitionRecommendation(a))
	out = append(out, Recommendation{Title: "Standbys", Text: "Whether a standby is needed, and the highest write rate one sustains, cannot be said from these inputs: " +
		a.RTO.Row("standby failover").Missing + "."})
	return out
}

// fastestRecommendation names the case that most often beat the defaults
// by more than the spread, with its margins; or says that none did. Every
// compared run is cited, also those where the defaults stayed fastest.
func fastestRecommendation(rcs []*RunComparison, keep func(config.Case) bool, title, what string) Recommendation {
	rec := Recommendation{Title: title}
	wins := map[string][]*Win{}
	var order []string
	compared := 0
	for _, rc := range rcs {
		if !rc.IsDefault || rc.Comparison == nil {
			continue
		}
		compared++
		w := rc.Fastest(keep)
		if w == nil {
			rec.Evidence = append(rec.Evidence, fmt.Sprintf("%s: no %s restored faster than %s", rc.Run.Label, what, rc.Baseline))
			continue
		}
		rec.Evidence = append(rec.Evidence, w.Evidence())
		if w.Diff.Significant() {
			if _, ok := wins[w.Row.Case]; !ok {
				order = append(order, w.Row.Case)
			}
			wins[w.Row.Case] = append(wins[w.Row.Case], w)
		}
	}
	switch {
	case compared == 0:
		rec.Text = "No run compares other settings with Kafka Streams' defaults: add a case with the defaults (e.g. `- name: kstreams-default`) next to the settings to try."
		rec.Evidence = nil
	case len(order) == 0:
		rec.Text = fmt.Sprintf("No %s restored faster than Kafka Streams' defaults by more than the run-to-run spread in any of %s; keep the defaults.", what, Plural(compared, "run"))
		rec.Short, rec.ShortDetail = "Kafka Streams' defaults", "nothing beat them beyond the spread in "+Plural(compared, "run")
	default:
		sort.SliceStable(order, func(i, j int) bool { return len(wins[order[i]]) > len(wins[order[j]]) })
		best := wins[order[0]]
		lo, hi := best[0].Diff.ChangePct, best[0].Diff.ChangePct
		for _, w := range best {
			lo, hi = min(lo, w.Diff.ChangePct), max(hi, w.Diff.ChangePct)
		}
		rec.Case = order[0]
		rec.Short = order[0]
		rec.ShortDetail = fmt.Sprintf("%s time to ready than the defaults, beyond the spread in %d of %d runs", marginText(lo, hi), len(best), compared)
		rec.Text = fmt.Sprintf("%s (%s): %s.", order[0], Describe(best[0].Row.Other.Params), rec.ShortDetail)
		if 2*len(best) <= compared {
			rec.Text += " In the other runs the difference stayed within the spread or reversed: not a consistent gain on this host; measure it again (more repeats, a quieter machine) before relying on it."
			rec.Short = "no consistent winner"
			rec.ShortDetail = fmt.Sprintf("%s beat the defaults beyond the spread in only %d of %d runs", order[0], len(best), compared)
		}
	}
	return rec
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
	row := a.RTO.Row(ScenarioCold)
	if !row.Measured {
		rec.Text = "Cannot say: " + row.Missing + "."
		return rec
	}
	var parts []string
	for _, c := range row.Cells {
		p := fmt.Sprintf("%s: at most %s of changelog per task", FormatRTO(c.RTO), FormatBytes(c.Task.Value))
		if c.Task.Extrapolated {
			p += " (extrapolated)"
		}
		if s := a.Options.Deployment.StateBytes; s > 0 && c.Task.Value > 0 {
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
