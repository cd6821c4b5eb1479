package capacity

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// scenarioRuns are the synthetic cold runs R1-R4 and the scenario run R5.
func scenarioRuns() []*Run {
	rs := syntheticRuns()
	return append(rs, &Run{Label: "R" + strconv.Itoa(len(rs)+1), Path: "x", Results: capacitytest.ScenarioRun(len(rs))})
}

func answerOf(a *Analysis, prefix string) (Answer, bool) {
	for _, ans := range a.Answers {
		if strings.HasPrefix(ans.Question, prefix) {
			return ans, true
		}
	}
	return Answer{}, false
}

// TestWarmRestartRow: the warm row is the warm line's arithmetic over the
// bytes of changes, says it is changes, not state, and cites the restart
// with nothing changed; the cold baseline and the fallback stay out of the
// line.
func TestWarmRestartRow(t *testing.T) {
	a := Analyze(scenarioRuns(), Options{Threads: 2})
	w, err := a.Warm()
	if w == nil {
		t.Fatalf("no warm rate: %v", err)
	}
	if !near(w.PerThread, capacitytest.WarmRate, 0.02) || math.Abs(w.Overhead-capacitytest.WarmFixed) > 0.03 || w.Fit == nil || len(w.Obs) != 12 {
		t.Errorf("warm rate %s over %d restarts, want about %g MB/s + %g s over the 12 warm steps", w.Summary(), len(w.Obs), capacitytest.WarmRate/1e6, capacitytest.WarmFixed)
	}
	row := a.RTO.Row(RowWarmRestart)
	if !row.Measured || row.Quantity != QuantityChanges {
		t.Fatalf("warm row %+v, want measured, in changes", row)
	}
	for i, rto := range DefaultRTOs {
		want := (rto.Seconds() - w.Overhead) * w.PerThread
		if c := row.Cells[i]; !near(c.Task.Value, want, 1e-12) || !near(c.Instance.Value, 2*want, 1e-12) {
			t.Errorf("%s: cell %+v, want %.4g per task, twice per instance", rto, c, want)
		}
	}
	basis := strings.Join(row.Basis, "\n")
	for _, want := range []string{"not the size of the state", "a restart with 0 records changed took 0.4 s (R5 warm/changed=0 #1-3)", "R5 warm/fallback #1-3", "R5 warm/cold #1-3"} {
		if !strings.Contains(basis, want) {
			t.Errorf("warm basis lacks %q:\n%s", want, basis)
		}
	}
	ans, ok := answerOf(a, "Largest backlog of changes per task a warm restart replays within 5 min")
	if !ok || ans.Value != FormatBytes(row.Cells[1].Task.Value)+" of changes (34.7 M records; any state size)" {
		t.Errorf("warm answer %+v, want the 5 min cell in changes", ans)
	}
}

// TestStandbyFailoverRow: with a standby the gap does not depend on the
// state: each cell says whether the objective is met, at what gap.
func TestStandbyFailoverRow(t *testing.T) {
	rtos := []time.Duration{5 * time.Second, 8500 * time.Millisecond, time.Minute}
	a := Analyze(scenarioRuns(), Options{RTOs: rtos})
	row := a.RTO.Row(RowStandbyFailover)
	if !row.Measured || row.Sources != "R5 eos-standby #1 kills 1-3" {
		t.Fatalf("standby row %+v", row)
	}
	want := []string{"missed: median gap 8.10 s", "not always: gap up to 9.60 s (median 8.10 s)", "any size (gap ≤ 9.60 s)"}
	for i, c := range row.Cells {
		if c.Text != want[i] || c.Meets != (i == 2) {
			t.Errorf("%s: %q (meets %v), want %q", c.RTO, c.Text, c.Meets, want[i])
		}
	}
	if f := a.Failover(); !near(f.NoStandbyMedian, 16.55, 1e-9) || f.Takeovers[runs.TakeoverPromoted] != 3 {
		t.Errorf("failover evidence %+v", f)
	}
}

// TestScaleOutRow: the measured scale-out is cited, and each cell is the
// largest task the warmup model predicts within the objective: the model
// says yes there and no a little above.
func TestScaleOutRow(t *testing.T) {
	a := Analyze(scenarioRuns(), Options{})
	row := a.RTO.Row(RowScaleOut)
	if !row.Measured || !row.Predicted || !strings.Contains(strings.Join(row.Basis, " "), "1 probing round: 62.8 s") {
		t.Fatalf("scale-out row %+v", row)
	}
	in := a.ScaleOuts()[0].Record.Prediction.Inputs
	for _, c := range row.Cells {
		offsets := int64(c.Task.Value / in.BytesPerOffset)
		if got := predictSeconds(in, offsets); got > c.RTO.Seconds() {
			t.Errorf("%s: the model predicts %.1f s for the cell's %d offsets", c.RTO, got, offsets)
		}
		if got := predictSeconds(in, offsets*102/100+10); got <= c.RTO.Seconds() {
			t.Errorf("%s: 2%% more than the cell (%d offsets) still predicted within: %.1f s", c.RTO, offsets, got)
		}
	}
	if c := row.Cells[2]; !c.Task.Extrapolated || c.Instance.Value != 2*c.Task.Value {
		t.Errorf("15 min cell %+v: want beyond the measured 64 MB, 2 tasks per instance", c)
	}
}

// TestStandbyAnswers: the planner answers the standby questions from the
// records: the sustained rate against the user's, the failover gap, and
// whether a standby is needed at each objective.
func TestStandbyAnswers(t *testing.T) {
	rtos := []time.Duration{30 * time.Second, 15 * time.Minute}
	d := Deployment{StateBytes: 48e9, Partitions: 16, Instances: 4, Standbys: 1, WriteRate: 20e6}
	a := Analyze(scenarioRuns(), Options{RTOs: rtos, Threads: 2, Deployment: d})
	for _, u := range a.Unanswered {
		if strings.Contains(u.Question+u.Reason, "standby") {
			t.Errorf("unanswered: %+v", u)
		}
	}
	best := float64(capacitytest.StandbyBest) * 516
	for prefix, want := range map[string]string{
		"Highest write rate a standby sustained":    "41.3 MB/s (80,000 records/s)",
		"Does a standby keep up with 20.0 MB/s":     "yes: 41.3 MB/s (80,000 records/s) measured, 2.1× your rate",
		"Failover with num.standby.replicas=1":      "9.60 s processing gap (median 8.10 s), any state size",
		"Recovery after an instance fails, without": FormatSeconds(6.4 + a.Rate.Seconds(48e9/16).Value), // 4 tasks over 3 survivors × 2 threads: 1 each,
	} {
		ans, ok := answerOf(a, prefix)
		if !ok || ans.Value != want {
			t.Errorf("%s: %+v, want %q", prefix, ans, want)
		}
	}
	// The verdict counts failure detection (6.4 s measured) and shows its
	// margin: 3 GB a task restores in about 31 s, plus detection, misses
	// 30 s and leaves most of 15 min.
	if ans, _ := answerOf(a, "Is a standby needed for the RTO?"); !strings.HasPrefix(ans.Value, "yes for 30 s (without one it misses by ") ||
		!strings.Contains(ans.Value, "; no for 15 min (") || !strings.Contains(ans.Value, " to spare)") {
		t.Errorf("standby needed: %q", ans.Value)
	}
	// 30 GB a task, 30 times the largest size measured, decides nothing.
	d.StateBytes = 480e9
	wide := Analyze(scenarioRuns(), Options{RTOs: rtos, Threads: 2, Deployment: d})
	if ans, _ := answerOf(wide, "Is a standby needed for the RTO?"); !strings.HasPrefix(ans.Value, "inconclusive for 30 s (") ||
		!strings.Contains(ans.Value, "30× beyond the sizes measured") {
		t.Errorf("standby needed from a 30× extrapolation: %q", ans.Value)
	}
	if ans, _ := answerOf(a, "Failover with"); len(ans.Checks) != 2 || !ans.Checks[0].Meets {
		t.Errorf("failover checks %+v, want the 9.6 s gap to meet both", ans.Checks)
	}
	fast := Analyze(scenarioRuns(), Options{Deployment: Deployment{WriteRate: 2 * best}})
	if ans, _ := answerOf(fast, "Does a standby keep up"); !strings.HasPrefix(ans.Value, "no: it sustained 41.3 MB/s") {
		t.Errorf("at twice the sustained rate: %q", ans.Value)
	}
}

// TestLiveStateToChangelog: live state becomes changelog bytes with the
// measured amplification of the cleaner settings, capped by what the
// settings allow at that size; unmeasured settings give the bound,
// labelled the worst case; without partitions there is no bound.
func TestLiveStateToChangelog(t *testing.T) {
	live := 10e9
	cases := []struct {
		cleaner map[string]string
		parts   int
		want    float64
		label   string
	}{
		{nil, 0, live * 6.03, "measured amplification ×6.03"},
		{nil, 16, live/(1-0.5) + 16*(1073741824+1<<20), "the bound of these settings; the measured ×6.03 exceeds it"},
		{map[string]string{"segment.bytes": "8388608", "min.cleanable.dirty.ratio": "0.10"}, 0, live * 1.3575, "measured amplification ×1.36"},
		{map[string]string{"segment.bytes": "67108864"}, 16, live/(1-0.5) + 16*(67108864+1<<20), "WORST CASE these settings allow, not measured"},
	}
	for _, c := range cases {
		a := Analyze(scenarioRuns(), Options{Deployment: Deployment{LiveBytes: live, CleanerSettings: c.cleaner, Partitions: c.parts}})
		if a.State == nil || !near(a.State.Changelog, c.want, 1e-3) || !strings.Contains(a.State.Answer.Value, c.label) {
			t.Errorf("%v over %d partitions: %+v (%+v), want %.4g labelled %q", c.cleaner, c.parts, a.State, a.StateErr, c.want, c.label)
			continue
		}
		if ans, ok := answerOf(a, "Changelog to restore for 10.0 GB of live state"); !ok || ans.Value != a.State.Answer.Value {
			t.Errorf("no live-state answer among %d", len(a.Answers))
		}
	}
	a := Analyze(scenarioRuns(), Options{Deployment: Deployment{LiveBytes: live, CleanerSettings: map[string]string{"segment.bytes": "67108864"}}})
	if a.State != nil || a.StateErr == nil || !strings.Contains(a.StateErr.Reason, "needs --partitions") {
		t.Errorf("unmeasured settings without partitions: %+v %+v", a.State, a.StateErr)
	}
	if a := Analyze(syntheticRuns(), Options{Deployment: Deployment{LiveBytes: live, Partitions: 8}}); a.State == nil || !strings.Contains(a.State.Answer.Value, "WORST CASE") {
		t.Errorf("no compaction runs: %+v", a.State)
	}
}

// TestSweepComparedSizeBySize: a run that sweeps sizes is compared size by
// size, its cases share a setup under their profile names, and only cold
// restores are compared.
func TestSweepComparedSizeBySize(t *testing.T) {
	sweep := capacitytest.Run(0, capacitytest.Sizes[0], nil)
	for i, size := range capacitytest.Sizes {
		r := capacitytest.Run(i, size, capacitytest.Cases[:2])
		for _, x := range r.Restores {
			x.SetSize(strconv.Itoa(i) + "MB")
			sweep.Restores = append(sweep.Restores, x)
		}
	}
	sweep.Restores = append(sweep.Restores, capacitytest.ScenarioRun(0).Restores...)
	a := Analyze([]*Run{{Label: "R1", Results: sweep}}, Options{})
	if len(a.Comparisons) != len(capacitytest.Sizes) || a.Comparisons[1].Label() != "R1@1MB" || a.Comparisons[1].Baseline != "kstreams-default@1MB" {
		t.Fatalf("%d comparisons (first %q), want one per size", len(a.Comparisons), a.Comparisons[0].Label())
	}
	for _, rc := range a.Comparisons {
		if n := len(rc.Restores); n != 8 {
			t.Errorf("%s compares %d restores, want the 8 cold ones of its size", rc.Label(), n)
		}
	}
	if r := a.Rate; r == nil || r.Fit == nil || strings.Join(r.Setup.Cases, ",") != "kstreams-default" {
		t.Errorf("rate %+v: want one fitted setup named kstreams-default over the sweep", r)
	}
	if first := a.Recommendations[0]; first.Case != "threads-2" || !strings.Contains(first.Text, "in 4 of 4 sizes") {
		t.Errorf("recommendation %q", first.Text)
	}
}

// TestKafkaStreamsStandbyBytesFromTheFill: a kafka-streams standby step
// reports records only; its bytes a second come from the fill's bytes per
// record (its records continue the fill's generator), never 0 MB/s.
func TestKafkaStreamsStandbyBytesFromTheFill(t *testing.T) {
	run := &Run{Label: "R1", Results: &runs.Results{Fill: &runs.Fill{Records: 1000, Bytes: 416_000}}}
	o := Obs{Run: run, Restore: &runs.Restore{Records: 50_000}}
	if got := recordBytes(o); got != 416 {
		t.Fatalf("bytes per record %v, want the fill's 416", got)
	}
	o.ChangelogBytes = 50_000 * 500
	if got := recordBytes(o); got != 500 {
		t.Fatalf("bytes per record %v, want the restore's own 500", got)
	}
}

// TestWorstCaseWithACompactionLagNeedsTheWriteRate: records younger than
// min.compaction.lag.ms are never cleaned, so without a write rate the
// settings allow any amount of changelog: the planner says what it needs
// rather than give a worst case too small.
func TestWorstCaseWithACompactionLagNeedsTheWriteRate(t *testing.T) {
	opts := Options{Deployment: Deployment{LiveBytes: 10e9, Partitions: 8,
		CleanerSettings: map[string]string{"min.compaction.lag.ms": "600000"}}}
	a := &Analysis{Options: opts}
	if _, un := resolveState(a); un == nil || !strings.Contains(un.Reason, "--write-rate") {
		t.Fatalf("worst case without a write rate: %+v", un)
	}
	a.Options.Deployment.WriteRate = 1e6
	est, un := resolveState(a)
	if un != nil || est.Changelog < 10e9/(1-0.5)+600*1e6 {
		t.Fatalf("worst case with 1 MB/s written and a 10-minute lag: %+v %+v", est, un)
	}
}

// TestHypotheticalTasksStartAtOffsetZero: the RTO row sizes hypothetical
// tasks from a measured scale-out's inputs; the measured changelog's log
// start (a deleted head) must not make them look further behind.
func TestHypotheticalTasksStartAtOffsetZero(t *testing.T) {
	in := warmup.Defaults()
	in.TaskOffsets, in.Before, in.After, in.RestoreRate = warmup.Uniform(4, 1000), 1, 2, 50_000
	in.ProbingIntervalSeconds, in.Order = 60, []int{0, 1}
	fresh := predictSeconds(in, 5000)
	in.TaskLogStart = []int64{130_000, 130_000, 130_000, 130_000}
	if got := predictSeconds(in, 5000); got != fresh {
		t.Fatalf("tasks of 5000 offsets: %.1fs after a measured log start of 130k, %.1fs without", got, fresh)
	}
}

// TestAnswersWithoutARate: with no cold restore in the inputs, the answers
// that rest on the cold-restore rate are left out (its absence said once)
// and every other answerer still answers; with the cold runs added the
// rate's answers come back.
func TestAnswersWithoutARate(t *testing.T) {
	d := Deployment{StateBytes: 8e9, Partitions: 8, Instances: 2}
	scen := []*Run{{Label: "R1", Path: "x", Results: capacitytest.ScenarioRun(0)}}
	a := Analyze(scen, Options{Deployment: d})
	if a.Rate != nil {
		t.Fatal("a rate from a run without cold restores")
	}
	if len(a.Unanswered) == 0 || a.Unanswered[0].Question != "cold-restore rate" {
		t.Fatalf("unanswered %+v, want the rate's absence first", a.Unanswered)
	}
	for _, prefix := range []string{"Largest changelog per task", "Cold restore of one task"} {
		if ans, ok := answerOf(a, prefix); ok {
			t.Errorf("answered %q without a rate", ans.Question)
		}
	}
	for _, prefix := range []string{"Largest backlog of changes per task", "Highest write rate a standby sustained", "Scale-out"} {
		if _, ok := answerOf(a, prefix); !ok {
			t.Errorf("no %q answer without a rate: %v", prefix, questions(a))
		}
	}
	with := Analyze(scenarioRuns(), Options{Deployment: d})
	for _, prefix := range []string{"Cold-restore rate", "Largest changelog per task", "Cold restore of one task"} {
		if _, ok := answerOf(with, prefix); !ok {
			t.Errorf("no %q answer with a rate: %v", prefix, questions(with))
		}
	}
}

func questions(a *Analysis) []string {
	var qs []string
	for _, ans := range a.Answers {
		qs = append(qs, ans.Question)
	}
	return qs
}

// TestScaleOutRateFromTheLargerWork: a scale-out whose setup restored 0.9 MB
// a thread at 3584 offsets/s is mostly start-up; beside a Kafka Streams
// cold-restore rate measured on 1 GB a thread, 56 times faster, the
// predictions use the cold rate and say why. An uncalibrated model rate is
// named but not used.
func TestScaleOutRateFromTheLargerWork(t *testing.T) {
	ks := config.DefaultCase()
	ks.Engine = config.EngineKafkaStreams
	a := &Analysis{Rate: &Rate{Setup: &Setup{Params: ks, Cases: []string{"kstreams-default"}}, PerThread: 100e6, Threads: 1, Lo: 256e6, Hi: 1e9}}
	in := warmup.Inputs{RestoreRate: 3584, BytesPerOffset: 500, TaskOffsets: []int64{900, 900}, Before: 1, Threads: 1}
	rate, note := scaleOutRestoreRate(a, nil, in)
	if rate != 200_000 || !strings.Contains(note, "rather than the scale-out setup's 3584 offsets/s") || !strings.Contains(note, "disagree by ×55.8") {
		t.Errorf("Kafka Streams cold rate beside a start-up-bound setup: %v offsets/s, %q", rate, note)
	}
	a.Rate.Setup.Params.Engine = config.EngineModel
	rate, note = scaleOutRestoreRate(a, nil, in)
	if rate != 3584 || !strings.Contains(note, "uncalibrated, so it is not used") {
		t.Errorf("uncalibrated model rate: %v offsets/s, %q", rate, note)
	}
	a.Rate.PerThread = 2e6 // 4000 offsets/s: agrees within ×2
	if rate, note = scaleOutRestoreRate(a, nil, in); rate != 3584 || note != "" {
		t.Errorf("agreeing rates: %v, %q", rate, note)
	}
}

// TestEveryScenarioIsAnswered: the planner reads every scenario's records
// in some answerer, except rolling restarts, which answer no capacity
// question yet (their downtime is in the report's scale-out section).
func TestEveryScenarioIsAnswered(t *testing.T) {
	read := map[config.Scenario]bool{}
	for _, a := range answerers.All() {
		for _, sc := range a.scenarios {
			read[sc] = true
		}
	}
	for _, def := range config.ScenarioDefs() {
		if want := def.Name != config.ScenarioRolling; read[def.Name] != want {
			t.Errorf("scenario %s answered: %t, want %t", def.Name, read[def.Name], want)
		}
	}
}

// TestEveryScenarioMakesItsContributions: every scenario config registers
// has an RTO row, a recommendation and an unknown registered from its file,
// or declares (declareLacks) that it has none and why; never both. A new
// scenario that forgets its row fails here instead of leaving the table.
func TestEveryScenarioMakesItsContributions(t *testing.T) {
	made := map[contribution]map[config.Scenario]bool{contribRTORow: {}, contribRecommendation: {}, contribUnknown: {}}
	for _, r := range rtoRows.All() {
		for _, sc := range r.scenarios {
			made[contribRTORow][sc] = true
		}
	}
	for _, r := range recommenders.All() {
		for _, sc := range r.scenarios {
			made[contribRecommendation][sc] = true
		}
	}
	for _, u := range unknownLines.All() {
		for _, sc := range u.scenarios {
			made[contribUnknown][sc] = true
		}
	}
	for _, def := range config.ScenarioDefs() {
		for _, c := range contributions {
			why, lacking := lacks[def.Name][c]
			switch {
			case !made[c][def.Name] && !lacking:
				t.Errorf("scenario %s has no %s: register one from its file's init, or declareLacks(%s, %q, why)", def.Name, c, def.Name, c)
			case made[c][def.Name] && lacking:
				t.Errorf("scenario %s has a %s but declares it lacks one (%s)", def.Name, c, why)
			}
		}
	}
}

// TestContributionRegistriesRefuseAClash: a row, recommendation or unknown
// of a registered order, or naming a scenario config does not register,
// panics when the program starts, as does a second or unexplained
// declaration of a lack.
func TestContributionRegistriesRefuseAClash(t *testing.T) {
	savedR, savedC, savedU, savedL := rtoRows, recommenders, unknownLines, lacks
	defer func() { rtoRows, recommenders, unknownLines, lacks = savedR, savedC, savedU, savedL }()
	lacks = map[config.Scenario]map[contribution]string{}
	cold, nope := []config.Scenario{config.ScenarioCold}, []config.Scenario{"nope"}
	for name, reg := range map[string]func(){
		"row of a taken order":           func() { registerRTORow(rtoRow{order: rtoRows.All()[0].order, scenarios: cold}) },
		"row of no scenario":             func() { registerRTORow(rtoRow{order: 1_000}) },
		"row of an unknown scenario":     func() { registerRTORow(rtoRow{order: 1_001, scenarios: nope}) },
		"advice of a taken order":        func() { registerRecommendation(recommender{order: recommenders.All()[0].order, scenarios: cold}) },
		"advice of an unknown scenario":  func() { registerRecommendation(recommender{order: 1_002, scenarios: nope}) },
		"unknown of a taken order":       func() { registerUnknown(unknown{order: unknownLines.All()[0].order}) },
		"unknown of an unknown scenario": func() { registerUnknown(unknown{order: 1_003, scenarios: nope}) },
		"lack of an unknown scenario":    func() { declareLacks("nope", contribRTORow, "why") },
		"lack without a reason":          func() { declareLacks(config.ScenarioWarm, contribRTORow, "") },
		"lack declared twice (the second)": func() {
			declareLacks(config.ScenarioCold, contribRTORow, "x")
			declareLacks(config.ScenarioCold, contribRTORow, "y")
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			reg()
		}()
	}
}

// TestRegisterAnswererRefusesAClash: an answerer of a registered order, or
// of no scenario or one config does not register, panics when the program
// starts; the registry stays in order.
func TestRegisterAnswererRefusesAClash(t *testing.T) {
	saved := answerers
	defer func() { answerers = saved }()
	all := answerers.All()
	for i := 1; i < len(all); i++ {
		if all[i-1].order >= all[i].order {
			t.Errorf("answerers out of order: %d before %d", all[i-1].order, all[i].order)
		}
	}
	for _, a := range []answerer{
		{order: all[0].order, scenarios: []config.Scenario{config.ScenarioCold}},
		{order: 1_000},
		{order: 1_001, scenarios: []config.Scenario{"nope"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registerAnswerer(order %d, %v) did not panic", a.order, a.scenarios)
				}
			}()
			registerAnswerer(a)
		}()
	}
}

// TestFailoverGapsAcrossHostsTakeTheClocksBound: a kill measured across
// two hosts counts its gap plus the clocks' bound, the longest it can have
// been, so a 29 s gap known to ±2 s does not meet a 30 s objective.
func TestFailoverGapsAcrossHostsTakeTheClocksBound(t *testing.T) {
	rs := scenarioRuns()
	n := 0
	for _, r := range rs {
		for i := range r.Results.Restores {
			if f := r.Results.Restores[i].Failover; f != nil && f.Standby && len(f.Tasks) > 0 {
				f.MaxGapSeconds, f.ClockBoundSeconds = 29, 2
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no standby kills in the scenario runs")
	}
	a := Analyze(rs, Options{RTOs: []time.Duration{30 * time.Second}})
	if a.Failover() == nil || a.Failover().Worst != 31 || !strings.Contains(a.Failover().Summary(), "plus the clocks' bound across hosts, up to 2.00 s") {
		t.Fatalf("evidence %+v: want worst 31 s (29 s + 2 s)", a.Failover())
	}
	if c := a.RTO.Row(RowStandbyFailover).Cells[0]; c.Meets {
		t.Errorf("30 s cell %+v: a gap of up to 31 s does not meet it", c)
	}
}
