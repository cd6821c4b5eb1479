package capacity

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// lineSetup is a setup whose restores lie on seconds = fixed + bytes/rate
// (times noise[i] for the i-th restore at each size).
func lineSetup(fixed, rate float64, sizes []float64, noise []float64) *Setup {
	run := &Run{Label: "R1", Results: &runs.Results{}}
	s := &Setup{Params: config.DefaultCase(), Cases: []string{"line"}}
	for _, size := range sizes {
		for i, n := range noise {
			r := &runs.Restore{Case: "line", Repeat: i + 1, Partitions: 1}
			s.Obs = append(s.Obs, Obs{Run: run, Restore: r, ChangelogBytes: size, LiveBytes: size / 2, Seconds: (fixed + size/rate) * n})
		}
	}
	return s
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestFitRecoversExactLine: restores exactly on a line give that line back,
// R² = 1 and zero residuals, on both axes.
func TestFitRecoversExactLine(t *testing.T) {
	s := lineSetup(2, 50e6, []float64{1e8, 2e8, 4e8, 8e8}, []float64{1, 1})
	f, err := FitSetup(s, AxisChangelog)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Intercept, 2, 1e-9) || !near(f.Rate(), 50e6, 1e-9) || !near(f.R2, 1, 1e-12) {
		t.Errorf("fit %.6f s + size / %.6g B/s, R² %.12f; want 2 s + size / 5e7 B/s, R² 1", f.Intercept, f.Rate(), f.R2)
	}
	for _, r := range f.Residuals {
		if math.Abs(r.Seconds()) > 1e-9 || len(r.Obs) != 2 {
			t.Errorf("size %g: residual %g s over %d restores, want 0 over 2", r.Bytes, r.Seconds(), len(r.Obs))
		}
	}
	live, err := FitSetup(s, AxisLive)
	if err != nil || !near(live.Rate(), 25e6, 1e-9) {
		t.Errorf("live fit rate %v (%v), want 25e6: live bytes are half the changelog", live.Rate(), err)
	}
	if e := f.Predict(2e9); !e.Extrapolated || !near(e.Value, 2+2e9/50e6, 1e-9) {
		t.Errorf("Predict(2 GB) = %+v, want 42 s extrapolated", e)
	}
	if e := f.Predict(3e8); e.Extrapolated {
		t.Errorf("Predict(300 MB) is marked extrapolated inside 100-800 MB")
	}
	if h := HoldOutLargestSize(s, AxisChangelog); h == nil || math.Abs(h.ErrorPercent()) > 1e-9 {
		t.Errorf("hold-out of an exact line: %+v, want 0%% error", h)
	}
}

// TestFitNoisyData: ±3% noise leaves the line within a few percent and R²
// below 1 but high.
func TestFitNoisyData(t *testing.T) {
	s := lineSetup(0.5, 100e6, []float64{128e6, 256e6, 512e6, 1e9}, []float64{1.00, 1.03, 0.98, 1.015})
	f, err := FitSetup(s, AxisChangelog)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Rate(), 100e6, 0.03) || math.Abs(f.Intercept-0.5) > 0.1 {
		t.Errorf("noisy fit %.3f s + size / %.4g B/s, want about 0.5 s + size / 1e8", f.Intercept, f.Rate())
	}
	if f.R2 >= 1 || f.R2 < 0.99 {
		t.Errorf("R² %.5f, want in [0.99, 1)", f.R2)
	}
}

// TestFitNeedsThreeSizes: two sizes are not a fit, and the error says what
// to run.
func TestFitNeedsThreeSizes(t *testing.T) {
	s := lineSetup(1, 1e8, []float64{256e6, 512e6}, []float64{1, 1, 1})
	_, err := FitSetup(s, AxisChangelog)
	var need *NeedSizes
	if !errors.As(err, &need) {
		t.Fatalf("err %v, want *NeedSizes", err)
	}
	for _, want := range []string{"3 or more sizes", "have 2 (256 MB, 512 MB)", "at 1.02 GB and 2.05 GB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	r := rateOf(s)
	if r.Fit != nil || !near(r.PerThread, 512e6/(1+5.12), 1e-9) || r.Overhead != 0 {
		t.Errorf("rate without a fit: %+v, want the median rate at 512 MB and no overhead", r)
	}
}

// TestRateArithmetic: the RTO answers are (RTO / factor - fixed) × per-thread
// rate, and time is factor × (fixed + bytes / per-thread rate).
func TestRateArithmetic(t *testing.T) {
	r := &Rate{PerThread: 100e6, Overhead: 0.5, Lo: 1e8, Hi: 1e9}
	if e := r.BytesWithin(60); !near(e.Value, 59.5*100e6, 1e-12) || !e.Extrapolated {
		t.Errorf("BytesWithin(60 s) = %+v, want 5.95 GB extrapolated", e)
	}
	if e := r.BytesWithin(0.4); e.Value != 0 {
		t.Errorf("BytesWithin(0.4 s) = %v, want 0: the overhead alone takes 0.5 s", e.Value)
	}
	r.Calibration = &Calibration{KafkaStreamsOverModel: 1.25}
	r.Curve = &CalibrationCurve{Setting: "default", Points: []CalibrationPoint{{Bytes: 1e9, Factors: []float64{1.25}, Factor: 1.25, Lo: 1.25, Hi: 1.25}}}
	if e := r.BytesWithin(60); !near(e.Value, (60/1.25-0.5)*100e6, 1e-12) {
		t.Errorf("calibrated BytesWithin(60 s) = %v, want %v", e.Value, (60/1.25-0.5)*100e6)
	}
	if e := r.Seconds(5e8); !near(e.Value, 1.25*(0.5+5), 1e-12) || e.Extrapolated {
		t.Errorf("calibrated Seconds(500 MB) = %+v, want 6.875 s within range", e)
	}
}

func syntheticRuns() []*Run {
	var out []*Run
	for i, r := range capacitytest.Runs() {
		out = append(out, &Run{Label: "R" + strconv.Itoa(i+1), Path: "x", Results: r})
	}
	return out
}

// TestRTOTableArithmetic: on the synthetic runs the cold row's cells are
// the chosen rate's arithmetic, per task and times the threads per
// instance, and the other scenarios say they are not measured.
func TestRTOTableArithmetic(t *testing.T) {
	a := Analyze(syntheticRuns(), Options{Threads: 4})
	r := a.Rate
	if r == nil || r.Setup.Cases[0] != "kstreams-default" || r.Fit == nil || r.Threads != 1 {
		t.Fatalf("rate %+v (%v), want the fitted kstreams-default setup", r, a.RateErr)
	}
	if !near(r.PerThread, 100e6, 0.02) || math.Abs(r.Overhead-0.5) > 0.05 {
		t.Errorf("rate %s, want about 100 MB/s + 0.5 s", r.Summary())
	}
	cold := a.RTO.Row(RowColdRestore)
	for i, rto := range DefaultRTOs {
		c := cold.Cells[i]
		task := (rto.Seconds() - r.Overhead) * r.PerThread
		if c.RTO != rto || !near(c.Task.Value, task, 1e-12) || !near(c.Instance.Value, 4*task, 1e-12) || !c.Task.Extrapolated {
			t.Errorf("%s: cell %+v, want task %.4g (extrapolated) and instance %.4g", rto, c, task, 4*task)
		}
	}
	for _, name := range []string{"warm restart", "standby failover", "scale-out (warmup)"} {
		row := a.RTO.Row(name)
		if row == nil || row.Measured || !strings.Contains(row.Missing, "not measured in the inputs") {
			t.Errorf("%s row: %+v, want not measured", name, row)
		}
	}
}

// TestThreadsDivideTheRate: two threads over four partitions restore in
// parallel, so the per-thread rate is half the instance's.
func TestThreadsDivideTheRate(t *testing.T) {
	a := Analyze(syntheticRuns(), Options{Case: "threads-2"})
	if a.Rate == nil || a.Rate.Threads != 2 || !near(a.Rate.PerThread, 130e6/2, 0.02) {
		t.Fatalf("threads-2 rate %+v, want 2 threads at about 65 MB/s each", a.Rate)
	}
}

// TestDeploymentAnswers checks the plan's arithmetic for 48 GB over 16
// partitions, 6 instances of 4 threads, within 1 and 5 minutes.
func TestDeploymentAnswers(t *testing.T) {
	opts := Options{RTOs: []time.Duration{time.Minute, 5 * time.Minute}, Threads: 4,
		Deployment: Deployment{StateBytes: 48e9, Partitions: 16, Instances: 6}}
	a := Analyze(syntheticRuns(), opts)
	if len(a.Unanswered) > 0 {
		t.Fatalf("unanswered: %+v", a.Unanswered)
	}
	r := a.Rate
	task := 48e9 / 16
	answers := map[string]Answer{}
	for _, ans := range a.Answers {
		answers[ans.Question] = ans
	}
	// The synthetic runs restore far less than a thread does within 1 or 5
	// min, so the counts resting on that rest on more than
	// WideExtrapolation× the sizes measured: their values say so.
	want := map[string]string{
		"Partitions needed so each task restores within 1 min": "INCONCLUSIVE (at least " +
			strconv.Itoa(int(math.Ceil(48e9/((60-r.Overhead)*r.PerThread)))) + ")",
		"Cold restore of one task (3.00 GB of changelog)":                        FormatSeconds(r.Overhead + task/r.PerThread),
		"Cold restore of one instance (3 tasks on 4 threads: 1 task per thread)": FormatSeconds(r.Overhead + task/r.PerThread),
		"Instances needed for an instance's tasks to restore within 5 min": "INCONCLUSIVE (" +
			strconv.Itoa(int(math.Ceil(16/(4*math.Floor((300-r.Overhead)*r.PerThread/task))))) + ")",
	}
	for q, v := range want {
		if got, ok := answers[q]; !ok || got.Value != v {
			t.Errorf("%q = %q, want %q", q, got.Value, v)
		}
	}
	one := answers["Cold restore of one task (3.00 GB of changelog)"]
	if len(one.Checks) != 2 || !one.Checks[0].Meets || !one.Checks[1].Meets {
		t.Errorf("one task's checks %+v, want it to meet both objectives", one.Checks)
	}
}

// TestUnanswerable: a standby question without a standby run, a partition
// count without a state, an objective shorter than a restore's overhead.
func TestUnanswerable(t *testing.T) {
	cases := []struct {
		opts Options
		want string
	}{
		{Options{Deployment: Deployment{Standbys: 1}}, "needs a failover run with a standby"},
		{Options{Deployment: Deployment{WriteRate: 20e6}}, "highest write rate a standby sustains is not measured"},
		{Options{Deployment: Deployment{Partitions: 8}}, "--partitions needs --state"},
		{Options{Deployment: Deployment{Instances: 3}}, "--instances needs --partitions"},
		{Options{RTOs: []time.Duration{100 * time.Millisecond}, Deployment: Deployment{StateBytes: 1e9}}, "no partition count helps"},
	}
	for _, c := range cases {
		a := Analyze(syntheticRuns(), c.opts)
		found := false
		for _, u := range a.Unanswered {
			found = found || strings.Contains(u.Reason, c.want)
		}
		if !found {
			t.Errorf("%+v: unanswered %+v, want a reason containing %q", c.opts.Deployment, a.Unanswered, c.want)
		}
	}
}

// TestChooseRateErrors: no restores, an unknown case, no default case.
func TestChooseRateErrors(t *testing.T) {
	if _, err := ChooseRate(nil, "", nil); !errors.Is(err, ErrNoRestores) {
		t.Errorf("no setups: %v", err)
	}
	setups := Setups(Observations(syntheticRuns()))
	if _, err := ChooseRate(setups, "nosuch", nil); err == nil || !strings.Contains(err.Error(), `case "nosuch"`) || !strings.Contains(err.Error(), "kstreams-default, threads-2, ingest") {
		t.Errorf("unknown case: %v", err)
	}
	var nonDefault []*Setup
	for _, s := range setups {
		if !IsKafkaStreamsDefault(s.Params) {
			nonDefault = append(nonDefault, s)
		}
	}
	if _, err := ChooseRate(nonDefault, "", nil); err == nil || !strings.Contains(err.Error(), "--case") {
		t.Errorf("no default case: %v", err)
	}
}

// TestCalibration: the same settings on both engines give the median ratio
// of their times, and a model rate is scaled by it.
func TestCalibration(t *testing.T) {
	ks := capacitytest.Case{Name: "ks-default", Modify: func(c *config.Case) { c.Engine = config.EngineKafkaStreams }, Fixed: 0.6, Rate: 80e6}
	var rs []*Run
	for i, size := range capacitytest.Sizes {
		res := capacitytest.Run(i, size, []capacitytest.Case{capacitytest.Cases[0], ks})
		rs = append(rs, &Run{Label: "R" + strconv.Itoa(i+1), Results: res})
	}
	a := Analyze(rs, Options{})
	c := a.Calibration
	if c == nil || len(c.Pairs) != len(capacitytest.Sizes) {
		t.Fatalf("calibration %+v, want one pair per size", c)
	}
	// capacitytest's restore phase is its time to ready times the repeat's
	// noise less a 0.3 s ready phase; compare pairs repeat i with repeat i.
	size := float64(capacitytest.Sizes[0])
	var ratios []float64
	for _, n := range []float64{1.00, 1.03, 0.98, 1.015} {
		ratios = append(ratios, ((0.5+size/100e6)*n-0.3)/((0.6+size/80e6)*n-0.3))
	}
	if want := 1 / runs.Median(ratios); !near(c.Pairs[0].KafkaStreamsOverModel(), want, 1e-9) {
		t.Errorf("factor at 128 MB %v, want %v", c.Pairs[0].KafkaStreamsOverModel(), want)
	}
	if a.Rate.Setup.Params.Engine != config.EngineKafkaStreams || a.Rate.Calibration != nil {
		t.Errorf("the default rate should come from Kafka Streams itself, uncalibrated: %s", a.Rate.Label())
	}
	m := Analyze(rs, Options{Case: "kstreams-default"})
	if m.Rate.Calibration == nil || !strings.Contains(m.Rate.Label(), "calibrated") {
		t.Errorf("a model rate with a calibration available is not calibrated: %s", m.Rate.Label())
	}
}

// TestRecommendations: threads-2 beats the defaults beyond the spread in
// every synthetic run; ingest is the upper bound; the failed repeat counts
// nowhere.
func TestRecommendations(t *testing.T) {
	a := Analyze(syntheticRuns(), Options{})
	first := a.Recommendations[0]
	if first.Case != "threads-2" || !strings.Contains(first.Text, "4 of 4 runs") || len(first.Evidence) != 4 {
		t.Errorf("first recommendation %+v, want threads-2 in 4 of 4 runs", first)
	}
	if up := a.Recommendations[1]; up.Case != "ingest" {
		t.Errorf("upper bound %+v, want ingest", up)
	}
	for _, o := range a.Obs {
		if !o.Restore.Counts() {
			t.Errorf("%s does not count but was observed", o.Ref())
		}
	}
	if !strings.Contains(strings.Join(a.Unknowns, "\n"), "1 restore in the inputs did not verify") {
		t.Errorf("unknowns do not mention the failed restore: %q", a.Unknowns)
	}
}

func TestRefs(t *testing.T) {
	run1, run2 := &Run{Label: "R1"}, &Run{Label: "R2"}
	var obs []Obs
	for _, x := range []struct {
		run *Run
		rep int
	}{{run1, 1}, {run1, 2}, {run1, 3}, {run1, 5}, {run2, 1}} {
		obs = append(obs, Obs{Run: x.run, Restore: &runs.Restore{Case: "a", Repeat: x.rep}})
	}
	if got, want := Refs(obs), "R1 a #1-3,5, R2 a #1"; got != want {
		t.Errorf("Refs = %q, want %q", got, want)
	}
}

// TestRecommendationWithTooFewRepeatsIsInconclusive: with 3 repeats a
// side, disjoint ranges reach p = 0.10 at best, so the test cannot
// conclude: the recommendation says inconclusive and how many repeats it
// needs, not "keep the defaults".
func TestRecommendationWithTooFewRepeatsIsInconclusive(t *testing.T) {
	a := Analyze(syntheticRunsUpTo(3, nil), Options{})
	first := a.Recommendations[0]
	if first.Short != "inconclusive" || !strings.HasPrefix(first.Text, "Inconclusive: threads-2 restored faster") ||
		!strings.Contains(first.Text, "at least 4 repeats per case") || strings.Contains(first.Text, "keep the defaults") {
		t.Errorf("with 3 repeats: %+v", first)
	}
}

// TestRecommendationWithTwoRepeatsOverlappingIsInconclusive: with 2
// repeats a side no outcome reaches p ≤ 0.05 (2/C(4,2) = 0.33), so ranges
// that overlap show nothing either: the recommendation says inconclusive
// and how many repeats it needs, as it does when they are disjoint, never
// "keep the defaults".
func TestRecommendationWithTwoRepeatsOverlappingIsInconclusive(t *testing.T) {
	a := Analyze(syntheticRunsUpTo(2, func(kept []runs.Restore) {
		base := map[int]float64{}
		for _, rec := range kept {
			if rec.Case == "kstreams-default" {
				base[rec.Repeat] = rec.Phase.TotalSeconds
			}
		}
		for i := range kept { // every other case within the defaults' range, the faster by median
			if kept[i].Case != "kstreams-default" {
				kept[i].Phase.TotalSeconds = base[kept[i].Repeat] * (1 - 0.005*float64(2-kept[i].Repeat))
			}
		}
	}), Options{})
	first := a.Recommendations[0]
	if first.Short != "inconclusive" || !strings.HasPrefix(first.Text, "Inconclusive: ") ||
		!strings.Contains(first.Text, "at least 4 repeats per case") || strings.Contains(first.Text, "keep the defaults") {
		t.Errorf("with 2 overlapping repeats: %+v", first)
	}
}

// syntheticRunsUpTo are syntheticRuns keeping only the restores of
// repeats 1 to repeats that count, each run then complete; adjust, when
// given, edits a run's kept restores.
func syntheticRunsUpTo(repeats int, adjust func(kept []runs.Restore)) []*Run {
	var rs []*Run
	for _, r := range syntheticRuns() {
		kept := r.Results.Restores[:0]
		for _, rec := range r.Results.Restores {
			if rec.Repeat <= repeats && rec.Counts() {
				kept = append(kept, rec)
			}
		}
		if adjust != nil {
			adjust(kept)
		}
		r.Results.Restores = kept
		r.Results.Complete, r.Results.Failed, r.Results.Error = true, 0, ""
		rs = append(rs, r)
	}
	return rs
}
