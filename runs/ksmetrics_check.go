package runs

import (
	"fmt"
	"math"

	"github.com/restorebench/restorebench/measure"
)

// MetricTolerance is how far one of Kafka Streams' own figures may lie from
// restorebench's measurement of the same thing (relative to it) and still
// agree with it: 10%. Counts (records, offsets) must match exactly.
const MetricTolerance = 0.10

// MetricVerdict is how one of Kafka Streams' figures reads against
// restorebench's measurement.
type MetricVerdict string

const (
	// VerdictAgrees: within MetricTolerance of restorebench's figure.
	VerdictAgrees MetricVerdict = "agrees"
	// VerdictWindow: a rate that differs from the restore's, but reads
	// what Kafka's metrics window gives from restorebench's own records:
	// the metric averages over a window longer than the restore, by design.
	VerdictWindow MetricVerdict = "window"
	// VerdictKnown: differs as a known Kafka Streams issue would (Known
	// names it).
	VerdictKnown MetricVerdict = "known issue"
	// VerdictDisagrees: differs beyond the tolerance, for no known reason.
	VerdictDisagrees MetricVerdict = "DISAGREES"
	// VerdictUnjudged: the samples cannot say (not recorded at the level
	// the client ran with, or no sample after the restore ended).
	VerdictUnjudged MetricVerdict = "not judged"
)

// Known Kafka Streams metric issues a difference can match. What the 4.4
// client does, read from its classes: StoreChangelogReader counts
// restore-remaining-records-total down by the offsets each batch advances
// the store past and closes it to the end offset when a restore completes
// (before, it was counted down by records, so offsets without a record
// kept it above 0: KAFKA-20711); TaskMetrics' restore-rate and update-rate
// are rates of the records restored (before, rates of the calls: one per
// batch, KAFKA-20877).
const (
	IssueRemainingGaps = "KAFKA-20711"
	IssueRateBatches   = "KAFKA-20877"
)

// MetricCheck is one of Kafka Streams' own figures of a restore beside
// restorebench's measurement of the same quantity.
type MetricCheck struct {
	// Metric is Kafka's metric name, summed over its tag sets (threads or
	// tasks); What says which reading of it (when, in what unit).
	Metric, What string
	// Kafka is the client's figure, Ours restorebench's.
	Kafka, Ours float64
	// WindowLo and WindowHi (for a rate, HasWindow) are what Kafka's
	// windowed rate reads at the moment of Kafka's figure when computed
	// from restorebench's own records over the restore: the range its
	// window's alignment allows.
	HasWindow          bool
	WindowLo, WindowHi float64
	Verdict            MetricVerdict
	// Known names the Kafka issue a VerdictKnown matches.
	Known string
	// Note says in words why the figures differ; empty when they agree.
	Note string
}

// Flagged says the check found Kafka's figure off restorebench's.
func (c MetricCheck) Flagged() bool {
	return c.Verdict != VerdictAgrees && c.Verdict != VerdictUnjudged
}

// MetricChecks sets Kafka Streams' own figures of the restore beside
// restorebench's: the restore rate by restore-records-rate (the state
// updater's) and by restore-rate (the tasks'), against the restore's
// records/s and against what Kafka's window gives from restorebench's
// records; restore-total against the records restored; and
// restore-remaining-records-total after the restore against 0. Nil for a
// record without Kafka Streams metrics (every record of older files) or
// without a restore phase (one that failed before it was measured).
func (r Restore) MetricChecks() []MetricCheck {
	if r.KafkaStreams == nil || r.KafkaStreams.Metrics == nil || r.Phase == nil {
		return nil
	}
	m, p := r.KafkaStreams.Metrics, *r.Phase
	return []MetricCheck{
		r.rateCheck(p, m, MetricGroupStateUpdater, MetricRestoreRecordsRate),
		r.rateCheck(p, m, MetricGroupTask, MetricRestoreRate),
		r.totalCheck(p, m),
		r.remainingCheck(p, m),
	}
}

// debugOnly reports whether Kafka Streams records the metric at DEBUG
// only, so a client at INFO shows it as 0.
func debugOnly(name string) bool {
	return name == MetricRestoreRate || name == MetricRestoreTotal
}

// unrecorded is the check of a DEBUG metric on a client that ran at a
// lower level, or nil.
func unrecorded(m *KafkaStreamsMetrics, name, what string) *MetricCheck {
	if !debugOnly(name) || m.RecordingLevel == "DEBUG" || m.RecordingLevel == "TRACE" {
		return nil
	}
	return &MetricCheck{Metric: name, What: what, Verdict: VerdictUnjudged,
		Note: fmt.Sprintf("Kafka Streams records it at DEBUG only; this client ran at %s", m.RecordingLevel)}
}

// rateCheck reads a restore-rate metric at its highest sample from the
// restore's start to the first sample after its end.
func (r Restore) rateCheck(p RestorePhase, m *KafkaStreamsMetrics, group, name string) MetricCheck {
	if c := unrecorded(m, name, "records/s"); c != nil {
		return *c
	}
	c := MetricCheck{Metric: name, Ours: p.RecordsPerSec}
	peak, ok := peakDuring(m.Total(group, name), p.Seconds)
	if !ok {
		c.What, c.Verdict, c.Note = "records/s", VerdictUnjudged, "no sample after the restore started"
		return c
	}
	c.Kafka = peak.Value
	c.What = fmt.Sprintf("records/s, highest sample (t = %.1f s)", peak.T)
	c.HasWindow = true
	series := r.Series
	if len(m.Restored) > 0 {
		series = m.Restored
	}
	c.WindowLo, c.WindowHi = windowBand(series, peak.T, float64(m.SampleWindowMs)/1000, m.NumSamples)
	judgeRate(&c, r, p, m)
	return c
}

// judgeRate gives a rate check its verdict.
func judgeRate(c *MetricCheck, r Restore, p RestorePhase, m *KafkaStreamsMetrics) {
	within := func(x, lo, hi float64) bool {
		return x >= lo*(1-MetricTolerance) && x <= hi*(1+MetricTolerance)
	}
	perBatch := 0.0
	if b := r.KafkaStreams.RestoreBatches; b > 0 {
		perBatch = float64(r.Records) / float64(b)
	}
	switch {
	case within(c.Kafka, c.Ours, c.Ours):
		c.Verdict = VerdictAgrees
	case within(c.Kafka, c.WindowLo, c.WindowHi):
		c.Verdict = VerdictWindow
		c.Note = fmt.Sprintf("%.2f× the restore's rate, as its %s window gives from restorebench's records: %s",
			ratio(c.Kafka, c.Ours), m.Window(), windowWhy(m, p.Seconds))
	case c.Metric == MetricRestoreRate && perBatch > 1 && within(c.Kafka*perBatch, c.WindowLo, c.WindowHi):
		c.Verdict, c.Known = VerdictKnown, IssueRateBatches
		c.Note = fmt.Sprintf("counts restore calls (batches of %.0f records), not records: %s", perBatch, IssueRateBatches)
	default:
		c.Verdict = VerdictDisagrees
		c.Note = fmt.Sprintf("beyond %.0f%% of the restore's rate and of what its %s window gives from restorebench's records", 100*MetricTolerance, m.Window())
	}
}

// windowWhy says how Kafka's window makes its rate differ from a
// restore's average rate.
func windowWhy(m *KafkaStreamsMetrics, durationSeconds float64) string {
	w := float64(m.SampleWindowMs) / 1000
	least := float64(m.NumSamples-1) * w
	if durationSeconds < least {
		return fmt.Sprintf("Kafka's rates divide by at least %s s, longer than the %.1f s restore", trimFloat(least), durationSeconds)
	}
	return fmt.Sprintf("it averages the last %s–%s s, not the %.1f s restore", trimFloat(least), trimFloat(least+w), durationSeconds)
}

// totalCheck reads restore-total after the restore against the records
// restored.
func (r Restore) totalCheck(p RestorePhase, m *KafkaStreamsMetrics) MetricCheck {
	const what = "records restored, after the restore"
	if c := unrecorded(m, MetricRestoreTotal, what); c != nil {
		return *c
	}
	c := MetricCheck{Metric: MetricRestoreTotal, What: what, Ours: float64(r.Records)}
	last, ok := lastAfter(m.Total(MetricGroupTask, MetricRestoreTotal), p.Seconds)
	if !ok {
		c.Verdict, c.Note = VerdictUnjudged, "no sample after the restore ended"
		return c
	}
	c.Kafka = last.Value
	switch batches := float64(r.KafkaStreams.RestoreBatches); {
	case c.Kafka == c.Ours:
		c.Verdict = VerdictAgrees
	case batches > 0 && c.Kafka == batches && batches != c.Ours:
		c.Verdict, c.Known = VerdictKnown, IssueRateBatches
		c.Note = fmt.Sprintf("counts the %.0f restore calls (batches), not records: %s", batches, IssueRateBatches)
	default:
		c.Verdict = VerdictDisagrees
		c.Note = fmt.Sprintf("%+.0f records off the records the restore listener counted", c.Kafka-c.Ours)
	}
	return c
}

// remainingCheck reads restore-remaining-records-total after the restore
// against 0: every restore had ended.
func (r Restore) remainingCheck(p RestorePhase, m *KafkaStreamsMetrics) MetricCheck {
	c := MetricCheck{Metric: MetricRestoreRemaining, What: fmt.Sprintf("offsets left, after the restore (of %d spanned)", m.OffsetsSpanned)}
	last, ok := lastAfter(m.Total(MetricGroupTask, MetricRestoreRemaining), p.Seconds)
	if !ok {
		c.Verdict, c.Note = VerdictUnjudged, "no sample after the restore ended"
		return c
	}
	c.Kafka = last.Value
	gaps := float64(m.OffsetsSpanned - r.Records)
	switch {
	case c.Kafka == 0:
		c.Verdict = VerdictAgrees
	case gaps > 0 && c.Kafka == gaps:
		c.Verdict, c.Known = VerdictKnown, IssueRemainingGaps
		c.Note = fmt.Sprintf("stays at the %.0f offsets that held no record (compacted away, markers): counted down by "+
			"records, not offsets: %s", gaps, IssueRemainingGaps)
	default:
		c.Verdict = VerdictDisagrees
		c.Note = fmt.Sprintf("not 0 after every restore ended (%.0f offsets held no record)", max(gaps, 0))
	}
	return c
}

// peakDuring is the highest point after the restore's start, up to and
// including the first point at or after its end (which still holds the
// restore in its window).
func peakDuring(pts []TotalPoint, durationSeconds float64) (TotalPoint, bool) {
	var best TotalPoint
	found := false
	for _, p := range pts {
		if p.T <= 0 {
			continue
		}
		if !found || p.Value > best.Value {
			best, found = p, true
		}
		if p.T >= durationSeconds {
			break
		}
	}
	return best, found
}

// lastAfter is the last point, if it was sampled at or after the
// restore's end.
func lastAfter(pts []TotalPoint, durationSeconds float64) (TotalPoint, bool) {
	if len(pts) == 0 || pts[len(pts)-1].T < durationSeconds {
		return TotalPoint{}, false
	}
	return pts[len(pts)-1], true
}

// windowBand is what a Kafka Rate (metrics.num.samples samples of
// metrics.sample.window.ms, windowS seconds) reads at t seconds from the
// restore's start when fed the records of series. As Kafka 4.4's Rate
// computes it: the records of its retained samples, from the oldest
// one's start o to t, over the time since o padded up to samples-1 whole
// windows. The state updater's restore sensor records from the restore's
// first call, so its first sample starts at the restore's start (o >= 0);
// a later oldest sample starts between samples and samples-1 windows
// before t, depending on where the samples fell, which the event stream
// cannot tell. Nor can the series say when within one of its intervals a
// record came. The answer is the range over both.
func windowBand(series []measure.Point, t, windowS float64, samples int) (lo, hi float64) {
	if windowS <= 0 || samples < 1 || t <= 0 {
		return 0, 0
	}
	first := max(t-float64(samples)*windowS, 0)
	last := max(t-float64(samples-1)*windowS, 0)
	const steps = 50
	lo = math.Inf(1)
	toLo, toHi := cumBounds(series, t)
	for i := range steps + 1 {
		o := first + (last-first)*float64(i)/steps
		fromLo, fromHi := cumBounds(series, o)
		span := paddedSpan(t-o, windowS, samples)
		lo, hi = min(lo, max(toLo-fromHi, 0)/span), max(hi, (toHi-fromLo)/span)
	}
	return lo, hi
}

// cumBounds are the fewest and the most records the series can have
// restored by t seconds: the records up to the start and to the end of
// the interval t falls in (exact at an interval's end).
func cumBounds(series []measure.Point, t float64) (lo, hi float64) {
	var n, prevT float64
	for _, p := range series {
		if t <= prevT {
			break
		}
		if t < p.T {
			return n, n + float64(p.Records)
		}
		n += float64(p.Records)
		prevT = p.T
	}
	return n, n
}

// paddedSpan is the time a Kafka Rate divides by: elapsed seconds since
// its oldest sample started, plus the whole windows missing from
// samples-1 (never 0).
func paddedSpan(elapsed, windowS float64, samples int) float64 {
	if full := math.Floor(elapsed / windowS); full < float64(samples-1) {
		elapsed += (float64(samples-1) - full) * windowS
	}
	return max(elapsed, 0.001)
}

// ratio is a/b, 0 for b 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// KafkaText, OursText and WindowText are the check's figures as a table
// shows them ("–" where there is none).
func (c MetricCheck) KafkaText() string {
	if c.Verdict == VerdictUnjudged && c.Kafka == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", c.Kafka)
}

// OursText is restorebench's figure.
func (c MetricCheck) OursText() string {
	if c.Verdict == VerdictUnjudged && c.Ours == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", c.Ours)
}

// WindowText is what Kafka's window gives from restorebench's records: one
// figure, or a range when the window's alignment leaves one.
func (c MetricCheck) WindowText() string {
	switch {
	case !c.HasWindow:
		return "–"
	case c.WindowHi-c.WindowLo <= 0.005*c.WindowHi:
		return fmt.Sprintf("%.0f", c.WindowHi)
	}
	return fmt.Sprintf("%.0f–%.0f", c.WindowLo, c.WindowHi)
}

// VerdictText is the verdict in a table's words.
func (c MetricCheck) VerdictText() string {
	switch c.Verdict {
	case VerdictWindow:
		return "differs: window"
	case VerdictKnown:
		return "differs: " + c.Known
	}
	return string(c.Verdict)
}
