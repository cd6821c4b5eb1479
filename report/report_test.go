package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
)

// update rewrites the golden files from the current output:
// go test ./report -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden.md from the current output")

// syntheticRuns are capacitytest's runs at four sizes and its scenario
// run, labelled and pathed as LoadRuns would, with paths that do not
// depend on the machine.
func syntheticRuns() []*capacity.Run {
	var out []*capacity.Run
	rs := append(capacitytest.Runs(), capacitytest.ScenarioRun(len(capacitytest.Sizes)))
	for i, r := range rs {
		out = append(out, &capacity.Run{Label: "R" + strconv.Itoa(i+1), Path: "testdata/runs/" + r.RunID + "/results.json", Results: r})
	}
	return out
}

// deployment is the plan the golden report with a deployment section answers.
var deployment = capacity.Options{
	RTOs: []time.Duration{time.Minute, 5 * time.Minute}, Threads: 4,
	Deployment: capacity.Deployment{StateBytes: 50 << 30, Partitions: 16, Instances: 6},
}

func build(t testing.TB, opts capacity.Options) *Document {
	t.Helper()
	d, err := Build(capacity.Analyze(syntheticRuns(), opts))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func render(t testing.TB, r func(w *bytes.Buffer) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestMarkdownGolden pins report.md for the synthetic runs, with the
// default questions and with a deployment.
func TestMarkdownGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		opts capacity.Options
	}{{"default", capacity.Options{}}, {"deployment", deployment}} {
		t.Run(c.name, func(t *testing.T) {
			d := build(t, c.opts)
			got := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
			golden := filepath.Join("testdata", c.name+".golden.md")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("report.md differs from %s (rerun with -update if the change is intended):\n%s", golden, firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + a + "\ngot:  " + b
		}
	}
	return ""
}

// TestReportAnswersAreThePlansAnswers: the deployment section shows every
// answer plan prints, with the same value.
func TestReportAnswersAreThePlansAnswers(t *testing.T) {
	a := capacity.Analyze(syntheticRuns(), deployment)
	d, err := Build(a)
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	plan := render(t, func(w *bytes.Buffer) error { return NewPlanReporter(a)(w) })
	if len(a.Answers) < 8 {
		t.Fatalf("only %d answers for a full deployment", len(a.Answers))
	}
	for _, ans := range a.Answers {
		for name, out := range map[string]string{"report.md": md, "plan": plan} {
			if !strings.Contains(out, ans.Question) || !strings.Contains(out, ans.Value) {
				t.Errorf("%s lacks %q = %q", name, ans.Question, ans.Value)
			}
		}
	}
}

var externalRef = regexp.MustCompile(`(?i)\s(src|href)\s*=\s*"(https?:|//|file:)`)

// TestHTMLSelfContained: one page, no scripts, nothing fetched, every
// figure inline.
func TestHTMLSelfContained(t *testing.T) {
	d := build(t, deployment)
	page := render(t, func(w *bytes.Buffer) error { return NewHTMLReporter(d)(w) })
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("report.html has a script")
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("report.html refers to an external resource: %s", m)
	}
	if !strings.Contains(page, "Content-Security-Policy") {
		t.Error("report.html has no Content-Security-Policy forbidding loads")
	}
	figs := d.Figures()
	if len(figs) < 4 {
		t.Fatalf("%d figures, want at least 4 (rto, two fits, throughput)", len(figs))
	}
	if n := strings.Count(page, "<svg"); n != len(figs) {
		t.Errorf("%d inline <svg> for %d figures", n, len(figs))
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an SVG kept its XML prologue inline")
	}
}

// TestReportWithoutVerifiedRestores: a run whose restores all failed, and
// one that recorded none, still make a report that says why there are no
// answers.
func TestReportWithoutVerifiedRestores(t *testing.T) {
	rs := syntheticRuns()[:2]
	for i := range rs[0].Results.Restores {
		rs[0].Results.Restores[i].Verified = false
	}
	rs[1].Results.Restores, rs[1].Results.Complete, rs[1].Results.Error = nil, false, "run in progress"
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{"no verified cold restore", "12 restores in the inputs did not verify", "R2 is partial (run 20261101-101000-size-256MB never finished"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if page := render(t, func(w *bytes.Buffer) error { return NewHTMLReporter(d)(w) }); !strings.Contains(page, "</html>") {
		t.Error("no complete page")
	}
}

// TestCalibratedReport: runs with both engines give a calibration table,
// and rates from the model engine are labelled calibrated.
func TestCalibratedReport(t *testing.T) {
	ks := capacitytest.Case{Name: "ks-default", Modify: func(c *config.Case) { c.Engine = config.EngineKafkaStreams }, Fixed: 0.6, Rate: 80e6}
	var rs []*capacity.Run
	for i, size := range capacitytest.Sizes {
		res := capacitytest.Run(i, size, []capacitytest.Case{capacitytest.Cases[0], ks})
		rs = append(rs, &capacity.Run{Label: "R" + strconv.Itoa(i+1), Path: "x", Results: res})
	}
	d, err := Build(capacity.Analyze(rs, capacity.Options{Case: "kstreams-default"}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{"| R1 | default (kstreams-default vs ks-default) | 128 MB |", "kstreams-default (model, Kafka Streams defaults), calibrated",
		"model engine, calibrated — times scaled to Kafka Streams' by a factor against size, ×(1.251 +0.004 × 1.00 GB / size), ×1.255 at 1.00 GB tending to ×1.251 (inverse-size",
		// The factor per size, from the four runs (one size each), and its fit.
		"### Calibration factor against size", "| default | partitions=4 keys=uniform values=200-800 tombstones=0.02 compression=lz4 | 128 MB | 4 | 1.283 |",
		"| 1.00 GB | 4 | 1.255 | 1.255–1.255 | 1.255 | +0.000 |", "(inverse-size, through the medians of 16 pairs at 4 sizes, residual rms 0.000; 0.003 in the other form), 128 MB–1.00 GB a thread; largest residual 0.001"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestScenarioSectionsAndRows: the scenario run gives the recovery-time
// table its warm, standby and scale-out rows with their marks, a section
// per scenario with package plots' charts, and the answers plan prints.
func TestScenarioSectionsAndRows(t *testing.T) {
	d := build(t, capacity.Options{})
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"| warm restart (changes while down) § | INCONCLUSIVE (3.56 GB) † |",
		"| standby failover | any size (gap ≤ 9.60 s) | any size (gap ≤ 9.60 s) |",
		"| scale-out (warmup) | 4.92 MB ‡ |",
		"§ warm restart: bytes of changes written while the instance was down",
		"## Warm restarts", "## Standbys and failover", "## Scale-out and rolling restarts", "## Changelog compaction",
		"- **Failover with a standby:** gap ≤ 9.60 s", "- **A standby keeps up with:** 41.3 MB/s (80,000 records/s)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	var names []string
	for _, f := range d.Figures() {
		names = append(names, f.Name)
	}
	for _, want := range []string{"warm-vs-cold-r5", "standby-lag-r5", "standby-catch-up-r5", "failover-gap-r5", "scaleout-timeline-r5", "scaleout-warmup-lag-r5", "scaleout-model-r5", "compaction-r5"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("no figure %s among %v", want, names)
		}
	}
}

// TestEmbeddedCompactionIsNotASetting: compaction measured on the embedded
// broker, which compacts fully whatever the settings, is reported as such
// and never used as a setting's amplification.
func TestEmbeddedCompactionIsNotASetting(t *testing.T) {
	rs := syntheticRuns()
	last := rs[len(rs)-1].Results
	for i := range last.Restores {
		if c := last.Restores[i].Compaction; c != nil {
			c.CleanedBy = "kfake"
		}
	}
	a := capacity.Analyze(rs, capacity.Options{Deployment: capacity.Deployment{LiveBytes: 10e9, Partitions: 8}})
	d, err := Build(a)
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{"- **Restore amplification:** not measured on Kafka", "compacts every changelog fully on request whatever its settings", "(WORST CASE these settings allow, not measured)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestPerTaskLimitsSayInconclusiveAsPlanDoes: the summary's per-task limits
// read as plan's answers do: a limit within 4× of the sizes measured (up
// to 1 GB here) as a size, one past it INCONCLUSIVE, and all of them under
// one INCONCLUSIVE when none is within.
func TestPerTaskLimitsSayInconclusiveAsPlanDoes(t *testing.T) {
	for _, tc := range []struct {
		rtos []time.Duration
		want string
	}{
		{[]time.Duration{10 * time.Second, time.Minute}, "944 MB / INCONCLUSIVE (5.91 GB)"},
		{[]time.Duration{time.Minute, 5 * time.Minute}, "INCONCLUSIVE (5.91 GB / 29.8 GB)"},
	} {
		if got := limitsFact(capacity.Analyze(syntheticRuns(), capacity.Options{RTOs: tc.rtos})).Value; got != tc.want {
			t.Errorf("RTOs %v: %q, want %q", tc.rtos, got, tc.want)
		}
	}
}
