package fleet

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// ksMetricsWait bounds the wait, once restored, for the first metrics
// sample after the last restore ended (the driver samples at its process
// interval, a second by default): the sample that shows the restore whole.
const ksMetricsWait = 3 * time.Second

// SampledMetrics are Kafka Streams' own restore metrics over a restore,
// for the record beside restorebench's measurement; nil unless the case
// asked for them (kafka_streams_metrics). It waits (ksMetricsWait at most)
// for the first sample at or after the last restore's end, so the record
// holds the figures Kafka Streams gave once every restore had ended.
func SampledMetrics(ctx context.Context, inst KSInstance, c config.Case, r *ksdriver.Restores) *runs.KafkaStreamsMetrics {
	if !c.KafkaStreamsMetrics {
		return nil
	}
	first, last, ok := r.Span()
	if !ok {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, ksMetricsWait)
	defer cancel()
	inst.WaitFor(wctx, 0, func(e ksdriver.Event) bool {
		m, ok := e.(*ksdriver.Metrics)
		return ok && m.MonoNs >= last
	})
	return foldMetrics(metricSamples(inst.Events()), r, first, last)
}

// metricSamples are the metrics events among events, in order.
func metricSamples(events []ksdriver.Event) []*ksdriver.Metrics {
	var out []*ksdriver.Metrics
	for _, e := range events {
		if m, ok := e.(*ksdriver.Metrics); ok {
			out = append(out, m)
		}
	}
	return out
}

// foldMetrics turns the samples from the last one at or before the first
// restore's start (firstNs) to the first one at or after the last
// restore's end (lastNs) into the record's series, one per metric and tag
// set, timed from firstNs; nil without samples.
func foldMetrics(samples []*ksdriver.Metrics, r *ksdriver.Restores, firstNs, lastNs int64) *runs.KafkaStreamsMetrics {
	from, to := 0, len(samples)-1
	for i, s := range samples {
		if s.MonoNs <= firstNs {
			from = i
		}
		if s.MonoNs >= lastNs {
			to = i
			break
		}
	}
	if len(samples) == 0 || to < from {
		return nil
	}
	h := samples[from]
	out := &runs.KafkaStreamsMetrics{RecordingLevel: h.RecordingLevel, RecordingLevelSet: h.RecordingLevelSet,
		SampleWindowMs: h.SampleWindowMs, NumSamples: h.NumSamples, IntervalSeconds: sampleInterval(samples)}
	for _, p := range r.Partitions() {
		out.OffsetsSpanned += max(p.EndOffset-p.StartOffset, 0)
	}
	if every := runs.RestoredResolution(out.SampleWindowMs); every < time.Second {
		out.Restored, out.RestoredEverySeconds = r.Series(firstNs, lastNs, every, 0), every.Seconds()
	}
	index := map[string]int{}
	for _, s := range samples[from : to+1] {
		t := float64(s.MonoNs-firstNs) / 1e9
		for _, v := range s.Metrics {
			k := metricKey(v.Group, v.Name, v.Tags)
			i, ok := index[k]
			if !ok {
				i = len(out.Series)
				index[k] = i
				out.Series = append(out.Series, runs.MetricSeries{Group: v.Group, Name: v.Name, Tags: maps.Clone(v.Tags)})
			}
			out.Series[i].Points = append(out.Series[i].Points, runs.MetricPoint{T: t, Value: copyValue(v.Value)})
		}
	}
	sort.SliceStable(out.Series, func(i, j int) bool {
		a, b := out.Series[i], out.Series[j]
		return metricKey(a.Group, a.Name, a.Tags) < metricKey(b.Group, b.Name, b.Tags)
	})
	return out
}

// sampleInterval is the median time between samples, in seconds (0 with
// fewer than two): how often the driver sampled, as it did.
func sampleInterval(samples []*ksdriver.Metrics) float64 {
	var gaps []float64
	for i := 1; i < len(samples); i++ {
		gaps = append(gaps, float64(samples[i].MonoNs-samples[i-1].MonoNs)/1e9)
	}
	return runs.Median(gaps)
}

// metricKey names a metric and its tag set, in an order that sorts by
// group, name, then tags.
func metricKey(group, name string, tags map[string]string) string {
	var b strings.Builder
	b.WriteString(group + "\x00" + name)
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString("\x00" + k + "=" + tags[k])
	}
	return b.String()
}

func copyValue(v *float64) *float64 {
	if v == nil {
		return nil
	}
	x := *v
	return &x
}
