package plots

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/runs"

	"github.com/restorebench/restorebench/config"
)

// TestChartRegistryIsWellFormed: each chart has a name and a file of its
// own and one draw function (of a run or of the analysis), belongs to a
// known scenario or none, and a chart the report shows has the report's
// title and caption.
func TestChartRegistryIsWellFormed(t *testing.T) {
	names, files := map[string]bool{}, map[string]bool{}
	for _, c := range Charts() {
		if c.Name == "" || c.File == "" || (c.Draw == nil) == (c.Analysis == nil) {
			t.Errorf("chart %+v lacks a name, file or exactly one draw function", c)
		}
		if names[c.Name] || files[c.File] {
			t.Errorf("chart %s / %s registered twice", c.Name, c.File)
		}
		names[c.Name], files[c.File] = true, true
		if c.Scenario != "" && !slices.Contains(config.Scenarios, c.Scenario) {
			t.Errorf("chart %s: unknown scenario %q", c.Name, c.Scenario)
		}
		if c.Report && (c.Title == "" || c.Caption == "") {
			t.Errorf("chart %s is in the report without a title and caption", c.Name)
		}
		if got, ok := ChartNamed(c.Name); !ok || got.File != c.File {
			t.Errorf("ChartNamed(%q) = %v, %v", c.Name, got.File, ok)
		}
	}
	if got := ChartsOf(config.ScenarioRolling); len(got) != 2 || got[0].File != RollingTimelineFile || got[1].File != RollingDowntimeFile {
		t.Errorf("rolling charts %v", got)
	}
}

// chartOrder is the registry's order before each chart registered from
// its own file (and the lookups chart after it): WriteAll writes, and the
// report shows, the charts in it.
var chartOrder = []string{"restore-throughput", "time-per-case", "restore-time-by-batch", "restore-phases", "fill-throughput", "lookups-answered",
	"scaleout-timeline", "scaleout-warmup-lag", "scaleout-model", "rolling-timeline", "rolling-downtime",
	"warm-vs-cold", "standby-lag", "standby-catch-up", "failover-gap", "compaction"}

// TestChartRegistryKeepsItsOrder: the charts registered from their files
// are in chartOrder (those of later scenarios after), and a chart that
// clashes with one registered panics.
func TestChartRegistryKeepsItsOrder(t *testing.T) {
	var names []string
	for _, c := range Charts() {
		names = append(names, c.Name)
	}
	if len(names) < len(chartOrder) || !slices.Equal(names[:len(chartOrder)], chartOrder) {
		t.Fatalf("charts %v, want %v first", names, chartOrder)
	}
	saved := charts
	defer func() { charts = saved }()
	first := Charts()[0]
	for _, c := range []Chart{
		{Order: 1_000, Name: first.Name, File: "x", Draw: first.Draw},
		{Order: first.Order, Name: "x", File: "x", Draw: first.Draw},
		{Order: 1_001, Name: "y", File: "y"},
		{Order: 1_002, Name: "z", File: "z", Draw: first.Draw, Scenario: "nope"},
		{Order: 1_003, Name: "w", File: "w", Draw: first.Draw, Analysis: func(*capacity.Analysis) (*plot.Plot, error) { return nil, nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registerChart(%s, order %d) did not panic", c.Name, c.Order)
				}
			}()
			registerChart(c)
		}()
	}
}

// TestRestoreChartsDrawColdRestoresOnly: the restore-time and throughput
// charts leave other scenarios' records out (a scale-out's 67 s
// warmup-assignment time is not a restore time), and a run without cold
// restores draws neither.
func TestRestoreChartsDrawColdRestoresOnly(t *testing.T) {
	res := capacitytest.Run(0, 128e6, capacitytest.Cases)
	res.Restores = append(res.Restores, capacitytest.ScenarioRun(1).Restores...)
	p, err := RestoreTimePerCase(res)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels = append(labels, strings.ReplaceAll(tk.Label, "\n", ""))
		}
	}
	if len(labels) != len(capacitytest.Cases) {
		t.Errorf("restore time per case draws %q, want the %d cold cases only", labels, len(capacitytest.Cases))
	}
	var scenarios runs.Results
	for _, rec := range res.Restores {
		if !rec.IsCold() {
			scenarios.Restores = append(scenarios.Restores, rec)
		}
	}
	for name, draw := range map[string]func(*runs.Results) (*plot.Plot, error){
		"restore time per case": RestoreTimePerCase, "restore throughput": RestoreThroughput, "restore phases": RestorePhases,
	} {
		if _, err := draw(&scenarios); !errors.Is(err, ErrNoRestores) {
			t.Errorf("%s of a run of scenario records only: %v, want ErrNoRestores", name, err)
		}
	}
}

// TestWarmFallbackAtItsOwnChanges: a restart whose offsets fell below the
// log start is drawn at the changes it restarted after (5,000 in the
// synthetic run, named in its legend), not past the largest step.
func TestWarmFallbackAtItsOwnChanges(t *testing.T) {
	p, err := WarmVsCold(capacitytest.ScenarioRun(0))
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "svg")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w.WriteTo(&b)
	if !strings.Contains(b.String(), "below log start (5000 changes)") {
		t.Error("the below-log-start marker does not name its 5000 changes")
	}
	if p.X.Max > 1e7 {
		t.Errorf("x axis to %v: stretched past the 1M step", p.X.Max)
	}
}

// TestCompactionChartSaysWhoCleaned: on the embedded broker the chart says
// its figures are full compaction's floor; on Kafka, that Kafka cleaned.
func TestCompactionChartSaysWhoCleaned(t *testing.T) {
	res := capacitytest.ScenarioRun(0)
	title := func() string {
		p, err := CompactionAmplification(res)
		if err != nil || p == nil {
			t.Fatalf("compaction chart: %v", err)
		}
		return p.Title.Text
	}
	for i := range res.Restores {
		if c := res.Restores[i].Compaction; c != nil {
			c.CleanedBy = runs.CleanedByKfake
		}
	}
	if got := title(); !strings.Contains(got, "embedded broker: full compaction, a floor") {
		t.Errorf("kfake title %q", got)
	}
	for i := range res.Restores {
		if c := res.Restores[i].Compaction; c != nil {
			c.CleanedBy = runs.CleanedByKafka
		}
	}
	if got := title(); !strings.Contains(got, "Kafka's log cleaner") {
		t.Errorf("kafka title %q", got)
	}
}

// TestStandbyLagChartShowsEveryEnginesSteps: on the saved standby run (the
// model's lags reach 10^6 records where Kafka Streams' stay near 10^2),
// the chart draws one line per case on a log axis of lag, and each line's
// legend names the highest rate its standby kept up with: the figure the
// summary prints.
func TestStandbyLagChartShowsEveryEnginesSteps(t *testing.T) {
	res, err := runs.Load(filepath.Join("..", "testdata", "results", "standby", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	groups, order, acceptable := standbyRateSteps(res)
	if len(order) != 2 || acceptable != 10000 {
		t.Fatalf("cases %v, acceptable.recovery.lag %d: want the two engines' cases and 10000", order, acceptable)
	}
	p, err := StandbyLag(res)
	if err != nil {
		t.Fatal(err)
	}
	// Both lines fit the axis: the model's 10^6 and Kafka Streams' 10^2.
	for _, c := range order {
		for _, st := range groups[c] {
			if y := math.Log10(max(st.lagP99, 1)); y < p.Y.Min || y > p.Y.Max {
				t.Errorf("%s at %.0f rec/s: lag %.0f off the axis [%v, %v]", c, st.rate, st.lagP99, p.Y.Min, p.Y.Max)
			}
		}
	}
	svg := svgText(t, p)
	for _, want := range []string{"standby-kstreams: kept up to 59917 rec/s, behind from 69217", "standby-model: kept up to 124429 rec/s, behind from 121571"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart's legend lacks %q", want)
		}
	}
}

// TestRestoreThroughputDrawsTheMedianRepeatPastTwelve: the calibrate run's
// 40 cold restores would draw 40 lines; the chart draws each case's median
// repeat instead, and says so.
func TestRestoreThroughputDrawsTheMedianRepeatPastTwelve(t *testing.T) {
	res, err := runs.Load(filepath.Join("..", "testdata", "results", "calibrate", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	cold := res.ColdRestores()
	picked, of := medianRepeats(cold)
	if len(cold) <= maxThroughputLines || len(picked) != 8 {
		t.Fatalf("%d restores gave %d lines, want 8 (one per case)", len(cold), len(picked))
	}
	for _, p := range picked {
		var faster, slower int
		for _, r := range cold {
			if r.Case == p.Case && r.Counts() {
				switch {
				case r.Phase.Seconds < p.Phase.Seconds:
					faster++
				case r.Phase.Seconds > p.Phase.Seconds:
					slower++
				}
			}
		}
		if faster != slower || of[p.Case] != 5 {
			t.Errorf("%s #%d: %d repeats faster, %d slower of %d: not the median", p.Case, p.Repeat, faster, slower, of[p.Case])
		}
	}
	p, err := RestoreThroughput(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "median repeat of each case") {
		t.Errorf("title %q does not say the lines are median repeats", p.Title.Text)
	}
}

// svgText is chart p drawn as SVG, at the size the charts are written.
func svgText(t *testing.T, p *plot.Plot) string {
	t.Helper()
	var svg bytes.Buffer
	w, err := p.WriterTo(Width, Height, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(&svg); err != nil {
		t.Fatal(err)
	}
	return svg.String()
}
