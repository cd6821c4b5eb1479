package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// restore builds a verified restore of case c with the given seconds,
// MB/s and peak RSS in MiB.
func restore(c string, repeat int, secs, mbps float64, rssMiB int64) runs.Restore {
	return runs.Restore{
		Case: c, Repeat: repeat,
		Params: config.DefaultCase(),
		Phase: &runs.RestorePhase{Seconds: secs, TotalSeconds: secs, MBPerSec: mbps, RecordsPerSec: mbps * 1000,
			PeakRSSBytes: rssMiB << 20},
		Model:        &runs.ModelRun{LoadSeconds: secs},
		Verified:     true,
		Verification: verify.Result{Mode: "expected-state"},
	}
}

func withReady(r runs.Restore, total, eff float64) runs.Restore {
	p, m := *r.Phase, *r.Model
	m.Ready = &runs.ReadyPhase{Seconds: total - p.Seconds}
	p.TotalSeconds = total
	p.Limits = &runs.Limits{Efficiency: eff}
	r.Phase, r.Model = &p, &m
	return r
}

func metric(t *testing.T, row CaseRow, m Metric) MetricDiff {
	t.Helper()
	for _, d := range row.Metrics {
		if d.Metric == m {
			return d
		}
	}
	t.Fatalf("row %s has no metric %s", row.Case, m)
	return MetricDiff{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCompareMedianAndChange(t *testing.T) {
	base := []runs.Restore{
		withReady(restore("a", 1, 10, 100, 200), 12, 0.8),
		withReady(restore("a", 2, 12, 90, 220), 14, 0.7),
		withReady(restore("a", 3, 11, 95, 210), 13, 0.75),
		withReady(restore("a", 4, 13, 85, 230), 15, 0.65),
	}
	other := []runs.Restore{
		withReady(restore("a", 1, 6, 160, 300), 7, 0.95),
		withReady(restore("a", 2, 5, 170, 310), 6, 0.97),
		withReady(restore("a", 3, 7, 150, 320), 8, 0.9),
		withReady(restore("a", 4, 6, 155, 305), 7, 0.92),
	}
	rows := Compare(base, other)
	if len(rows) != 1 || rows[0].Case != "a" {
		t.Fatalf("rows = %+v, want one row for case a", rows)
	}
	row := rows[0]
	if row.Base.Verified != 4 || row.Other.Verified != 4 || len(row.Base.Excluded) != 0 {
		t.Fatalf("verified counts base %d other %d excluded %v", row.Base.Verified, row.Other.Verified, row.Base.Excluded)
	}
	d := metric(t, row, MetricRestoreSeconds)
	// base 10,11,12,13 -> median 11.5; other 5,6,6,7 -> median 6.
	if !near(d.Base.Median, 11.5) || !near(d.Other.Median, 6) {
		t.Fatalf("restore medians %v %v, want 11.5 6", d.Base.Median, d.Other.Median)
	}
	if !d.HasChange || !near(d.ChangePct, (6-11.5)/11.5*100) {
		t.Fatalf("change %v (has %v), want %v", d.ChangePct, d.HasChange, (6-11.5)/11.5*100)
	}
	if d.Base.Min != 10 || d.Base.Max != 13 || d.Other.Min != 5 || d.Other.Max != 7 {
		t.Fatalf("ranges %+v %+v", d.Base, d.Other)
	}
	// 4 vs 4 disjoint: p = 2/C(8,4) = 2/70.
	if !near(d.P, 2.0/70) || d.Verdict != VerdictExceedsSpread || !d.Significant() || !d.Better() {
		t.Fatalf("restore verdict %v p %v better %v, want exceeds spread, better, p=2/70", d.Verdict, d.P, d.Better())
	}
	if got := d.VerdictText(); got != "exceeds spread, better, p=0.029" {
		t.Fatalf("verdict text %q", got)
	}

	tot := metric(t, row, MetricTotalSeconds)
	if !near(tot.Base.Median, 13.5) || !near(tot.Other.Median, 7) {
		t.Fatalf("total medians %v %v, want 13.5 7", tot.Base.Median, tot.Other.Median)
	}
	mb := metric(t, row, MetricMBPerSec)
	if !near(mb.Base.Median, 92.5) || !near(mb.Other.Median, 157.5) || !near(mb.ChangePct, (157.5-92.5)/92.5*100) || !mb.Better() || !mb.Significant() {
		t.Fatalf("MB/s diff %+v", mb)
	}
	rss := metric(t, row, MetricPeakRSS)
	if !near(rss.Base.Median, 215<<20) || !near(rss.Other.Median, 307.5*(1<<20)) || rss.Better() || !rss.Significant() {
		t.Fatalf("RSS diff %+v", rss)
	}
	eff := metric(t, row, MetricEfficiency)
	if !near(eff.Base.Median, 0.725) || !near(eff.Other.Median, 0.935) {
		t.Fatalf("efficiency medians %v %v", eff.Base.Median, eff.Other.Median)
	}
}

func TestCompareSpreadVerdicts(t *testing.T) {
	cases := []struct {
		name        string
		base, other []float64
		want        Verdict
	}{
		{"disjoint 4v4", []float64{10, 11, 12, 13}, []float64{5, 6, 7, 8}, VerdictExceedsSpread},
		{"overlapping", []float64{10, 11, 12, 13}, []float64{9, 10.5, 14, 8}, VerdictWithinSpread},
		{"touching counts as overlap", []float64{10, 11, 12, 13}, []float64{13, 14, 15, 16}, VerdictWithinSpread},
		{"disjoint but 2v2 (p=1/3)", []float64{10, 11}, []float64{5, 6}, VerdictDisjointFewRepeats},
		{"disjoint but 3v3 (p=0.1)", []float64{10, 11, 12}, []float64{5, 6, 7}, VerdictDisjointFewRepeats},
		{"n=1 base", []float64{10}, []float64{5, 6, 7, 8}, VerdictSpreadUnknown},
		{"n=1 other", []float64{10, 11, 12}, []float64{50}, VerdictSpreadUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b, o []runs.Restore
			for i, s := range tc.base {
				b = append(b, restore("x", i+1, s, 100, 100))
			}
			for i, s := range tc.other {
				o = append(o, restore("x", i+1, s, 100, 100))
			}
			d := metric(t, Compare(b, o)[0], MetricRestoreSeconds)
			if d.Verdict != tc.want {
				t.Fatalf("verdict %v (%s), want %v", d.Verdict, d.VerdictText(), tc.want)
			}
			if d.Significant() != (tc.want == VerdictExceedsSpread) {
				t.Fatalf("Significant() = %v", d.Significant())
			}
			if tc.want == VerdictSpreadUnknown && d.VerdictText() != "n=1, spread unknown" {
				t.Fatalf("n=1 text %q", d.VerdictText())
			}
			if !d.HasChange {
				t.Fatalf("no change computed")
			}
		})
	}
}

func TestCompareExcludesUnverified(t *testing.T) {
	bad := restore("a", 3, 1, 1000, 100)
	bad.Verified = false
	bad.Verification.Problem = "digest mismatch"
	failed := restore("a", 4, 2, 900, 100)
	failed.Error = "broker went away"
	base := []runs.Restore{restore("a", 1, 10, 100, 100), restore("a", 2, 12, 90, 100), bad, failed}

	unverified := restore("b", 1, 3, 300, 100)
	unverified.Verified = false
	other := []runs.Restore{restore("a", 1, 11, 95, 100), restore("a", 2, 13, 85, 100), unverified}
	base = append(base, restore("b", 1, 4, 250, 100))

	rows := Compare(base, other)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	a := rows[0]
	if a.Base.Repeats != 4 || a.Base.Verified != 2 || len(a.Base.Excluded) != 2 || a.Base.Excluded[0] != 3 || a.Base.Excluded[1] != 4 {
		t.Fatalf("base side %+v, want 4 repeats, 2 verified, repeats 3 and 4 excluded", a.Base)
	}
	d := metric(t, a, MetricRestoreSeconds)
	if d.Base.N != 2 || !near(d.Base.Median, 11) || d.Base.Min != 10 {
		t.Fatalf("excluded repeats leaked into the base stat: %+v", d.Base)
	}

	b := rows[1]
	if b.Other.Verified != 0 || b.Other.Repeats != 1 {
		t.Fatalf("case b other side %+v", b.Other)
	}
	for _, d := range b.Metrics {
		if d.Verdict != VerdictNoVerifiedRepeats || d.HasChange || d.Other.N != 0 {
			t.Fatalf("case b %s: %+v, want no verified repeats and no change", d.Metric, d)
		}
	}
	// The renderers print words, never a number, for the side with no verified repeats.
	c := &Comparison{BaseLabel: "A", OtherLabel: "B", Rows: rows}
	var buf bytes.Buffer
	if err := NewMarkdownReporter(c)(&buf); err != nil {
		t.Fatal(err)
	}
	var bLine string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "| b |") {
			bLine = l
		}
	}
	if bLine == "" {
		t.Fatalf("no row for case b:\n%s", buf.String())
	}
	if !strings.Contains(bLine, "0/1 (1 excluded)") || !strings.Contains(bLine, "4.00 → no verified repeats (no verified repeats)") {
		t.Fatalf("case b row %q", bLine)
	}
	if strings.Contains(bLine, "%") {
		t.Fatalf("case b row shows a change: %q", bLine)
	}
	buf.Reset()
	if err := NewTableReporter(c)(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "base a: repeats [3 4] excluded") {
		t.Fatalf("table does not list the excluded repeats:\n%s", buf.String())
	}
}

func TestCompareMissingMetricAndCase(t *testing.T) {
	base := []runs.Restore{restore("a", 1, 10, 100, 100), restore("a", 2, 11, 100, 100), restore("only-base", 1, 5, 100, 100)}
	other := []runs.Restore{
		withReady(restore("a", 1, 10, 100, 100), 11, 0.9),
		withReady(restore("a", 2, 11, 100, 100), 12, 0.9),
		restore("only-other", 1, 5, 100, 100),
	}
	rows := Compare(base, other)
	var names []string
	for _, r := range rows {
		names = append(names, r.Case)
	}
	if strings.Join(names, ",") != "a,only-base,only-other" {
		t.Fatalf("row order %v", names)
	}
	a := rows[0]
	if eff := metric(t, a, MetricEfficiency); eff.Verdict != VerdictNotMeasured || eff.HasChange {
		t.Fatalf("efficiency measured on one side only: %+v", eff)
	}
	// Total falls back to restore seconds without a ready phase.
	tot := metric(t, a, MetricTotalSeconds)
	if !near(tot.Base.Median, 10.5) || !near(tot.Other.Median, 11.5) || a.Base.NoReady != 2 || a.Other.NoReady != 0 {
		t.Fatalf("total %+v noReady %d/%d", tot, a.Base.NoReady, a.Other.NoReady)
	}
	for _, r := range rows[1:] {
		if d := metric(t, r, MetricRestoreSeconds); d.Verdict != VerdictCaseMissing || d.HasChange {
			t.Fatalf("%s: %+v", r.Case, d)
		}
	}
}

func TestCompareCasesBaseline(t *testing.T) {
	rs := []runs.Restore{
		restore("put", 1, 10, 100, 100), restore("put", 2, 12, 90, 100),
		restore("bulk", 1, 5, 200, 100), restore("bulk", 2, 6, 190, 100),
		restore("ingest", 1, 4, 250, 100),
	}
	rows, err := CompareCases(rs, "put")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Case != "bulk" || rows[0].BaseCase != "put" || rows[1].Case != "ingest" {
		t.Fatalf("rows %+v", rows)
	}
	d := metric(t, rows[0], MetricRestoreSeconds)
	if !near(d.Base.Median, 11) || !near(d.Other.Median, 5.5) || !near(d.ChangePct, -50) {
		t.Fatalf("bulk vs put %+v", d)
	}
	if d := metric(t, rows[1], MetricRestoreSeconds); d.Verdict != VerdictSpreadUnknown {
		t.Fatalf("ingest n=1: %v", d.Verdict)
	}
	_, err = CompareCases(rs, "nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), `"put", "bulk", "ingest"`) {
		t.Fatalf("missing baseline error %v, want it to name the available cases", err)
	}
}

func TestMarkdownOneRowPerCase(t *testing.T) {
	base := []runs.Restore{restore("a", 1, 10, 100, 100), restore("b|pipe", 1, 10, 100, 100)}
	other := []runs.Restore{restore("a", 1, 9, 110, 100), restore("c", 1, 8, 120, 100)}
	c := &Comparison{BaseLabel: "base.json", OtherLabel: "other.json", Rows: Compare(base, other)}
	var buf bytes.Buffer
	if err := NewMarkdownReporter(c)(&buf); err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	if len(table) != 2+3 {
		t.Fatalf("%d table lines, want header + separator + 3 cases:\n%s", len(table), buf.String())
	}
	wantHead := "| case | verified base | verified other | restore s | total s | MB/s | median peak RSS MiB | efficiency |"
	if table[0] != wantHead {
		t.Fatalf("header %q, want %q", table[0], wantHead)
	}
	if table[1] != "| --- | --- | --- | --- | --- | --- | --- | --- |" {
		t.Fatalf("separator %q", table[1])
	}
	cols := strings.Count(wantHead, " | ") + 1
	for i, want := range []string{"| a |", `| b\|pipe |`, "| c |"} {
		l := table[2+i]
		if !strings.HasPrefix(l, want) {
			t.Fatalf("row %d %q, want prefix %q", i, l, want)
		}
		if got := strings.Count(strings.ReplaceAll(l, `\|`, ""), " | ") + 1; got != cols {
			t.Fatalf("row %q has %d cells, want %d", l, got, cols)
		}
	}
	if !strings.Contains(table[2], "10.00 → 9.00 (-10.0%, n=1, spread unknown)") {
		t.Fatalf("row a %q", table[2])
	}
}

func TestTableReporter(t *testing.T) {
	base := []runs.Restore{restore("a", 1, 10, 100, 100), restore("a", 2, 11, 100, 100)}
	other := []runs.Restore{restore("a", 1, 10.5, 100, 100), restore("a", 2, 12, 100, 100)}
	c := &Comparison{BaseLabel: "A", OtherLabel: "B", Rows: Compare(base, other)}
	var buf bytes.Buffer
	if err := NewTableReporter(c)(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"base:  A\n", "other: B\n", "vs spread", "10.50", "10.00..11.00 n=2", "+7.1%", "within spread", "efficiency", "not measured"} {
		if !strings.Contains(out, want) {
			t.Fatalf("table lacks %q:\n%s", want, out)
		}
	}
	// One line per case and metric after the header.
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		for _, m := range CompareMetrics {
			if strings.Contains(l, "  "+m.Label()+"  ") {
				lines++
				break
			}
		}
	}
	if want := len(CompareMetrics) - len(standbyMetrics); lines != want {
		t.Fatalf("%d metric lines, want %d (all but a standby step's):\n%s", lines, want, out)
	}
}

func TestDisjointChance(t *testing.T) {
	for _, tc := range []struct {
		n, m int
		want float64
	}{{2, 2, 1.0 / 3}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {3, 5, 2.0 / 56}, {1, 1, 1}} {
		if got := disjointChance(tc.n, tc.m); !near(got, tc.want) {
			t.Errorf("disjointChance(%d, %d) = %v, want %v", tc.n, tc.m, got, tc.want)
		}
	}
}

func TestCompareRunsNotes(t *testing.T) {
	a := &runs.Results{Complete: true, Host: runs.Host{Hostname: "h1", OS: "linux", Arch: "amd64", CPUs: 2}, Fill: &runs.Fill{Records: 10, Bytes: 100}}
	b := &runs.Results{RunID: "r2", Error: "interrupted", Host: runs.Host{Hostname: "h2", OS: "linux", Arch: "amd64", CPUs: 8}, Fill: &runs.Fill{Records: 20, Bytes: 200}}
	c := CompareRuns(a, b, "A", "B")
	notes := strings.Join(c.Notes, "\n")
	for _, want := range []string{"hosts differ", "changelogs differ", "other run is incomplete: run r2 stopped early: interrupted"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestCompareParamDiffs(t *testing.T) {
	a := restore("a", 1, 10, 100, 100)
	b := restore("a", 1, 10, 100, 100)
	b.Params.BatchRecords = 10000
	rows := Compare([]runs.Restore{a}, []runs.Restore{b})
	if len(rows[0].ParamDiffs) != 1 || rows[0].ParamDiffs[0] != "batch_records 1000 -> 10000" {
		t.Fatalf("param diffs %v", rows[0].ParamDiffs)
	}
}

// TestScenarioRecordsAreComparedByTheirOwnFigures: a failover kill, a
// scale-out or a rolling restart records its gap, warmup assignment or
// downtime where a restore records its restore time; compare names that
// figure so and shows no throughput or ready phase for it, and a standby's
// rate steps (whose figure is a lag) get no seconds at all.
func TestScenarioRecordsAreComparedByTheirOwnFigures(t *testing.T) {
	load := func(name string) *runs.Results {
		res, err := runs.Load(filepath.Join("..", "testdata", "results", name, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	render := func(c *Comparison, r func(*Comparison) Reporter) string {
		var b bytes.Buffer
		if err := r(c)(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	fo := load("failover")
	text := render(CompareRuns(fo, fo, "a", "b"), NewTableReporter)
	table, _, _ := strings.Cut(text, "Only verified") // the rows, without the footer's legend
	if !strings.Contains(table, "gap s (longest task)") || strings.Contains(table, "restore s") || strings.Contains(table, "MB/s") {
		t.Errorf("failover rows must compare the gap, named so, and no restore time or throughput:\n%s", text)
	}
	capRun := load("capacity")
	c := CompareRuns(capRun, capRun, "a", "b")
	for _, row := range c.Rows {
		var names []string
		for _, d := range row.Metrics {
			names = append(names, d.Metric.LabelFor(row.Kind))
		}
		got := strings.Join(names, ", ")
		switch row.Kind {
		case runs.StepScaleOut:
			if got != "assignment s, median peak RSS MiB" {
				t.Errorf("%s: metrics %q", row.Case, got)
			}
		case runs.StepRate, runs.StepMax:
			if got != "median peak RSS MiB, standby applied records/s, standby lag p99" {
				t.Errorf("%s: a standby step compared by %q", row.Case, got)
			}
		case runs.StepPause:
			if got != "median peak RSS MiB" {
				t.Errorf("%s: a standby step compared by %q", row.Case, got)
			}
		case runs.StepRestore:
			if !strings.HasPrefix(got, "restore s, total s, MB/s") {
				t.Errorf("%s: a cold restore compared by %q", row.Case, got)
			}
		}
	}
	md := render(c, NewMarkdownReporter)
	if !strings.Contains(md, "| scaleout@256MiB | 3/3 | 3/3 | assignment s: 62.86 → 62.86") {
		t.Errorf("markdown: the scale-out's cell must name its figure:\n%s", md)
	}
}

// TestUnlikeStepsAreNotCompared: within a run, a case whose steps
// measure something else than the baseline's (a scale-out's assignment
// time against a rolling restart's downtime, a standby's rate step
// against a cold restore) is not compared on those figures: the row
// leaves them out and says so, and keeps what both measure (peak RSS).
func TestUnlikeStepsAreNotCompared(t *testing.T) {
	rolling := runs.Restore{Case: "rolling", Repeat: 1, Verified: true, Step: &runs.Step{Case: "rolling", Kind: runs.StepRolling},
		Rolling: &runs.RollingRecord{DowntimeSeconds: 30}}
	scaleout := runs.Restore{Case: "scaleout", Repeat: 1, Verified: true, Step: &runs.Step{Case: "scaleout", Kind: runs.StepScaleOut},
		ScaleOut: &runs.ScaleOutRecord{WarmupAssignmentSeconds: 76}}
	other := rolling
	other.Case, other.Rolling = "rolling-static", &runs.RollingRecord{DowntimeSeconds: 46}
	rows, err := CompareCases([]runs.Restore{rolling, scaleout, other}, "rolling")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		var metrics []Metric
		for _, d := range row.Metrics {
			metrics = append(metrics, d.Metric)
		}
		switch row.Case {
		case "scaleout":
			if slices.Contains(metrics, MetricRestoreSeconds) || !slices.Equal(row.Unlike, []string{"downtime s"}) {
				t.Errorf("scaleout vs rolling: metrics %v, not compared %v: want the downtime left out", metrics, row.Unlike)
			}
		case "rolling-static":
			if !slices.Contains(metrics, MetricRestoreSeconds) || len(row.Unlike) > 0 {
				t.Errorf("rolling vs rolling: metrics %v, not compared %v: want the downtime compared", metrics, row.Unlike)
			}
		}
	}
}
