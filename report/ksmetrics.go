package report

import (
	"fmt"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/runs"
)

// ksMetricsTableLegend says what the columns of the Kafka Streams metrics table mean.
const ksMetricsTableLegend = "metric: Kafka Streams' own, summed over its state-updater threads " +
	"(stream-state-updater-metrics) or tasks (stream-task-metrics); " +
	"reading: which sample, in what unit; " +
	"restorebench: records/s over the restore, records restored, offsets left (0: every restore ended); " +
	"its window gives: what Kafka's windowed rate reads from restorebench's records at " +
	"that sample (a range where the window's alignment is not known); " +
	"verdict: agrees, differs by the window's design, differs as a " +
	"known Kafka Streams issue would, or DISAGREES."

// kafkaStreamsMetricsSection sets Kafka Streams' own restore metrics beside
// restorebench's measurement of the same restores (runs.MetricChecks), for
// the restores whose case sampled them; empty (and so left out) for inputs
// without any, every run written before they were recorded among them.
func kafkaStreamsMetricsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "kafka-streams-metrics", Title: "Kafka Streams' own metrics"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return len(r.MetricChecks()) > 0 })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "What Kafka Streams reported about its own restores (sampled through " +
		"`KafkaStreams#metrics()` while the restores whose case set `kafka_streams_metrics` ran), " +
		"beside restorebench's measurement of the same quantity: a dashboard's figures read against a measured truth. " +
		fmt.Sprintf("A figure **agrees** within %.0f%% of restorebench's (counts exactly). ", 100*runs.MetricTolerance) +
		"Kafka's rates average over its metrics window (`metrics.num.samples` × `metrics.sample.window.ms`, by default 2 " +
		"× 30 s, dividing by at least `metrics.num.samples` − 1 windows): " +
		"a restore shorter than that reads low by design, and the table gives what the window makes of restorebench's own records."})
	tab := &Table{Head: []string{"restore", "metric", "reading", "Kafka Streams", "restorebench", "its window gives", "verdict"},
		Right:  []bool{false, false, false, true, true, true, false},
		Legend: ksMetricsTableLegend}
	var notes []string
	for _, x := range recs {
		notes = append(notes, fmt.Sprintf("%s: %s.", x.ref(), x.r.KafkaStreams.Metrics.Describe()))
		for _, c := range x.r.MetricChecks() {
			tab.Rows = append(tab.Rows, []string{x.ref(), c.Metric, c.What, c.KafkaText(), c.OursText(), c.WindowText(), c.VerdictText()})
			if c.Note != "" {
				notes = append(notes, fmt.Sprintf("%s %s: %s.", x.ref(), c.Metric, c.Note))
			}
		}
	}
	s.Blocks = append(s.Blocks, tab, &List{Items: notes}, &Para{Note: true, Text: knownIssuesNote})
	return s, nil
}

// knownIssuesNote says what Kafka Streams 4.4 does about the metric
// issues a difference is matched to.
const knownIssuesNote = "Known issues, as Kafka Streams 4.4's own classes show them: restore-remaining-records-total " +
	"starts at the offsets between a restore's start and end offsets, " +
	"is counted down by the offsets each batch advances the store past and is closed to the end offset when the restore " +
	"completes, so it reaches 0 over compaction gaps and transaction markers " +
	"(" + runs.IssueRemainingGaps + ", where it was counted down by records and stayed above 0); restore-rate and update-rate are rates of the records restored " +
	"(" + runs.IssueRateBatches + ", where they counted restore calls, one per batch). A difference that matches either is named after it."
