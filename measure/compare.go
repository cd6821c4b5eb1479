package measure

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"text/tabwriter"
)

// Metric names one figure compare reports for every case.
type Metric string

// The metrics compare reports, in CompareMetrics order.
const (
	// MetricRestoreSeconds is Restore.DurationSeconds.
	MetricRestoreSeconds Metric = "restore_seconds"
	// MetricTotalSeconds is Restore.TotalSeconds, the time until the store
	// is ready; DurationSeconds when the ready phase was not measured.
	MetricTotalSeconds Metric = "total_seconds"
	// MetricMBPerSec is Restore.MBPerSec.
	MetricMBPerSec Metric = "mb_per_sec"
	// MetricPeakRSS is Restore.PeakRSSBytes (absent when 0).
	MetricPeakRSS Metric = "peak_rss_bytes"
	// MetricEfficiency is Restore.Limits.Efficiency (absent when Limits is nil).
	MetricEfficiency Metric = "efficiency"
)

// CompareMetrics lists the metrics of every CaseRow, in order.
var CompareMetrics = []Metric{MetricRestoreSeconds, MetricTotalSeconds, MetricMBPerSec, MetricPeakRSS, MetricEfficiency}

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
		return "peak RSS MiB"
	case MetricEfficiency:
		return "efficiency"
	}
	return string(m)
}

// HigherIsBetter reports whether an increase of the metric is an improvement.
func (m Metric) HigherIsBetter() bool {
	return m == MetricMBPerSec || m == MetricEfficiency
}

// Value returns the metric's value for one restore, and false when the
// restore does not carry it (no Limits, no peak RSS).
func (m Metric) Value(r Restore) (float64, bool) {
	switch m {
	case MetricRestoreSeconds:
		return r.DurationSeconds, true
	case MetricTotalSeconds:
		return totalSeconds(r), true
	case MetricMBPerSec:
		return r.MBPerSec, true
	case MetricPeakRSS:
		if r.PeakRSSBytes <= 0 {
			return 0, false
		}
		return float64(r.PeakRSSBytes), true
	case MetricEfficiency:
		if r.Limits == nil {
			return 0, false
		}
		return r.Limits.Efficiency, true
	}
	return 0, false
}

// totalSeconds is the time until the store was ready to serve; without a
// measured ready phase it falls back to the restore's DurationSeconds.
func totalSeconds(r Restore) float64 {
	if r.Ready == nil {
		return r.DurationSeconds
	}
	if r.TotalSeconds > 0 {
		return r.TotalSeconds
	}
	return r.DurationSeconds + r.Ready.Seconds
}

// countsForCompare reports whether a restore's figures are used: only a
// verified, error-free restore counts.
func countsForCompare(r Restore) bool { return r.Verified && r.Error == "" }

// Stat summarizes one metric over one side's verified repeats.
type Stat struct {
	// N is the number of verified repeats that carry the metric.
	N                int
	Median, Min, Max float64
}

func statOf(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	return Stat{N: len(xs), Median: Median(xs), Min: minOf(xs), Max: maxOf(xs)}
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
		return fmt.Sprintf("disjoint, too few repeats, n=%d/%d, p=%.2f", d.Base.N, d.Other.N, d.P)
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
	// Params are the first restore's parameters.
	Params CaseParams
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
	// Metrics has one entry per CompareMetrics element, in that order.
	Metrics []MetricDiff
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

// groupCases groups restores by case in first-seen order.
func groupCases(restores []Restore) ([]string, map[string][]Restore) {
	var order []string
	by := map[string][]Restore{}
	for _, r := range restores {
		if _, ok := by[r.Case]; !ok {
			order = append(order, r.Case)
		}
		by[r.Case] = append(by[r.Case], r)
	}
	return order, by
}

func sideOf(name string, rs []Restore) CaseSide {
	s := CaseSide{Case: name, Present: len(rs) > 0, Repeats: len(rs)}
	if len(rs) > 0 {
		s.Params = rs[0].Params
	}
	for _, r := range rs {
		if !countsForCompare(r) {
			s.Excluded = append(s.Excluded, r.Repeat)
			continue
		}
		s.Verified++
		if r.Ready == nil {
			s.NoReady++
		}
	}
	return s
}

func metricStat(m Metric, rs []Restore) Stat {
	var xs []float64
	for _, r := range rs {
		if !countsForCompare(r) {
			continue
		}
		if v, ok := m.Value(r); ok {
			xs = append(xs, v)
		}
	}
	return statOf(xs)
}

// disjointChance is 2 / C(n+m, n), capped at 1.
func disjointChance(n, m int) float64 {
	c := 1.0
	for i := 1; i <= m; i++ {
		c = c * float64(n+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

func diffOf(m Metric, base, other CaseSide, b, o []Restore) MetricDiff {
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
	case d.P > SpreadAlpha:
		d.Verdict = VerdictDisjointFewRepeats
	default:
		d.Verdict = VerdictExceedsSpread
	}
	return d
}

func rowOf(name, baseName string, b, o []Restore) CaseRow {
	row := CaseRow{Case: name, BaseCase: baseName, Base: sideOf(baseName, b), Other: sideOf(name, o)}
	for _, m := range CompareMetrics {
		row.Metrics = append(row.Metrics, diffOf(m, row.Base, row.Other, b, o))
	}
	return row
}

// Compare compares two runs' restores case by case, matching cases by
// name: one row per case present in either run, in base's order and then
// the cases only other has. Only verified, error-free restores count.
func Compare(base, other []Restore) []CaseRow {
	bOrder, bBy := groupCases(base)
	oOrder, oBy := groupCases(other)
	var rows []CaseRow
	for _, name := range bOrder {
		row := rowOf(name, name, bBy[name], oBy[name])
		if row.Base.Present && row.Other.Present {
			row.ParamDiffs = paramDiffs(row.Base.Params, row.Other.Params)
		}
		rows = append(rows, row)
	}
	for _, name := range oOrder {
		if _, ok := bBy[name]; !ok {
			rows = append(rows, rowOf(name, name, nil, oBy[name]))
		}
	}
	return rows
}

// CompareCases compares every other case of one run with the baseline case:
// one row per case except the baseline, in first-seen order. A baseline
// that is not among the restores is an error listing the cases there are.
func CompareCases(restores []Restore, baseline string) ([]CaseRow, error) {
	order, by := groupCases(restores)
	if _, ok := by[baseline]; !ok {
		return nil, fmt.Errorf("baseline case %q not found; cases: %s", baseline, quoteList(order))
	}
	var rows []CaseRow
	for _, name := range order {
		if name != baseline {
			rows = append(rows, rowOf(name, baseline, by[baseline], by[name]))
		}
	}
	return rows, nil
}

// CaseNames lists the case names of restores in first-seen order.
func CaseNames(restores []Restore) []string {
	order, _ := groupCases(restores)
	return order
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

// paramDiffs lists the CaseParams fields that differ, by JSON name.
func paramDiffs(a, b CaseParams) []string {
	var out []string
	add := func(name string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s %v -> %v", name, x, y))
		}
	}
	add("scenario", a.Scenario, b.Scenario)
	add("strategy", a.Strategy, b.Strategy)
	add("store", a.Store, b.Store)
	add("rocksdb", a.RocksDB, b.RocksDB)
	add("batch_records", a.BatchRecords, b.BatchRecords)
	add("threads", a.Threads, b.Threads)
	add("fetch_max_bytes", a.FetchMaxBytes, b.FetchMaxBytes)
	add("max_partition_fetch_bytes", a.MaxPartitionFetchBytes, b.MaxPartitionFetchBytes)
	add("sort_buffer_bytes", a.SortBufferBytes, b.SortBufferBytes)
	if !reflect.DeepEqual(a.RocksDBOptions, b.RocksDBOptions) {
		out = append(out, "rocksdb_options differ")
	}
	return out
}

// CompareRuns compares two runs and notes what makes them hard to compare:
// different hosts, different changelogs, incomplete runs.
func CompareRuns(base, other *Results, baseLabel, otherLabel string) *Comparison {
	c := &Comparison{BaseLabel: baseLabel, OtherLabel: otherLabel, Rows: Compare(base.Restores, other.Restores)}
	bh, oh := base.Host, other.Host
	if bh.Hostname != oh.Hostname || bh.OS != oh.OS || bh.Arch != oh.Arch || bh.CPUs != oh.CPUs || bh.MemoryBytes != oh.MemoryBytes {
		c.Notes = append(c.Notes, fmt.Sprintf("hosts differ: base %s, other %s", hostText(bh), hostText(oh)))
	}
	if bh.GoVersion != oh.GoVersion || bh.RocksDBVersion != oh.RocksDBVersion {
		c.Notes = append(c.Notes, fmt.Sprintf("versions differ: base %s / RocksDB %s, other %s / RocksDB %s",
			bh.GoVersion, bh.RocksDBVersion, oh.GoVersion, oh.RocksDBVersion))
	}
	if bf, of := base.Fill, other.Fill; bf != nil && of != nil &&
		(bf.Records != of.Records || bf.Bytes != of.Bytes || bf.Tombstones != of.Tombstones) {
		c.Notes = append(c.Notes, fmt.Sprintf("changelogs differ: base %d records / %d bytes / %d tombstones, other %d records / %d bytes / %d tombstones",
			bf.Records, bf.Bytes, bf.Tombstones, of.Records, of.Bytes, of.Tombstones))
	}
	c.Notes = append(c.Notes, runNotes("base", base)...)
	c.Notes = append(c.Notes, runNotes("other", other)...)
	return c
}

// CompareRunCases compares the cases of one run with its baseline case.
func CompareRunCases(r *Results, label, baseline string) (*Comparison, error) {
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

func runNotes(side string, r *Results) []string {
	if r.Complete {
		return nil
	}
	n := fmt.Sprintf("%s run %s is incomplete", side, r.RunID)
	if r.Error != "" {
		n += ": " + oneLine(r.Error)
	}
	return []string{n}
}

func hostText(h Host) string {
	return fmt.Sprintf("%s (%s/%s, %d CPUs, %d bytes memory)", h.Hostname, h.OS, h.Arch, h.CPUs, h.MemoryBytes)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Reporter writes a rendering of a comparison.
type Reporter func(io.Writer) error

// formatValue formats a metric value in its display unit.
func formatValue(m Metric, v float64) string {
	switch m {
	case MetricRestoreSeconds, MetricTotalSeconds:
		switch a := math.Abs(v); {
		case a >= 100:
			return fmt.Sprintf("%.1f", v)
		case a >= 1:
			return fmt.Sprintf("%.2f", v)
		default:
			return fmt.Sprintf("%.3f", v)
		}
	case MetricMBPerSec:
		return fmt.Sprintf("%.1f", v)
	case MetricPeakRSS:
		return fmt.Sprintf("%.0f", v/(1<<20))
	case MetricEfficiency:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%g", v)
}

// medianText is a side's median, or why there is none.
func medianText(m Metric, side CaseSide, s Stat) string {
	switch {
	case !side.Present:
		return "-"
	case side.Verified == 0:
		return "no verified repeats"
	case s.N == 0:
		return "not measured"
	}
	return formatValue(m, s.Median)
}

// rangeText is a side's [min..max] and count, or "" when there are no values.
func rangeText(m Metric, side CaseSide, s Stat) string {
	if !side.Present || side.Verified == 0 || s.N == 0 {
		return ""
	}
	if s.N == 1 {
		return "n=1"
	}
	return fmt.Sprintf("%s..%s n=%d", formatValue(m, s.Min), formatValue(m, s.Max), s.N)
}

func changeText(d MetricDiff) string {
	if !d.HasChange {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", d.ChangePct)
}

func verifiedText(s CaseSide) string {
	if !s.Present {
		return "absent"
	}
	t := fmt.Sprintf("%d/%d", s.Verified, s.Repeats)
	if len(s.Excluded) > 0 {
		t += fmt.Sprintf(" (%d excluded)", len(s.Excluded))
	}
	return t
}

// SpreadDefinition explains the verdicts, for the renderers' footers.
const SpreadDefinition = `Only verified, error-free repeats count; medians over them. A difference
"exceeds spread" when the two sides' [min, max] ranges do not overlap (touching
counts as overlap) and that is unlikely by chance: p = 2/C(n+m, n) at most 0.05, the
exact Mann-Whitney p-value for disjoint samples (needs e.g. 4+4 or 3+5
repeats). Disjoint ranges with fewer repeats say "too few repeats"; a side
with one value says "n=1, spread unknown". Change is (other - base) / base.`

// NewTableReporter renders c as an aligned terminal table: one line per
// case and metric.
func NewTableReporter(c *Comparison) Reporter {
	return func(w io.Writer) error {
		ew := &errWriter{w: w}
		fmt.Fprintf(ew, "base:  %s\nother: %s\n", c.BaseLabel, c.OtherLabel)
		for _, n := range c.Notes {
			fmt.Fprintf(ew, "note: %s\n", n)
		}
		fmt.Fprintln(ew)
		if len(c.Rows) == 0 {
			fmt.Fprintln(ew, "no cases to compare")
			return ew.err
		}
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "case\tmetric\tbase\tbase range\tother\tother range\tchange\tvs spread")
		for _, row := range c.Rows {
			name := row.Case
			if c.WithinRun {
				name = row.Case + " vs " + row.BaseCase
			}
			fmt.Fprintf(tw, "%s\tverified\t%s\t\t%s\t\t\t\n", name, verifiedText(row.Base), verifiedText(row.Other))
			for _, d := range row.Metrics {
				fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Metric.Label(),
					medianText(d.Metric, row.Base, d.Base), rangeText(d.Metric, row.Base, d.Base),
					medianText(d.Metric, row.Other, d.Other), rangeText(d.Metric, row.Other, d.Other),
					changeText(d), d.VerdictText())
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(ew)
		for _, n := range rowNotes(c) {
			fmt.Fprintf(ew, "note: %s\n", n)
		}
		fmt.Fprintln(ew, SpreadDefinition)
		return ew.err
	}
}

// rowNotes lists per-case remarks: excluded repeats, missing ready phases,
// parameters that differ between runs.
func rowNotes(c *Comparison) []string {
	var out []string
	// Without any measured ready phase, one note says so for all cases.
	allNoReady, anyVerified := true, false
	for _, row := range c.Rows {
		for _, s := range []CaseSide{row.Base, row.Other} {
			anyVerified = anyVerified || s.Verified > 0
			allNoReady = allNoReady && s.NoReady == s.Verified
		}
	}
	if anyVerified && allNoReady {
		out = append(out, "no verified repeat has a measured ready phase: total s is restore s throughout")
	}
	seen := map[string]bool{}
	side := func(label string, s CaseSide) {
		if !s.Present {
			return
		}
		key := label + "\x00" + s.Case
		if seen[key] {
			return
		}
		seen[key] = true
		if len(s.Excluded) > 0 {
			out = append(out, fmt.Sprintf("%s %s: repeats %v excluded (not verified or failed)", label, s.Case, s.Excluded))
		}
		if s.NoReady > 0 && !(anyVerified && allNoReady) {
			out = append(out, fmt.Sprintf("%s %s: %d of %d verified repeats have no ready phase; their total s is their restore s",
				label, s.Case, s.NoReady, s.Verified))
		}
	}
	for _, row := range c.Rows {
		if c.WithinRun {
			side("case", row.Base)
			side("case", row.Other)
		} else {
			side("base", row.Base)
			side("other", row.Other)
			if len(row.ParamDiffs) > 0 {
				out = append(out, fmt.Sprintf("%s: params differ between runs: %s", row.Case, strings.Join(row.ParamDiffs, ", ")))
			}
		}
	}
	return out
}

// NewMarkdownReporter renders c as a Markdown table: a header row and one
// row per case, each metric cell "base → other (change, verdict)".
func NewMarkdownReporter(c *Comparison) Reporter {
	return func(w io.Writer) error {
		ew := &errWriter{w: w}
		fmt.Fprintf(ew, "Base: %s  \nOther: %s\n\n", mdEscape(c.BaseLabel), mdEscape(c.OtherLabel))
		for _, n := range c.Notes {
			fmt.Fprintf(ew, "- **note:** %s\n", mdEscape(n))
		}
		if len(c.Notes) > 0 {
			fmt.Fprintln(ew)
		}
		if len(c.Rows) == 0 {
			fmt.Fprintln(ew, "No cases to compare.")
			return ew.err
		}
		head := []string{"case", "verified base", "verified other"}
		for _, m := range CompareMetrics {
			head = append(head, m.Label())
		}
		fmt.Fprintf(ew, "| %s |\n", strings.Join(head, " | "))
		fmt.Fprintf(ew, "|%s\n", strings.Repeat(" --- |", len(head)))
		for _, row := range c.Rows {
			name := row.Case
			if c.WithinRun {
				name = row.Case + " vs " + row.BaseCase
			}
			cells := []string{mdEscape(name), verifiedText(row.Base), verifiedText(row.Other)}
			for _, d := range row.Metrics {
				cells = append(cells, mdCell(d, row)) // numbers and fixed words only
			}
			fmt.Fprintf(ew, "| %s |\n", strings.Join(cells, " | "))
		}
		fmt.Fprintln(ew)
		if notes := rowNotes(c); len(notes) > 0 {
			for _, n := range notes {
				fmt.Fprintf(ew, "- %s\n", mdEscape(n))
			}
			fmt.Fprintln(ew)
		}
		fmt.Fprintf(ew, "%s\n", mdEscape(strings.ReplaceAll(SpreadDefinition, "\n", " ")))
		return ew.err
	}
}

func mdCell(d MetricDiff, row CaseRow) string {
	b := medianText(d.Metric, row.Base, d.Base)
	o := medianText(d.Metric, row.Other, d.Other)
	if !d.HasChange && b == o {
		return d.VerdictText()
	}
	s := b + " → " + o
	if ch := changeText(d); ch != "" {
		return s + " (" + ch + ", " + d.VerdictText() + ")"
	}
	return s + " (" + d.VerdictText() + ")"
}

var mdReplacer = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;")

func mdEscape(s string) string { return mdReplacer.Replace(s) }

// errWriter keeps the first write error and drops later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
