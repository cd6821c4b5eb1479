package report

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/runs"
)

// fitsSection shows restore time against changelog and live-state size:
// charts, the fitted lines, residuals per size, the hold-out check, the
// setups that need more sizes and the engine calibration.
func fitsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "fits", Title: "Restore time against size"}
	s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("Each line is an ordinary least-squares fit (gonum "+
		"`stat.LinearRegression`) of the time to ready — the restore plus the ready phase, until the "+
		"store serves — "+
		"against size, over every verified restore of one configuration on one host. A configuration needs restores at %d or more sizes to be fitted; "+
		"a prediction outside the measured sizes is marked as an extrapolation.", capacity.MinFitSizes)})
	for _, axis := range []capacity.Axis{capacity.AxisChangelog, capacity.AxisLive} {
		blocks, err := axisBlocks(a, axis)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, blocks...)
	}
	if len(a.NeedSizes) > 0 {
		var items []string
		for _, n := range a.NeedSizes {
			items = append(items, n.Error())
		}
		s.Blocks = append(s.Blocks, &Heading{Text: "Not fitted"}, &List{Items: items})
	}
	s.Blocks = append(s.Blocks, costBlocks(a)...)
	s.Blocks = append(s.Blocks, calibrationBlocks(a)...)
	s.Blocks = append(s.Blocks, confirmationBlocks(a)...)
	return s, nil
}

func axisBlocks(a *capacity.Analysis, axis capacity.Axis) ([]Block, error) {
	var out []Block
	out = append(out, &Heading{Text: "Against " + axis.Label()})
	if axis == capacity.AxisLive {
		out = append(out, &Para{Text: "Live state is the key+value bytes the stores hold after the restore: what the changelog compacts down to. " +
			"A fit against it carries the fills' records per live key, so it predicts changelogs with as many overwrites as these.", Note: true})
	}
	f, err := analysisFigure("fit-"+string(axis), a)
	if err != nil {
		return nil, err
	}
	if f != nil && len(a.Obs) > 0 {
		out = append(out, f)
	}
	fits := a.FitsOn(axis)
	if len(fits) == 0 {
		return append(out, &Para{Text: "No configuration has restores at enough sizes for a fit."}), nil
	}
	name := setupNamer(a)
	out = append(out, fitTable(fits, name), residualTable(fits, name))
	if axis == capacity.AxisChangelog && len(a.SizeHoldOuts) > 0 {
		out = append(out, holdoutTable(a.SizeHoldOuts, name))
	}
	return out, nil
}

// setupNamer names setups by their case names, with their environment
// when the inputs come from more than one.
func setupNamer(a *capacity.Analysis) func(*capacity.Setup) string {
	envs := map[capacity.Env]bool{}
	for _, s := range a.Setups {
		envs[s.Env] = true
	}
	return func(s *capacity.Setup) string {
		if len(envs) > 1 {
			return strings.Join(s.Cases, "/") + " on " + s.Env.String()
		}
		return strings.Join(s.Cases, "/")
	}
}

// fitTableLegend says what the columns of the fitted-lines table mean.
const fitTableLegend = "sizes, restores: how many sizes and verified restores the fit rests on; " +
	"fixed (intercept): the time a restore takes whatever its size; " +
	"rate (1/slope): bytes restored per second beyond it; " +
	"R²: the share of the variance of time the line explains (1 = all)."

func fitTable(fits []*capacity.Fit, name func(*capacity.Setup) string) *Table {
	t := &Table{Caption: "Fitted lines: time to ready = fixed + size / rate",
		Legend: fitTableLegend,
		Head:   []string{"configuration", "sizes", "restores", "measured range", "fixed (intercept)", "rate (1/slope)", "R²"},
		Right:  []bool{false, true, true, false, true, true, true}}
	for _, f := range fits {
		t.Rows = append(t.Rows, []string{name(f.Setup) + " (" + capacity.Describe(f.Setup.Params) + ")", fmt.Sprint(len(f.Sizes)), fmt.Sprint(len(f.Points)),
			capacity.FormatBytes(f.Min()) + " – " + capacity.FormatBytes(f.Max()),
			capacity.FormatSeconds(f.Intercept), capacity.FormatRate(f.Rate()), fmt.Sprintf("%.3f", f.R2)})
	}
	return t
}

// residualTableLegend says what the columns of the residuals table mean.
const residualTableLegend = "measured (median): the median time to ready of the restores at that size; " +
	"fitted: the line's time for it; " +
	"residual: measured − fitted (positive: slower than the line), and as a share of fitted."

func residualTable(fits []*capacity.Fit, name func(*capacity.Setup) string) *Table {
	t := &Table{Caption: "Residuals per size (measured median − fitted)",
		Legend: residualTableLegend,
		Head:   []string{"configuration", "size", "measured (median)", "fitted", "residual", "residual %", "restores"},
		Right:  []bool{false, true, true, true, true, true, false}}
	for _, f := range fits {
		for _, r := range f.Residuals {
			t.Rows = append(t.Rows, []string{name(f.Setup), capacity.FormatBytes(r.Bytes), capacity.FormatSeconds(r.Median),
				capacity.FormatSeconds(r.Fitted), signedSeconds(r.Seconds()), fmt.Sprintf("%+.1f%%", r.Percent()), capacity.Refs(r.Obs)})
		}
	}
	return t
}

// holdoutTableLegend says what the columns of the prediction-check table mean.
const holdoutTableLegend = "fitted on: the sizes the line was fitted over; " +
	"held out: the largest size, left out of that fit; " +
	"error: (predicted − measured) / measured."

func holdoutTable(hs []*capacity.SizeHoldOut, name func(*capacity.Setup) string) *Table {
	t := &Table{Caption: "Prediction check: fitted without the largest size, predicting it",
		Legend: holdoutTableLegend,
		Head:   []string{"configuration", "fitted on", "held out", "predicted", "measured (median)", "error"},
		Right:  []bool{false, false, true, true, true, true}}
	for _, h := range hs {
		t.Rows = append(t.Rows, []string{name(h.Fit.Setup),
			fmt.Sprintf("%d sizes, %s – %s", len(h.Fit.Sizes), capacity.FormatBytes(h.Fit.Min()), capacity.FormatBytes(h.Fit.Max())),
			capacity.FormatBytes(h.Size), capacity.FormatSeconds(h.Predicted.Value), capacity.FormatSeconds(h.Measured), fmt.Sprintf("%+.1f%%", h.ErrorPercent())})
	}
	return t
}

// throughputSection shows each configuration's restore throughput per run,
// with compare's medians, ranges and verdicts against the run's baseline.
func throughputSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "throughput", Title: "Restore throughput per configuration"}
	if len(a.Comparisons) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "Medians over verified repeats, with min–max; **vs baseline** is the " +
		"change in time to ready against the run's baseline case " +
		"(Kafka Streams' defaults where the run has them) and compare's verdict on it.", Note: false},
		&Para{Text: strings.ReplaceAll(compare.SpreadDefinition, "\n", " "), Note: true})
	f, err := analysisFigure("throughput", a)
	if err != nil {
		return s, err
	}
	if f != nil {
		s.Blocks = append(s.Blocks, f)
	}
	for _, rc := range a.Comparisons {
		blocks, err := runThroughput(rc, f == nil)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, blocks...)
	}
	return s, nil
}

// timePerCase is the registered chart (package plots) of a run's time per
// case that the throughput section shows when it has no cross-size chart.
const timePerCase = "time-per-case"

// throughputTableLegend says what the columns of a run's throughput table mean.
const throughputTableLegend = "verified: repeats whose stores matched the expected state, of all; " +
	"MB/s: median of each verified repeat's own rate (1 MB = 10^6 bytes), range min–max; " +
	"time to ready: median restore plus ready phase; " +
	"vs baseline: change of the median time against Kafka Streams' defaults; " +
	"verdict: compare's test (see above)."

// runThroughput is one run's table, and its per-case chart when the
// report has no cross-size chart.
func runThroughput(rc *capacity.RunComparison, chart bool) ([]Block, error) {
	res := rc.Results()
	title := fmt.Sprintf("%s · %s", rc.Label(), res.RunID)
	if len(res.Restores) > 0 {
		title += " · " + capacity.FormatBytes(float64(res.Restores[0].Bytes)) + " changelog"
	} else if res.Fill != nil {
		title += " · " + capacity.FormatBytes(float64(res.Fill.Bytes)) + " changelog"
	}
	out := []Block{&Heading{Text: title}}
	t := &Table{Head: []string{"case", "settings", "verified", "MB/s", "MB/s range", "time to ready", "range", "vs baseline", "verdict"},
		Legend: throughputTableLegend,
		Right:  []bool{false, false, true, true, true, true, true, true, false}}
	verdicts := map[string]compare.MetricDiff{}
	if rc.Comparison != nil {
		for _, row := range rc.Comparison.Rows {
			verdicts[row.Case] = metricOf(row, compare.MetricTotalSeconds)
		}
	}
	for _, row := range compare.Compare(res.Restores, nil) {
		mb, tot := metricOf(row, compare.MetricMBPerSec).Base, metricOf(row, compare.MetricTotalSeconds).Base
		cells := []string{row.Case, capacity.Describe(row.Base.Params), fmt.Sprintf("%d/%d", row.Base.Verified, row.Base.Repeats)}
		if tot.N == 0 {
			cells = append(cells, "–", "", "–", "")
		} else {
			cells = append(cells, fmt.Sprintf("%.1f", mb.Median), fmt.Sprintf("%.1f–%.1f", mb.Min, mb.Max),
				capacity.FormatSeconds(tot.Median), fmt.Sprintf("%.2f–%.2f", tot.Min, tot.Max))
		}
		switch d, ok := verdicts[row.Case]; {
		case row.Case == rc.Baseline:
			cells = append(cells, "baseline", "")
		case ok && d.HasChange:
			cells = append(cells, fmt.Sprintf("%+.1f%%", d.ChangePct), d.VerdictText())
		case ok:
			cells = append(cells, "", d.VerdictText())
		default:
			cells = append(cells, "", "")
		}
		t.Rows = append(t.Rows, cells)
	}
	out = append(out, t)
	if c, ok := plots.ChartNamed(timePerCase); ok && c.Report && chart && len(res.Restores) > 0 {
		p, err := c.Draw(res)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", rc.Label(), err)
		}
		svg, err := svgOf(p)
		if err != nil {
			return nil, err
		}
		out = append(out, &Figure{Name: c.Name + "-" + rc.FileKey(), Title: c.Title + ", " + rc.Label(), SVG: svg,
			Caption: c.Caption})
	}
	return out, nil
}

func metricOf(row compare.CaseRow, m compare.Metric) compare.MetricDiff {
	for _, d := range row.Metrics {
		if d.Metric == m {
			return d
		}
	}
	return compare.MetricDiff{Metric: m}
}

// notRecorded stands in for a field older results files lack.
const notRecorded = "not recorded"

func orNotRecorded(s string) string {
	if strings.TrimSpace(s) == "" {
		return notRecorded
	}
	return s
}

// environmentSection describes where the runs ran: one column per distinct
// environment (runs with equal host, disk, broker and versions share one),
// one row per attribute, so ten runs on one machine make one short table.
func environmentSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "environment", Title: "Environment"}
	rows := []string{"host", "CPU", "cores", "memory", "disk (state.dir)", "broker", "Kafka Streams", "RocksDB", "Go", "restorebench"}
	var groups [][]string // attribute values per environment
	var runsOf [][]string
	index := map[string]int{}
	for _, r := range a.Runs {
		vals := environment(r.Results)
		key := strings.Join(vals, "\x00")
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, vals)
			runsOf = append(runsOf, nil)
		}
		runsOf[i] = append(runsOf[i], r.Label)
	}
	t := &Table{Head: []string{""}, Legend: "One column per distinct environment, naming the runs that share it."}
	for _, labels := range runsOf {
		t.Head = append(t.Head, strings.Join(labels, ", "))
	}
	for i, name := range rows {
		row := []string{"**" + name + "**"}
		for _, g := range groups {
			row = append(row, g[i])
		}
		t.Rows = append(t.Rows, row)
	}
	s.Blocks = append(s.Blocks, t)
	return s, nil
}

// environment is a run's attributes in environmentSection's row order.
func environment(res *runs.Results) []string {
	h := res.Host
	return []string{fmt.Sprintf("%s (%s/%s)", h.Hostname, h.OS, h.Arch), orNotRecorded(h.CPUModel), fmt.Sprint(h.CPUs), memory(h.MemoryBytes),
		disk(h.Disk), broker(res.Broker), streamsVersion(res), orNotRecorded(h.RocksDBText()), orNotRecorded(h.GoVersion), res.ToolVersion}
}

func memory(b int64) string {
	if b <= 0 {
		return notRecorded
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

// disk describes a recorded disk: "/dev/vda ext4, rotational, 271 GB"
// (free space, which changes from run to run, is left out).
func disk(d *runs.Disk) string {
	if d == nil {
		return notRecorded
	}
	var parts []string
	if dev := strings.TrimSpace(d.Device + " " + d.Filesystem); dev != "" {
		parts = append(parts, dev)
	}
	if d.Model != "" {
		parts = append(parts, d.Model)
	}
	if d.Rotational != nil {
		parts = append(parts, map[bool]string{true: "rotational", false: "non-rotational"}[*d.Rotational])
	}
	if d.SizeBytes > 0 {
		parts = append(parts, capacity.FormatBytes(float64(d.SizeBytes)))
	}
	if len(parts) == 0 {
		return notRecorded
	}
	return strings.Join(parts, ", ")
}

func broker(b runs.Broker) string {
	v := b.Version
	if v == "" {
		v = "version " + notRecorded
	}
	return b.Kind + ", " + v
}

// streamsVersion is the Kafka Streams version(s) the run's kafka-streams
// engine restores ran (Restore.KafkaStreams), or why there is none.
func streamsVersion(res *runs.Results) string {
	used := false
	var versions []string
	for _, r := range res.Restores {
		if r.Params.Engine != config.EngineKafkaStreams {
			continue
		}
		used = true
		if r.KafkaStreams != nil && r.KafkaStreams.Version != "" {
			versions = appendUnique(versions, r.KafkaStreams.Version)
		}
	}
	switch {
	case !used:
		return "not used (model engine)"
	case len(versions) == 0:
		return notRecorded
	}
	return strings.Join(versions, ", ")
}

// fillsTableLegend says what the columns of the fills table mean.
const fillsTableLegend = "records, key+value: what the fill wrote; " +
	"live keys, live state: the keys and key+value bytes a restore must leave; " +
	"records per live key: records over live keys (what a restore reads per key it keeps); " +
	"generated: when the fill was written; " +
	"fill rate: key+value bytes written per second."

// fillsSection is one row per run's changelog: its size, how the
// generator made it, and the live state it compacts to.
func fillsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "fills", Title: "Changelog fills"}
	t := &Table{Head: []string{"run", "changelog topic", "records", "key+value", "partitions", "live keys",
		"live state", "records per live key", "generated", "fill rate"},
		Legend: fillsTableLegend,
		Right:  []bool{false, false, true, true, true, true, true, true, false, true}}
	for _, r := range a.Runs {
		fills := r.Results.Fills
		if len(fills) == 0 {
			fills = []*runs.Fill{r.Results.Fill}
		}
		for _, f := range fills {
			t.Rows = append(t.Rows, fillRow(r.Label, f))
		}
	}
	s.Blocks = append(s.Blocks, t)
	var compacted []string
	for _, r := range a.Runs {
		fills := r.Results.Fills
		if len(fills) == 0 {
			fills = []*runs.Fill{r.Results.Fill}
		}
		for _, f := range fills {
			if rb := r.Results.ReadBackOf(f); rb.Compacted(f) {
				compacted = append(compacted, fmt.Sprintf("%s %s: %s.", r.Label, f.Topic, rb.Describe(f)))
			}
			if f != nil && f.CleanerHold != nil {
				compacted = append(compacted, fmt.Sprintf("%s %s: the log cleaner was held while the run restored it "+
					"(hold_cleaner, %s), so its restores read the same records.", r.Label, f.Topic, f.CleanerHold.Setting))
			}
		}
	}
	if len(compacted) > 0 {
		s.Blocks = append(s.Blocks, &List{Items: compacted})
	}
	return s, nil
}

// fillRow describes one changelog a run filled (or reused).
func fillRow(label string, f *runs.Fill) []string {
	if f == nil {
		return []string{label, notRecorded, "", "", "", "", "", "", "", ""}
	}
	row := []string{label, f.Topic, thousands(f.Records), capacity.FormatBytes(float64(f.Bytes)), fmt.Sprint(len(f.Offsets))}
	keys, live := expected(f)
	if keys > 0 {
		row = append(row, thousands(keys), capacity.FormatBytes(float64(live)), fmt.Sprintf("%.2f", float64(f.Records)/float64(keys)))
	} else {
		row = append(row, "", "", "")
	}
	rate := fmt.Sprintf("%.1f MB/s", f.MBPerSec)
	if f.Reused {
		rate += " (reused)"
	}
	return append(row, generated(f), rate)
}

// generated describes the generator's parameters in one cell.
func generated(f *runs.Fill) string {
	sp := f.Spec
	if sp == nil && f.ExpectedFrom == runs.ExpectedFromIndependentRead {
		return "not filled by restorebench; verified against an independent read"
	}
	if sp == nil {
		return "not filled by restorebench"
	}
	keys := ""
	if sp.KeyBytes != 0 { // a default-width fill's cell stays as it was
		keys = fmt.Sprintf(", %d-byte keys", sp.KeyBytes)
	}
	return fmt.Sprintf("%s distinct keys (%s%s), values %s, %.0f%% tombstones, %s compression",
		thousands(sp.Keys), sp.KeyOrder, keys, valueSize(sp.ValueMin, sp.ValueMax), 100*sp.TombstoneRatio, orNone(f.Compression))
}

func valueSize(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%d B", lo)
	}
	return fmt.Sprintf("%d–%d B", lo, hi)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// expected sums the fill's expected live keys and bytes over partitions.
func expected(f *runs.Fill) (keys, live int64) {
	for _, p := range f.Expected {
		keys += p.Keys
		live += p.LiveBytes
	}
	return keys, live
}

// inputRunsTableLegend says what the columns of the table of input runs mean.
const inputRunsTableLegend = "restores: records whose stores matched the expected state, of all; " +
	"complete: whether the run finished every case and repeat (a partial run's answers are marked)."

// methodSection defines the terms and lists the input files.
func methodSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "method", Title: "Method and sources"}
	s.Blocks = append(s.Blocks, &List{Items: []string{
		"1 MB = 10⁶ bytes; a record's bytes are its key plus value. Sizes are changelog key+value bytes unless called live state.",
		"Time to ready is the restore phase plus the ready phase (memtables flushed, compactions settled), compare's " +
			"`total_seconds`; where a run did not measure the ready phase it is the restore alone.",
		"Only verified, error-free restores count: each restored store matched the state its fill must produce.",
		"Per-thread rate: a fit's marginal rate (1/slope), or the median rate at the largest size without a fit, divided " +
			"by the threads that restored in parallel (min(num.stream.threads, partitions)). Largest state " +
			"within an RTO: (RTO ÷ calibration − fixed) × per-thread rate.",
		"Restores are cited as `run case #repeats`, e.g. `R1 kstreams-default #1-4`; a size sweep's as `R1 " +
			"kstreams-default@1GiB #1-3`, a scenario's steps as `R1 warm/changed=10000 #2`, failover kills " +
			"as `R2 eos-standby #1 kills 1-5`.",
		"Warm restart: a restart with the state directory kept; its rate is a least-squares line of time to ready against " +
			"the bytes of changes written while the instance was down, its fixed part the restart with " +
			"nothing changed.",
		"Standby: a step kept up when the standby's lag stayed bounded and it caught up within a second of the writes " +
			"stopping; catch-up is from a paused standby's restart until its lag was within " +
			"acceptable.recovery.lag.",
		"Failover gap: per task, from the last record the killed instance processed to the first its survivor processed; a kill's gap is its longest task's.",
		"Warmup-assignment time: from a scale-out's new instances starting until the assignment is balanced and every task " +
			"runs on its final owner. Figures from the warmup model are labelled predictions.",
		"Restore amplification: records a restore read per live key after the log cleaner ran; the bound is what the " +
			"cleaner settings allow: live ÷ (1 − min.cleanable.dirty.ratio) plus the never-cleaned active " +
			"segment (segment.bytes) per partition.",
	}})
	t := &Table{Head: []string{"run", "run id", "profile", "started", "results file", "restores (verified/all)", "complete"},
		Legend: inputRunsTableLegend}
	for _, r := range a.Runs {
		res := r.Results
		verified := 0
		for _, x := range res.Restores {
			if x.Counts() {
				verified++
			}
		}
		profile := ""
		if res.Profile != nil {
			profile = res.Profile.Name
		}
		t.Rows = append(t.Rows,
			[]string{r.Label, res.RunID, profile, day(res.StartedAt), "`" + r.Path + "`",
				fmt.Sprintf("%d/%d", verified, len(res.Restores)), yesNo(res.IncompleteReason() == "")})
	}
	s.Blocks = append(s.Blocks, t)
	return s, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// signedSeconds is a residual: "+0.98 s", "−0.29 s".
func signedSeconds(s float64) string {
	if s < 0 {
		return "−" + capacity.FormatSeconds(-s)
	}
	return "+" + capacity.FormatSeconds(s)
}

// thousands writes n with comma separators: 1,977,229.
func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
