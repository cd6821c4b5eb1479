package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/errwriter"
	"github.com/restorebench/restorebench/runs"
)

// EnginePair is one setting run on both engines in one results file: the
// model's restore seconds against real Kafka Streams', the figure that
// calibrates the model (issue 9: a model prediction scaled by a measured
// factor is labelled calibrated).
type EnginePair struct {
	// Setting names the pair by the settings that differ between the
	// file's pairs ("batch_records=1000 threads=2"); "default" when there
	// is one setting.
	Setting string
	// KafkaStreamsSide tells apart the pairs of one model case with
	// several kafka-streams cases: the Kafka Streams-only settings that
	// differ between those cases ("streams.restore.consumer.fetch.max.wait.ms=10"),
	// with the case's name when they do not ("vs ks-b"); "" for a model
	// case with one kafka-streams case. Label joins the two.
	KafkaStreamsSide string
	// ModelCase and KafkaStreamsCase are the two cases' names.
	ModelCase, KafkaStreamsCase string
	// Params are the model case's settings (the pair's setting; the
	// kafka-streams case differs only in the engine and the JVM).
	Params config.Case
	// Topic is the changelog both cases restored: a pair never spans two
	// changelogs, so each size of a sweep has pairs of its own. Size is
	// the sweep's size label ("1GiB"), empty outside a sweep.
	Topic, Size string
	// Bytes is the median key+value bytes the model's verified repeats
	// read; Threads how many threads restored them in parallel
	// (runs.Restore.RestoringThreads): Bytes / Threads is the work of one
	// thread, the size a factor is matched on.
	Bytes   float64
	Threads int
	// Model and KafkaStreams are each side's restore seconds over its
	// verified, error-free repeats.
	Model, KafkaStreams Stat
	// Ratios are model / kafka-streams restore seconds of repeat pairs:
	// repeat i of one case with repeat i of the other, both verified, in
	// repeat order. With an interleaved run these ran next to each other.
	Ratios []float64
	// Ratio summarizes Ratios (median, min, max, N pairs); without any
	// repeat pair it is the ratio of the two medians, with N 0 (not when
	// repeats were left out as Unmatched, nor when the restores the medians
	// summarize read different records: that counts as one Unmatched).
	Ratio Stat
	// Unmatched counts the repeat pairs left out because the two engines
	// read different records (more than 1% apart): their times measure
	// different work. Kafka Streams 4.4 seeks a window or session
	// changelog past its expired head only when its probe poll returns a
	// record within poll.ms, and otherwise restores that partition from
	// the log start; the model always seeks.
	Unmatched int
}

// allLeftOut says every repeat pair was left out for reading different
// records: the pair has no ratio at all.
func (p EnginePair) allLeftOut() bool { return p.Ratio.N == 0 && p.Unmatched > 0 }

// sameWork says whether two restores read the same records (within 1%),
// so that their times can be compared.
func sameWork(a, b runs.Restore) bool {
	return math.Abs(float64(a.Records-b.Records)) <= 0.01*float64(max(a.Records, b.Records))
}

// ModelOverKafkaStreams is the setting's ratio, model time / Kafka Streams
// time (the median repeat-pair ratio): Kafka Streams' time is the model's
// divided by it. 0 when either side has no verified repeat.
func (p EnginePair) ModelOverKafkaStreams() float64 { return p.Ratio.Median }

// SettingHoldOut is one setting's Kafka Streams time predicted from the model's
// with the calibration factor of the other settings: how well a
// calibration carries to a setting it was not measured on.
type SettingHoldOut struct {
	Setting string
	// ModelOverKafkaStreams is the median of the other settings' ratios
	// (EnginePair.ModelOverKafkaStreams); Predicted the model's median
	// seconds divided by it; Measured Kafka Streams' median.
	ModelOverKafkaStreams, Predicted, Measured float64
	// ErrorPct is (Predicted - Measured) / Measured in percent.
	ErrorPct float64
}

// SettingHoldOuts predicts each setting's Kafka Streams time from the factor of
// the others (nil with fewer than two complete pairs).
func SettingHoldOuts(pairs []EnginePair) []SettingHoldOut {
	var complete []EnginePair
	for _, p := range pairs {
		// A pair with repeats left out for reading different records has
		// medians over other work than its ratio: it neither predicts nor
		// is predicted.
		if p.Model.N > 0 && p.KafkaStreams.N > 0 && p.ModelOverKafkaStreams() > 0 && p.Unmatched == 0 {
			complete = append(complete, p)
		}
	}
	if len(complete) < 2 {
		return nil
	}
	out := make([]SettingHoldOut, 0, len(complete))
	for i, p := range complete {
		var others []float64
		for j, q := range complete {
			if j != i {
				others = append(others, q.ModelOverKafkaStreams())
			}
		}
		label := p.Label()
		if p.Size != "" {
			label += " @" + p.Size
		}
		h := SettingHoldOut{Setting: label, ModelOverKafkaStreams: runs.Median(others), Measured: p.KafkaStreams.Median}
		h.Predicted = p.Model.Median / h.ModelOverKafkaStreams
		h.ErrorPct = (h.Predicted - h.Measured) / h.Measured * 100
		out = append(out, h)
	}
	return out
}

// BytesPerThread is the changelog bytes one restoring thread read: the
// size axis a calibration is fitted and applied on (0 when unknown).
func (p EnginePair) BytesPerThread() float64 {
	if p.Threads <= 0 {
		return p.Bytes
	}
	return p.Bytes / float64(p.Threads)
}

// kafkaStreamsOnly are the results.json names of a case's settings that
// say which Kafka Streams ran it and how: the model has none of them.
var kafkaStreamsOnly = []string{"kafka_streams_version", "jvm_heap", "jvm_flags", "kafka_streams_metrics", "streams"}

// settingKeys are the results.json names of a case's settings that do not
// say which engine ran it: what two cases must share to be a pair.
func settingKeys(c config.Case) map[string]any {
	return flatKeys(c, func(k string) bool { return k != "engine" && !slices.Contains(kafkaStreamsOnly, k) })
}

// kafkaStreamsKeys are a kafka-streams case's Kafka Streams-only settings
// (kafkaStreamsOnly), which tell apart two kafka-streams cases paired
// with one model case.
func kafkaStreamsKeys(c config.Case) map[string]any {
	return flatKeys(c, func(k string) bool { return slices.Contains(kafkaStreamsOnly, k) })
}

// flatKeys are the case's settings whose top-level results.json names
// keep holds, a nested object's as "name.key".
func flatKeys(c config.Case, keep func(string) bool) map[string]any {
	raw, _ := json.Marshal(c)
	var m map[string]any
	json.Unmarshal(raw, &m)
	flat := map[string]any{}
	for k, v := range m {
		if !keep(k) {
			continue
		}
		if sub, ok := v.(map[string]any); ok {
			for sk, sv := range sub {
				flat[k+"."+sk] = sv
			}
			continue
		}
		flat[k] = v
	}
	return flat
}

// SettingID is the setting a case measures, whichever engine ran it: two
// cases with equal SettingIDs are one setting on two engines.
func SettingID(c config.Case) string {
	b, _ := json.Marshal(settingKeys(c)) // maps marshal with sorted keys
	return string(b)
}

// EnginePairs pairs every kafka-streams case of the restores with the model
// case of the same settings (everything but the engine and the Kafka
// Streams version, the JVM settings,
// the sampling of Kafka Streams' metrics and the Kafka Streams-only
// properties) on the same changelog (in a size sweep, the same size), in
// the order the model cases first ran. Cases without a counterpart are
// left out.
func EnginePairs(restores []runs.Restore) []EnginePair {
	groups := runs.GroupByCase(restores)
	var models []runs.CaseRestores
	ks := map[string][]runs.CaseRestores{}
	for _, g := range groups {
		p := g.Restores[0].Params
		if runs.EngineOf(p) == config.EngineKafkaStreams {
			ks[pairKey(g)] = append(ks[pairKey(g)], g)
		} else {
			models = append(models, g)
		}
	}
	var out []EnginePair
	var params, ksParams []config.Case
	for _, m := range models {
		for _, k := range ks[pairKey(m)] {
			out = append(out, pairOf(m, k))
			params = append(params, m.Restores[0].Params)
			ksParams = append(ksParams, k.Restores[0].Params)
		}
	}
	labels := settingLabels(params)
	for i := range out {
		out[i].Setting = labels[i]
	}
	nameKafkaStreamsSides(out, ksParams)
	return out
}

// pairKey is what a model and a kafka-streams case share to be a pair:
// the setting and the changelog restored.
func pairKey(g runs.CaseRestores) string {
	first := g.Restores[0]
	return SettingID(first.Params) + "|" + first.Topic
}

// pairOf compares one model case with one kafka-streams case.
func pairOf(m, k runs.CaseRestores) EnginePair {
	first := m.Restores[0]
	p := EnginePair{ModelCase: m.Case, KafkaStreamsCase: k.Case, Params: first.Params, Topic: first.Topic, Size: first.SweepSize(),
		Model: metricStat(MetricRestoreSeconds, m.Restores), KafkaStreams: metricStat(MetricRestoreSeconds, k.Restores)}
	p.Bytes, p.Threads = workOf(m.Restores)
	byRepeat := map[int]runs.Restore{}
	for _, r := range k.Restores {
		if secs, ok := r.RestoreSeconds(); r.Counts() && ok && secs > 0 {
			byRepeat[r.Repeat] = r
		}
	}
	for _, r := range m.Restores {
		o, ok := byRepeat[r.Repeat]
		switch {
		case !ok || !r.Counts() || r.Phase == nil:
		case !sameWork(r, o):
			p.Unmatched++
		default:
			p.Ratios = append(p.Ratios, r.Phase.Seconds/o.Phase.Seconds)
		}
	}
	p.Ratio = StatOf(p.Ratios)
	if p.Ratio.N == 0 && p.Unmatched == 0 && p.Model.N > 0 && p.KafkaStreams.N > 0 && p.KafkaStreams.Median > 0 {
		if !allSameWork(m.Restores, k.Restores) {
			// The medians measure different work as a repeat pair
			// would: left out the same way, counted as one.
			p.Unmatched++
			return p
		}
		r := p.Model.Median / p.KafkaStreams.Median
		p.Ratio = Stat{Median: r, Min: r, Max: r}
	}
	return p
}

// allSameWork says whether every verified restore of both cases read the
// same records (within 1%), so that their medians can be compared.
func allSameWork(m, k []runs.Restore) bool {
	var counted []runs.Restore
	for _, r := range append(append([]runs.Restore{}, m...), k...) {
		if r.Counts() {
			counted = append(counted, r)
		}
	}
	for _, r := range counted {
		if !sameWork(r, counted[0]) {
			return false
		}
	}
	return true
}

// workOf is the median bytes the verified restores read and the fewest
// threads that restored in parallel in any of them.
func workOf(rs []runs.Restore) (bytes float64, threads int) {
	var bs []float64
	for _, r := range rs {
		if !r.Counts() {
			continue
		}
		bs = append(bs, float64(r.Bytes))
		if t := r.RestoringThreads(); threads == 0 || t < threads {
			threads = t
		}
	}
	return runs.Median(bs), threads
}

// settingLabels names each setting by the keys whose values differ
// between them, as key=value in key order; "default" when none do.
func settingLabels(cs []config.Case) []string {
	flats := make([]map[string]any, len(cs))
	for i, c := range cs {
		flats[i] = settingKeys(c)
	}
	out := labelsOf(flats)
	for i := range out {
		if out[i] == "" {
			out[i] = "default"
		}
	}
	return out
}

// labelsOf names each map by the keys whose values differ between them,
// as key=value in key order; "" when none do.
func labelsOf(flats []map[string]any) []string {
	varying := map[string]bool{}
	for _, f := range flats {
		for k, v := range f {
			for _, g := range flats {
				if !reflect.DeepEqual(v, g[k]) {
					varying[k] = true
				}
			}
		}
	}
	keys := make([]string, 0, len(varying))
	for k := range varying {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(flats))
	for i, f := range flats {
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%v", strings.TrimPrefix(k, "rocksdb_options."), show(f[k])))
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// nameKafkaStreamsSides sets KafkaStreamsSide on the pairs whose model case
// pairs with several kafka-streams cases on one changelog (ks holds each
// pair's kafka-streams settings): the Kafka Streams-only settings that
// differ between those cases, and the case's name when they do not tell
// every one apart.
func nameKafkaStreamsSides(pairs []EnginePair, ks []config.Case) {
	shared := map[string][]int{}
	for i, p := range pairs {
		key := p.ModelCase + "|" + p.Topic
		shared[key] = append(shared[key], i)
	}
	for _, idx := range shared { // each group names its own pairs: any order
		if len(idx) < 2 {
			continue
		}
		flats := make([]map[string]any, len(idx))
		for j, i := range idx {
			flats[j] = kafkaStreamsKeys(ks[i])
		}
		labels := labelsOf(flats)
		unique := map[string]bool{}
		for _, l := range labels {
			unique[l] = true
		}
		for j, i := range idx {
			side := labels[j]
			if len(unique) < len(labels) {
				side = strings.TrimSpace(side + " vs " + pairs[i].KafkaStreamsCase)
			}
			pairs[i].KafkaStreamsSide = side
		}
	}
}

// Label names the pair in a table: its setting, and the Kafka Streams
// side when its model case paired with several kafka-streams cases.
func (p EnginePair) Label() string {
	if p.KafkaStreamsSide == "" {
		return p.Setting
	}
	return p.Setting + ", " + p.KafkaStreamsSide
}

// CalibrationDefinition explains the calibration table, for its footer.
const CalibrationDefinition = `ratio = model restore s / kafka-streams restore s of repeat pairs (repeat i of both
cases, both verified), median and min-max over the pairs; below 1 the model is faster.
A model time divided by the ratio predicts Kafka Streams' time for that setting.
A repeat pair whose engines read different records (more than 1% apart) is left out:
a real broker's log cleaner compacts the changelog between the two restores (the
calibration profiles hold it: hold_cleaner), and
Kafka Streams 4.4 seeks a window or session changelog past its expired head only when
its probe poll returns a record in time, and otherwise reads that partition from the start.`

// NewCalibrationReporter renders engine pairs as a terminal table, or as
// Markdown when markdown is set.
func NewCalibrationReporter(pairs []EnginePair, markdown bool) Reporter {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		if len(pairs) == 0 {
			fmt.Fprintln(ew, "no setting ran on both engines (a pair is a model case and a kafka-streams case with the same settings)")
			return ew.Err()
		}
		head, rows := pairRows(pairs)
		holdHead := []string{"held-out setting", "factor of the others", "predicted kafka-streams s", "measured kafka-streams s", "error"}
		var holdRows [][]string
		for _, h := range SettingHoldOuts(pairs) {
			holdRows = append(holdRows, []string{h.Setting, fmt.Sprintf("%.3f", h.ModelOverKafkaStreams),
				formatValue(MetricRestoreSeconds, h.Predicted), formatValue(MetricRestoreSeconds, h.Measured), fmt.Sprintf("%+.1f%%", h.ErrorPct)})
		}
		if markdown {
			writeMarkdownTable(ew, head, rows)
			fmt.Fprintf(ew, "\n%s\n", mdEscape(strings.ReplaceAll(CalibrationDefinition, "\n", " ")))
			if len(holdRows) > 0 {
				fmt.Fprintln(ew)
				writeMarkdownTable(ew, holdHead, holdRows)
				fmt.Fprintf(ew, "\n%s\n", mdEscape(strings.ReplaceAll(SettingHoldOutDefinition, "\n", " ")))
			}
			return ew.Err()
		}
		writeTable(ew, head, rows)
		fmt.Fprintf(ew, "\n%s\n", CalibrationDefinition)
		if len(holdRows) > 0 {
			fmt.Fprintln(ew)
			writeTable(ew, holdHead, holdRows)
			fmt.Fprintf(ew, "\n%s\n", SettingHoldOutDefinition)
		}
		return ew.Err()
	}
}

// pairsText is the pair count, with the repeat pairs left out for reading
// different records: "3", "0 (2 left out: the engines read different
// records)".
func pairsText(p EnginePair) string {
	if p.Unmatched == 0 {
		return fmt.Sprint(p.Ratio.N)
	}
	return fmt.Sprintf("%d (%d left out: the engines read different records)", p.Ratio.N, p.Unmatched)
}

// pairRows are the calibration table's head and a row per pair; a column
// of the sweep's fill joins them when the pairs come from a sweep: "size"
// for a size sweep's, "fill" when a label is not a size (a store-kind
// sweep's kinds).
func pairRows(pairs []EnginePair) ([]string, [][]string) {
	sized, col := false, "size"
	for _, p := range pairs {
		sized = sized || p.Size != ""
		if _, err := config.ParseSize(p.Size); p.Size != "" && err != nil {
			col = "fill"
		}
	}
	head := []string{"setting", "model s", "model range", "kafka-streams s", "kafka-streams range", "model/KS", "ratio range", "pairs"}
	if sized {
		head = append([]string{col}, head...)
	}
	var rows [][]string
	for _, p := range pairs {
		row := []string{p.Label(),
			secondsText(p.Model), rangeOf(p.Model), secondsText(p.KafkaStreams), rangeOf(p.KafkaStreams),
			ratioText(p), pairRangeText(p), pairsText(p)}
		if sized {
			row = append([]string{p.Size}, row...)
		}
		rows = append(rows, row)
	}
	return head, rows
}

// SettingHoldOutDefinition says what the hold-out table shows.
const SettingHoldOutDefinition = `held out: each setting's Kafka Streams time predicted as its model time divided by the
median factor of the other settings, against what Kafka Streams measured.`

func writeTable(w io.Writer, head []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

func secondsText(s Stat) string {
	if s.N == 0 {
		return "no verified repeats"
	}
	return formatValue(MetricRestoreSeconds, s.Median)
}

func rangeOf(s Stat) string {
	if s.N < 2 {
		return fmt.Sprintf("n=%d", s.N)
	}
	return fmt.Sprintf("%s..%s n=%d", formatValue(MetricRestoreSeconds, s.Min), formatValue(MetricRestoreSeconds, s.Max), s.N)
}

func ratioText(p EnginePair) string {
	if p.Model.N == 0 || p.KafkaStreams.N == 0 || p.allLeftOut() {
		return "-"
	}
	return fmt.Sprintf("%.3f", p.Ratio.Median)
}

// pairRangeText is the pair's ratio range, "-" when every repeat pair was
// left out.
func pairRangeText(p EnginePair) string {
	if p.allLeftOut() {
		return "-"
	}
	return ratioRange(p.Ratio)
}

func ratioRange(s Stat) string {
	switch {
	case s.N == 0:
		return "ratio of medians"
	case s.N == 1:
		return "n=1"
	}
	return fmt.Sprintf("%.3f..%.3f", s.Min, s.Max)
}

func writeMarkdownTable(w io.Writer, head []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}
