package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Metric names one figure compare reports for every case.
type Metric string

// The metrics compare reports, in CompareMetrics order.
const (
	// MetricRestoreSeconds is a restore's runs.Restore.RestoreSeconds, and
	// the scenario's gap (runs.Restore.Gap) for the records of a scenario
	// measured by one.
	MetricRestoreSeconds Metric = "restore_seconds"
	// MetricTotalSeconds is runs.Restore.TimeToReady, the time until the
	// store is ready (the restore phase where the ready phase was not
	// measured).
	MetricTotalSeconds Metric = "total_seconds"
	// MetricMBPerSec is the restore phase's MBPerSec.
	MetricMBPerSec Metric = "mb_per_sec"
	// MetricPeakRSS is the restore phase's PeakRSSBytes (absent when 0).
	MetricPeakRSS Metric = "peak_rss_bytes"
	// MetricEfficiency is runs.Restore.Limits().Efficiency (absent without limits).
	MetricEfficiency Metric = "efficiency"
	// MetricStandbyApplied is a standby rate or search step's
	// runs.StandbyRecord.AppliedRate: the records a second the standby
	// applied while the changelog was written at the step's rate.
	MetricStandbyApplied Metric = "standby_applied_rate"
	// MetricStandbyLagP99 is that step's runs.StandbyRecord.LagP99, in records.
	MetricStandbyLagP99 Metric = "standby_lag_p99"
)

// CompareMetrics lists the metrics of every CaseRow, in order.
var CompareMetrics = []Metric{MetricRestoreSeconds, MetricTotalSeconds, MetricMBPerSec, MetricPeakRSS, MetricEfficiency,
	MetricStandbyApplied, MetricStandbyLagP99}

// standbyMetrics are the metrics only a standby's rate and search steps
// carry.
var standbyMetrics = map[Metric]bool{MetricStandbyApplied: true, MetricStandbyLagP99: true}

// SpreadAlpha bounds the chance that two sides' ranges are disjoint with no
// real difference (see MetricDiff.P) for a difference to count as exceeding
// the spread.
const SpreadAlpha = 0.05

// Label is the metric's short human name, with its display unit.
func (m Metric) Label() string {
	switch m {
	case MetricRestoreSeconds:
		return "restore s"
	case MetricTotalSeconds:
		return "total s"
	case MetricMBPerSec:
		return "MB/s"
	case MetricPeakRSS:
		return "median peak RSS MiB"
	case MetricEfficiency:
		return "efficiency"
	case MetricStandbyApplied:
		return "standby applied records/s"
	case MetricStandbyLagP99:
		return "standby lag p99"
	}
	return string(m)
}

// AppliesTo reports whether m means what its label says for a record of
// step kind k: every metric for a restore (runs.StepKind.IsRestore); for
// a scenario measured by a headline (a failover kill, a scale-out, a
// rolling restart) only the seconds (the headline: see LabelFor) and the
// peak RSS; for a standby's
// rate or search step the records a second it applied and its lag p99,
// and the peak RSS; for a pause step only the peak RSS.
func (m Metric) AppliesTo(k runs.StepKind) bool {
	switch {
	case standbyMetrics[m]:
		return k == runs.StepRate || k == runs.StepMax
	case k.IsRestore(), m == MetricPeakRSS:
		return true
	}
	if _, ok := runs.HeadlineOf(k); ok {
		return m == MetricRestoreSeconds
	}
	return false
}

// LabelFor is m's label for a record of step kind k: the headline's label
// of a scenario measured by one (runs.HeadlineOf), else Label.
func (m Metric) LabelFor(k runs.StepKind) string {
	if h, ok := runs.HeadlineOf(k); ok && m == MetricRestoreSeconds {
		return h.Label
	}
	return m.Label()
}

// HigherIsBetter reports whether an increase of the metric is an improvement.
func (m Metric) HigherIsBetter() bool {
	return m == MetricMBPerSec || m == MetricEfficiency || m == MetricStandbyApplied
}

// Value returns the metric's value for one restore, and false when the
// restore does not carry it (no Limits, no peak RSS).
func (m Metric) Value(r runs.Restore) (float64, bool) {
	if !m.AppliesTo(r.StepKind()) {
		return 0, false
	}
	switch m {
	case MetricRestoreSeconds:
		if gap, ok := r.Gap(); ok {
			return gap, true
		}
		return r.RestoreSeconds()
	case MetricTotalSeconds:
		return r.TimeToReady()
	case MetricMBPerSec:
		if r.Phase == nil {
			return 0, false
		}
		return r.Phase.MBPerSec, true
	case MetricPeakRSS:
		if r.Phase == nil || r.Phase.PeakRSSBytes <= 0 {
			return 0, false
		}
		return float64(r.Phase.PeakRSSBytes), true
	case MetricEfficiency:
		if r.Limits() == nil {
			return 0, false
		}
		return r.Limits().Efficiency, true
	case MetricStandbyApplied, MetricStandbyLagP99:
		if r.Standby == nil {
			return 0, false
		}
		if m == MetricStandbyApplied {
			return r.Standby.AppliedRate, true
		}
		return float64(r.Standby.LagP99), true
	}
	return 0, false
}

// countsForCompare reports whether a restore's figures are used: only a
// verified, error-free restore counts.
func countsForCompare(r runs.Restore) bool { return r.Verified && r.Error == "" }

// Stat summarizes one metric over one side's verified repeats.
type Stat struct {
	// N is the number of verified repeats that carry the metric.
	N                int
	Median, Min, Max float64
}

// StatOf is xs' count, median, least and most (zero without any).
func StatOf(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	return Stat{N: len(xs), Median: runs.Median(xs), Min: runs.Min(xs), Max: runs.Max(xs)}
}

// Verdict says how a metric's difference relates to the run-to-run spread.
type Verdict int

const (
	// VerdictCaseMissing: the case is absent on one side.
	VerdictCaseMissing Verdict = iota
	// VerdictNoVerifiedRepeats: a side has no verified, error-free repeat.
	VerdictNoVerifiedRepeats
	// VerdictNotMeasured: a side's verified repeats lack the metric.
	VerdictNotMeasured
	// VerdictSpreadUnknown: a side has a single value, so its spread is unknown.
	VerdictSpreadUnknown
	// VerdictWithinSpread: the sides' [min, max] ranges overlap (touching
	// counts as overlapping).
	VerdictWithinSpread
	// VerdictDisjointFewRepeats: the ranges do not overlap, but with so few
	// repeats that this happens by chance more often than SpreadAlpha.
	VerdictDisjointFewRepeats
	// VerdictExceedsSpread: the ranges do not overlap and P <= SpreadAlpha.
	VerdictExceedsSpread
)

// MetricDiff compares one metric of one case between the two sides.
type MetricDiff struct {
	Metric      Metric
	Base, Other Stat
	// ChangePct is (other median - base median) / base median * 100; valid
	// only when HasChange (both sides have values and the base median is not 0).
	ChangePct float64
	HasChange bool
	// P is the probability that the two sides' ranges are disjoint although
	// both come from the same distribution: 2 / C(n+m, n), the exact
	// two-sided Mann-Whitney U-test p-value for U = 0. Set when both sides
	// have at least 2 values; 0 otherwise.
	P       float64
	Verdict Verdict
}

// Significant reports whether the difference exceeds the run-to-run spread.
func (d MetricDiff) Significant() bool { return d.Verdict == VerdictExceedsSpread }

// Better reports whether the other side improves on the base side; only
// meaningful when HasChange.
func (d MetricDiff) Better() bool {
	if d.Metric.HigherIsBetter() {
		return d.Other.Median > d.Base.Median
	}
	return d.Other.Median < d.Base.Median
}

// VerdictText is the verdict in words, e.g. "exceeds spread, worse, p=0.029".
func (d MetricDiff) VerdictText() string {
	switch d.Verdict {
	case VerdictCaseMissing:
		return "case missing on one side"
	case VerdictNoVerifiedRepeats:
		return "no verified repeats"
	case VerdictNotMeasured:
		return "not measured"
	case VerdictSpreadUnknown:
		return "n=1, spread unknown"
	case VerdictWithinSpread:
		return "within spread"
	case VerdictDisjointFewRepeats:
		return fmt.Sprintf("inconclusive: disjoint, but n=%d/%d repeats reach at best p=%.2f; needs %d per side", d.Base.N, d.Other.N, d.P, RepeatsToDecide())
	case VerdictExceedsSpread:
		dir := "worse"
		if d.Better() {
			dir = "better"
		}
		return fmt.Sprintf("exceeds spread, %s, p=%.3f", dir, d.P)
	}
	return "?"
}

// CaseSide is one side of a row: which restores of the case there are and
// which of them count.
type CaseSide struct {
	Case string
	// Present is false when the side has no restore of this case at all.
	Present bool
	// Repeats counts all restores of the case; Verified those that are
	// verified and error-free, the only ones whose figures are used.
	Repeats, Verified int
	// Excluded lists the repeat numbers left out (unverified or failed).
	Excluded []int
	// NoReady counts verified repeats without a measured ready phase, whose
	// total seconds fall back to their restore seconds.
	NoReady int
	// Params are the first restore's parameters, Kind its step kind.
	Params config.Case
	Kind   runs.StepKind
}

// CaseRow is one compared case.
type CaseRow struct {
	// Case is the compared case: the case name in both runs, or the case
	// compared with the baseline case within one run.
	Case string
	// BaseCase is the case on the base side: Case itself when comparing
	// runs, the baseline case when comparing cases of one run.
	BaseCase    string
	Base, Other CaseSide
	// ParamDiffs lists parameters that differ between the sides when
	// comparing runs, e.g. "batch_records 1000 -> 10000".
	ParamDiffs []string
	// Kind is the step kind of the case's records; Metrics has one entry
	// per CompareMetrics element that applies to it (Metric.AppliesTo), in
	// that order.
	Kind    runs.StepKind
	Metrics []MetricDiff
	// Unlike names the base side's metrics left out because the two
	// sides' steps measure different things under them (a scale-out's
	// assignment s against a rolling restart's downtime s, a standby's
	// rate step against a cold restore); empty when they are alike.
	Unlike []string
}

// Comparison is what compare renders.
type Comparison struct {
	// BaseLabel and OtherLabel name the two sides, e.g. a results file and
	// its run id, or "case X of FILE".
	BaseLabel, OtherLabel string
	// WithinRun is true when the rows compare cases of one run with a
	// baseline case.
	WithinRun bool
	Rows      []CaseRow
	// Notes are warnings about the comparison as a whole (different hosts,
	// different changelogs, incomplete runs).
	Notes []string
}

func sideOf(name string, rs []runs.Restore) CaseSide {
	s := CaseSide{Case: name, Present: len(rs) > 0, Repeats: len(rs)}
	if len(rs) > 0 {
		s.Params, s.Kind = rs[0].Params, rs[0].StepKind()
	}
	for _, r := range rs {
		if !r.Counts() {
			s.Excluded = append(s.Excluded, r.Repeat)
			continue
		}
		s.Verified++
		if r.Ready() == nil {
			s.NoReady++
		}
	}
	return s
}

func metricStat(m Metric, rs []runs.Restore) Stat {
	var xs []float64
	for _, r := range rs {
		if !r.Counts() {
			continue
		}
		if v, ok := m.Value(r); ok {
			xs = append(xs, v)
		}
	}
	return StatOf(xs)
}

// CanDecide reports whether n and m values a side can show a difference at
// all: whether ranges that do not overlap reach p ≤ SpreadAlpha. With
// fewer (2 and 2: p = 0.33 at best) no outcome could decide, so a
// comparison of them is inconclusive whatever it measured. The one rule
// behind VerdictDisjointFewRepeats, RepeatsToDecide and the planner's
// "keep the defaults".
func CanDecide(n, m int) bool {
	return n >= 2 && m >= 2 && disjointChance(n, m) <= SpreadAlpha
}

// RepeatsToDecide is the fewest repeats per side at which disjoint ranges
// can reach SpreadAlpha (4: 2/C(8,4) = 0.029), the least a comparison
// needs before it can conclude anything.
func RepeatsToDecide() int {
	for n := 2; ; n++ {
		if CanDecide(n, n) {
			return n
		}
	}
}

// disjointChance is 2 / C(n+m, n), capped at 1.
func disjointChance(n, m int) float64 {
	c := 1.0
	for i := 1; i <= m; i++ {
		c = c * float64(n+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

func diffOf(m Metric, base, other CaseSide, b, o []runs.Restore) MetricDiff {
	d := MetricDiff{Metric: m, Base: metricStat(m, b), Other: metricStat(m, o)}
	if d.Base.N > 0 && d.Other.N > 0 && d.Base.Median != 0 {
		d.ChangePct = (d.Other.Median - d.Base.Median) / d.Base.Median * 100
		d.HasChange = true
	}
	if d.Base.N >= 2 && d.Other.N >= 2 {
		d.P = disjointChance(d.Base.N, d.Other.N)
	}
	switch {
	case !base.Present || !other.Present:
		d.Verdict = VerdictCaseMissing
	case base.Verified == 0 || other.Verified == 0:
		d.Verdict = VerdictNoVerifiedRepeats
	case d.Base.N == 0 || d.Other.N == 0:
		d.Verdict = VerdictNotMeasured
	case d.Base.N == 1 || d.Other.N == 1:
		d.Verdict = VerdictSpreadUnknown
	case d.Other.Min <= d.Base.Max && d.Base.Min <= d.Other.Max:
		d.Verdict = VerdictWithinSpread
	case !CanDecide(d.Base.N, d.Other.N):
		d.Verdict = VerdictDisjointFewRepeats
	default:
		d.Verdict = VerdictExceedsSpread
	}
	return d
}

func rowOf(name, baseName string, b, o []runs.Restore) CaseRow {
	row := CaseRow{Case: name, BaseCase: baseName, Base: sideOf(baseName, b), Other: sideOf(name, o)}
	kb, ko := row.Base.Kind, row.Other.Kind
	row.Kind = kb
	if !row.Base.Present {
		row.Kind = ko
	}
	for _, m := range CompareMetrics {
		if !m.AppliesTo(row.Kind) {
			continue
		}
		if row.Base.Present && row.Other.Present && (!m.AppliesTo(ko) || m.LabelFor(kb) != m.LabelFor(ko)) {
			row.Unlike = append(row.Unlike, m.LabelFor(kb))
			continue
		}
		row.Metrics = append(row.Metrics, diffOf(m, row.Base, row.Other, b, o))
	}
	return row
}

// Compare compares two runs' restores case by case, matching cases by
// name: one row per case present in either run, in base's order and then
// the cases only other has. Only verified, error-free restores count.
func Compare(base, other []runs.Restore) []CaseRow {
	bGroups, oGroups := runs.GroupByCase(base), runs.GroupByCase(other)
	bBy, oBy := byName(bGroups), byName(oGroups)
	var rows []CaseRow
	for _, g := range bGroups {
		row := rowOf(g.Case, g.Case, g.Restores, oBy[g.Case])
		if row.Base.Present && row.Other.Present {
			row.ParamDiffs = paramDiffs(row.Base.Params, row.Other.Params)
		}
		// The same case on two versions says so in its label.
		row.Case += versionChange(g.Restores, oBy[g.Case])
		rows = append(rows, row)
	}
	for _, g := range oGroups {
		if _, ok := bBy[g.Case]; !ok {
			rows = append(rows, rowOf(g.Case, g.Case, nil, g.Restores))
		}
	}
	return rows
}

func byName(groups []runs.CaseRestores) map[string][]runs.Restore {
	m := make(map[string][]runs.Restore, len(groups))
	for _, g := range groups {
		m[g.Case] = g.Restores
	}
	return m
}

// CompareCases compares every other case of one run with the baseline case:
// one row per case except the baseline, in first-seen order. A baseline
// that is not among the restores is an error listing the cases there are.
func CompareCases(restores []runs.Restore, baseline string) ([]CaseRow, error) {
	groups := runs.GroupByCase(restores)
	by := byName(groups)
	if _, ok := by[baseline]; !ok {
		return nil, fmt.Errorf("baseline case %q not found; cases: %s", baseline, quoteList(runs.CaseNames(restores)))
	}
	var rows []CaseRow
	for _, g := range groups {
		if g.Case != baseline {
			rows = append(rows, rowOf(g.Case, baseline, by[baseline], g.Restores))
		}
	}
	return rows, nil
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// paramDiffs lists the case settings that differ, by their results.json
// names, so a setting added to config.Case is compared without a change here.
func paramDiffs(a, b config.Case) []string {
	flat := func(c config.Case) map[string]any {
		raw, _ := json.Marshal(c)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return m
	}
	fa, fb := flat(a), flat(b)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		x, y := fa[k], fb[k]
		if reflect.DeepEqual(x, y) {
			continue
		}
		if _, nested := x.(map[string]any); nested {
			out = append(out, k+" differ")
			continue
		}
		out = append(out, fmt.Sprintf("%s %v -> %v", k, show(x), show(y)))
	}
	return out
}

// show prints a JSON value as compare's notes do: numbers without exponents.
func show(v any) any {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return int64(f)
	}
	if v == nil {
		return "(unset)"
	}
	return v
}

// CompareRuns compares two runs and notes what makes them hard to compare:
// different hosts, different changelogs, incomplete runs.
func CompareRuns(base, other *runs.Results, baseLabel, otherLabel string) *Comparison {
	c := &Comparison{BaseLabel: baseLabel, OtherLabel: otherLabel, Rows: Compare(base.Restores, other.Restores)}
	bh, oh := base.Host, other.Host
	if bh.Hostname != oh.Hostname || bh.OS != oh.OS || bh.Arch != oh.Arch || bh.CPUs != oh.CPUs || bh.MemoryBytes != oh.MemoryBytes {
		c.Notes = append(c.Notes, fmt.Sprintf("hosts differ: base %s, other %s", hostText(bh), hostText(oh)))
	}
	if bh.GoVersion != oh.GoVersion || bh.RocksDBVersion != oh.RocksDBVersion || bh.RocksDBLinkage != oh.RocksDBLinkage {
		c.Notes = append(c.Notes, fmt.Sprintf("versions differ: base %s / RocksDB %s, other %s / RocksDB %s",
			bh.GoVersion, bh.RocksDBText(), oh.GoVersion, oh.RocksDBText()))
	}
	if bf, of := base.Fill, other.Fill; bf != nil && of != nil &&
		(bf.Records != of.Records || bf.Bytes != of.Bytes || bf.Tombstones != of.Tombstones) {
		c.Notes = append(c.Notes, fmt.Sprintf("changelogs differ: base %d records / %d bytes / %d tombstones, other %d records / %d bytes / %d tombstones",
			bf.Records, bf.Bytes, bf.Tombstones, of.Records, of.Bytes, of.Tombstones))
	}
	for _, side := range []struct {
		name string
		r    *runs.Results
	}{{"base", base}, {"other", other}} {
		if rb := side.r.ReadBackOf(side.r.Fill); rb.Compacted(side.r.Fill) {
			c.Notes = append(c.Notes, fmt.Sprintf("%s changelog %s", side.name, rb.Describe(side.r.Fill)))
		}
	}
	c.Notes = append(c.Notes, runNotes("base", base)...)
	c.Notes = append(c.Notes, runNotes("other", other)...)
	return c
}

// CompareRunCases compares the cases of one run with its baseline case.
func CompareRunCases(r *runs.Results, label, baseline string) (*Comparison, error) {
	rows, err := CompareCases(r.Restores, baseline)
	if err != nil {
		return nil, err
	}
	c := &Comparison{
		BaseLabel:  fmt.Sprintf("case %s of %s", baseline, label),
		OtherLabel: fmt.Sprintf("the other cases of %s", label),
		WithinRun:  true,
		Rows:       rows,
	}
	c.Notes = append(c.Notes, runNotes("run", r)...)
	return c, nil
}

func runNotes(side string, r *runs.Results) []string {
	why := r.IncompleteReason()
	if why == "" {
		return nil
	}
	return []string{fmt.Sprintf("%s run is incomplete: %s", side, oneLine(why))}
}

func hostText(h runs.Host) string {
	return fmt.Sprintf("%s (%s/%s, %d CPUs, %d bytes memory)", h.Hostname, h.OS, h.Arch, h.CPUs, h.MemoryBytes)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
