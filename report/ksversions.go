package report

import (
	"fmt"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/runs"
)

// kafkaStreamsVersionsSection sets, for each run whose records ran several
// Kafka Streams versions (the versions profile), every case on each version
// beside the same case on the baseline version (compare.CompareVersions):
// each metric's medians, the change and whether it exceeds the repeats'
// spread. Nothing for runs of one version.
func kafkaStreamsVersionsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "kafka-streams-versions", Title: "Kafka Streams versions"}
	for _, r := range a.Runs {
		restores := r.Results.Restores
		versions := runs.KafkaStreamsVersions(restores)
		if len(versions) < 2 {
			continue
		}
		base := compare.BaselineVersion(restores)
		rows, err := compare.CompareVersions(restores, base)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("Run %s ran Kafka Streams %s; each case on another version "+
			"beside the same case (the same settings and step) on %s.",
			r.Label, listing.And(versions), base)}, versionsTable(rows))
	}
	return s, nil
}

// versionsTableLegend says what the columns of the Kafka Streams versions table mean.
const versionsTableLegend = "case: the record's case on one version; " +
	"vs: the same case on the baseline version; " +
	"base, other: medians over the verified repeats (seconds, MB/s, MiB as the metric says); " +
	"change: (other - base) / base; " +
	"vs spread: whether the two sides' ranges over the repeats are disjoint and unlikely " +
	"so by chance (compare's rule: exact Mann-Whitney p at most 0.05)."

// versionsTable is one line per compared case and metric.
func versionsTable(rows []compare.CaseRow) *Table {
	t := &Table{Head: []string{"case", "vs", "metric", "base", "other", "change", "vs spread"},
		Right:  []bool{false, false, false, true, true, true, false},
		Legend: versionsTableLegend}
	for _, row := range rows {
		for _, d := range row.Metrics {
			base, other, change := "-", "-", ""
			if d.Base.N > 0 {
				base = fmt.Sprintf("%.3g", d.Base.Median)
			}
			if d.Other.N > 0 {
				other = fmt.Sprintf("%.3g", d.Other.Median)
			}
			if d.HasChange {
				change = fmt.Sprintf("%+.1f%%", d.ChangePct)
			}
			t.Rows = append(t.Rows, []string{row.Case, row.BaseCase, d.Metric.LabelFor(row.Kind), base, other, change, d.VerdictText()})
		}
	}
	return t
}
