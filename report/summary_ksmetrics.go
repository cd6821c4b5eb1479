package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
)

// metricRow is one of Kafka Streams' own figures of a restore beside
// restorebench's.
type metricRow struct {
	r runs.Restore
	c runs.MetricCheck
}

// kafkaStreamsMetricsLegend says what the metrics table's columns are.
var kafkaStreamsMetricsLegend = []string{
	"metric: Kafka Streams' own (stream-state-updater-metrics restore-records-rate; stream-task-metrics restore-rate, restore-total,",
	"restore-remaining-records-total), summed over its threads or tasks; reading: which sample, in what unit; Kafka Streams: its figure;",
	"restorebench: the same quantity as measured here (records/s over the restore, records restored, offsets left: 0);",
	fmt.Sprintf("its window gives: what Kafka's windowed rate reads from restorebench's records at that sample; "+
		"verdict: agrees within %.0f%%", 100*runs.MetricTolerance),
	"(counts exactly), differs by the window's design, differs as a known Kafka Streams issue would, or DISAGREES",
}

// printKafkaStreamsMetrics prints Kafka Streams' own restore metrics beside
// restorebench's measurement, for the records that sampled them
// (kafka_streams_metrics), then how each record's metrics were taken and
// why a figure differs; nothing for records without them (older files).
func printKafkaStreamsMetrics(w io.Writer, restores []runs.Restore) {
	var rows []metricRow
	var sampled []runs.Restore
	for _, r := range restores {
		checks := r.MetricChecks()
		if len(checks) > 0 {
			sampled = append(sampled, r)
		}
		for _, c := range checks {
			rows = append(rows, metricRow{r, c})
		}
	}
	if !textTable(w, "Kafka Streams' own metrics beside restorebench's measurement:",
		"case\t#\tmetric\treading\tKafka Streams\trestorebench\tits window gives\tverdict", kafkaStreamsMetricsLegend,
		rows, func(x metricRow) string {
			return fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s", x.r.Case, x.r.Repeat, x.c.Metric, x.c.What,
				x.c.KafkaText(), x.c.OursText(), x.c.WindowText(), x.c.VerdictText())
		}) {
		return
	}
	for _, r := range sampled {
		fmt.Fprintf(w, "  %s #%d: %s\n", r.Case, r.Repeat, r.KafkaStreams.Metrics.Describe())
	}
	for _, x := range rows {
		if x.c.Note != "" {
			fmt.Fprintf(w, "  %s #%d %s: %s\n", x.r.Case, x.r.Repeat, x.c.Metric, x.c.Note)
		}
	}
}
