package compare

import (
	"fmt"
	"github.com/restorebench/restorebench/runs"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/restorebench/restorebench/internal/errwriter"
)

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
	case MetricStandbyApplied, MetricStandbyLagP99:
		return fmt.Sprintf("%.0f", v)
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
with one value says "n=1, spread unknown". Change is (other - base) / base.
restore s, total s: seconds; MB/s: each repeat's own rate (1 MB = 10^6 bytes);
median peak RSS MiB: of the process that restored (this tool's on the model
engine, the JVM's on kafka-streams; 1 MiB = 2^20 bytes); base range, other
range: min..max over the repeats, n of them. A failover kill, scale-out or
rolling restart is compared by its own seconds (gap, warmup assignment,
downtime), a standby's rate step by the records a second it applied and its lag
p99 (records written but not applied), a pause step by none.`

// NewTableReporter renders c as an aligned terminal table: one line per
// case and metric.
func NewTableReporter(c *Comparison) Reporter {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		fmt.Fprintf(ew, "base:  %s\nother: %s\n", c.BaseLabel, c.OtherLabel)
		for _, n := range c.Notes {
			fmt.Fprintf(ew, "note: %s\n", n)
		}
		fmt.Fprintln(ew)
		if len(c.Rows) == 0 {
			fmt.Fprintln(ew, "no cases to compare")
			return ew.Err()
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
				fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Metric.LabelFor(row.Kind),
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
		return ew.Err()
	}
}

// rowNotes lists per-case remarks: excluded repeats, missing ready phases,
// parameters that differ between runs.
func rowNotes(c *Comparison) []string {
	var out []string
	// Without any measured ready phase, one note says so for all cases.
	allNoReady, anyVerified := true, false
	for _, row := range c.Rows {
		if !MetricTotalSeconds.AppliesTo(row.Kind) {
			continue // a failover, scale-out or standby step has no total s
		}
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
		if s.NoReady > 0 && !(anyVerified && allNoReady) && MetricTotalSeconds.AppliesTo(s.Kind) {
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
		if len(row.Unlike) > 0 {
			name := row.Case
			if c.WithinRun {
				name = row.Case + " vs " + row.BaseCase
			}
			out = append(out, fmt.Sprintf("%s: %s not compared: a %s step against a %s, which measure different things under them",
				name, strings.Join(row.Unlike, ", "), kindText(row.Other.Kind), kindText(row.Base.Kind)))
		}
	}
	return out
}

// kindText names a step kind for people: "restore" for a record without
// one (files from before steps).
func kindText(k runs.StepKind) string {
	if k == "" {
		return string(runs.StepRestore)
	}
	return string(k)
}

// NewMarkdownReporter renders c as a Markdown table: a header row and one
// row per case, each metric cell "base → other (change, verdict)".
func NewMarkdownReporter(c *Comparison) Reporter {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		fmt.Fprintf(ew, "Base: %s  \nOther: %s\n\n", mdEscape(c.BaseLabel), mdEscape(c.OtherLabel))
		for _, n := range c.Notes {
			fmt.Fprintf(ew, "- **note:** %s\n", mdEscape(n))
		}
		if len(c.Notes) > 0 {
			fmt.Fprintln(ew)
		}
		if len(c.Rows) == 0 {
			fmt.Fprintln(ew, "No cases to compare.")
			return ew.Err()
		}
		metrics := metricsIn(c.Rows)
		head := []string{"case", "verified base", "verified other"}
		for _, m := range metrics {
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
			for _, m := range metrics {
				cells = append(cells, mdMetricCell(m, row)) // numbers and fixed words only
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
		return ew.Err()
	}
}

// mdMetricCell is row's cell of metric m's column: "–" where m does not
// apply to the row's step kind, the scenario's own name of its seconds
// where it differs from the column's.
// metricsIn are the metrics of CompareMetrics that some row has: the
// Markdown table's columns (a standby step's columns only when one is
// compared).
func metricsIn(rows []CaseRow) []Metric {
	has := map[Metric]bool{}
	for _, row := range rows {
		for _, d := range row.Metrics {
			has[d.Metric] = true
		}
	}
	var out []Metric
	for _, m := range CompareMetrics {
		if has[m] || !standbyMetrics[m] {
			out = append(out, m)
		}
	}
	return out
}

func mdMetricCell(m Metric, row CaseRow) string {
	for _, d := range row.Metrics {
		if d.Metric != m {
			continue
		}
		c := mdCell(d, row)
		if l := m.LabelFor(row.Kind); l != m.Label() {
			c = l + ": " + c
		}
		return c
	}
	return "–"
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
