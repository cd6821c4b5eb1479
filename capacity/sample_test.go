package capacity

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The sample spans the partitions' sizes: the largest, the smallest, then
// ranks between; every partition when n is at least their count.
func TestChooseSampleSpansTheSizes(t *testing.T) {
	tasks := []TaskSize{{0, 50, 0}, {1, 90, 0}, {2, 10, 0}, {3, 70, 0}, {4, 30, 0}}
	cases := []struct {
		n    int
		want []int32
	}{{1, []int32{1}}, {2, []int32{1, 2}}, {3, []int32{0, 1, 2}}, {9, []int32{0, 1, 2, 3, 4}}}
	for _, c := range cases {
		if got := ChooseSample(tasks, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("n=%d: %v, want %v", c.n, got, c.want)
		}
	}
}

// A sampled task is as measured; one between two sampled sizes is priced
// between them, inside the sizes measured; one outside is scaled and said
// to extrapolate.
func TestTaskTimesPriceBetweenTheSample(t *testing.T) {
	s := &Sample{Tasks: []TaskSize{{0, 100, 0}, {1, 200, 0}, {2, 150, 0}, {3, 400, 0}}}
	times := taskTimes(s, map[int32][]float64{0: {10, 11, 12}, 1: {20, 21, 22}})
	by := map[int32]TaskTime{}
	for _, tt := range times {
		by[tt.Partition] = tt
	}
	if m := by[1]; !m.Measured || m.Value != 21 || m.Lo != 20 || m.Hi != 22 || m.Extrapolated {
		t.Errorf("sampled task: %+v, want measured 21 (20–22)", m)
	}
	if m := by[2]; m.Measured || math.Abs(m.Value-16) > 1e-9 || m.Extrapolated || m.Beyond != 1 {
		t.Errorf("task between 100 and 200 at 150: %+v, want 16, not extrapolated", m)
	}
	if m := by[3]; !m.Extrapolated || math.Abs(m.Value-42) > 1e-9 || m.Beyond != 2 {
		t.Errorf("task twice the largest sampled: %+v, want 42, 2× beyond", m)
	}
}

// An instance composed through a measured composition takes its tasks'
// own times less what a task alone pays however large, scaled from one
// task's rate to k tasks', plus what k tasks pay together, never less than
// its slowest task; with no composition it is the plain sum, said
// unverified; past the task counts measured it extrapolates.
func TestComposeInstance(t *testing.T) {
	times := []TaskTime{{Partition: 0, Estimate: measured(10, 9, 11)}, {Partition: 1, Estimate: measured(10, 9, 11)},
		{Partition: 2, Estimate: measured(10, 9, 11)}, {Partition: 3, Estimate: measured(10, 9, 11)}}
	c := &Composition{Threads: 1, MaxTasks: 4, Fits: []ComposeFit{
		{Tasks: 1, Fixed: 1, PerByte: 1e-8},
		{Tasks: 2, Fixed: 1.5, PerByte: 0.9e-8},
		{Tasks: 4, Fixed: 2, PerByte: 0.8e-8, ErrLo: -0.05, ErrHi: 0.05}}}
	got := composeInstance(times, 4, 1, c, c)
	if want := 2 + 0.8*(40-4*1); math.Abs(got.Value-want) > 1e-9 || got.Extrapolated || got.Unverified != "" {
		t.Errorf("4 tasks of 10 s: %+v, want 2 + 0.8 × (40 − 4 × 1) = %v s, measured", got, want)
	}
	if got.Lo >= got.Value || got.Hi <= got.Value {
		t.Errorf("interval %v–%v does not hold %v", got.Lo, got.Hi, got.Value)
	}
	if mid := composeInstance(times, 3, 1, c, c); math.Abs(mid.Value-(1.75+0.85*(30-3))) > 1e-9 {
		t.Errorf("3 tasks, between the counts measured: %v, want the fits interpolated: %v", mid.Value, 1.75+0.85*27)
	}
	plain := composeInstance(times, 4, 1, nil, nil)
	if plain.Value != 40 || plain.Unverified == "" {
		t.Errorf("without a composition: %+v, want the sum 40 s, said unverified", plain)
	}
	c.MaxTasks = 2
	if got := composeInstance(times, 4, 1, c, c); !got.Extrapolated || got.Beyond != 2 {
		t.Errorf("4 tasks, composition measured to 2: %+v, want 2× beyond", got)
	}
	fast := &Composition{Threads: 1, MaxTasks: 4, Fits: []ComposeFit{{Tasks: 1, Fixed: 1, PerByte: 1e-8}, {Tasks: 4, Fixed: 0, PerByte: 1e-9}}}
	if got := composeInstance(times, 4, 1, fast, fast); got.Value != 10 {
		t.Errorf("a composition ten times faster a byte: %v, want the slowest task alone (10 s), never less", got.Value)
	}
}

// TestCompositionsOfTheSavedComposeRun: the saved run of the compose
// profile (Kafka Streams 4.4.0 on one and two threads and the model on
// one, 1-16 tasks of 32 MB and of 128 MB) gives a composition per engine
// and thread count, each a line per task count to 16 tasks.
func TestCompositionsOfTheSavedComposeRun(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/compose"})
	if err != nil {
		t.Fatal(err)
	}
	cs := compositionsOf(Observations(rs))
	if len(cs) != 3 {
		t.Fatalf("%d compositions, want 3 (the model on one thread, Kafka Streams on one and two)", len(cs))
	}
	ks, one := CompositionFor(cs, "kafka-streams", 1, "", 0)
	if ks == nil || ks != one || ks.MaxTasks != 16 || len(ks.Fits) != 5 || ks.Fits[0].MaxSize < 3*ks.Fits[0].MinSize {
		t.Fatalf("Kafka Streams' one-thread composition: %+v", ks)
	}
	for _, f := range ks.Fits {
		if !(f.PerByte > 0 && f.ErrLo <= 0 && f.ErrHi >= 0 && f.ErrHi-f.ErrLo < 0.5) {
			t.Errorf("%d tasks: %+v, want a line with a cost a byte and its error around it, within ±25%%", f.Tasks, f)
		}
	}
	if two, one := CompositionFor(cs, "kafka-streams", 2, "", 0); two == nil || one != ks {
		t.Errorf("the two-thread series is not priced against the one-thread series' task alone: %+v, %+v", two, one)
	}
}

// TestCompositionForTakesTheNearestRecordSize: of two series on the same
// host, engine and threads, an instance composes through the one whose
// records are nearest the user's, with that series' own single task; a
// series on the sample's host wins over one on another at any record
// size; without the user's record size, the first.
func TestCompositionForTakesTheNearestRecordSize(t *testing.T) {
	small := &Composition{Engine: "kafka-streams", Threads: 1, Host: "vm", RecordBytes: 80}
	large := &Composition{Engine: "kafka-streams", Threads: 1, Host: "vm", RecordBytes: 500}
	largeTwo := &Composition{Engine: "kafka-streams", Threads: 2, Host: "vm", RecordBytes: 500}
	smallTwo := &Composition{Engine: "kafka-streams", Threads: 2, Host: "vm", RecordBytes: 80}
	elsewhere := &Composition{Engine: "kafka-streams", Threads: 1, Host: "other", RecordBytes: 500}
	cs := []*Composition{elsewhere, small, smallTwo, large, largeTwo}
	for _, c := range []struct {
		threads      int
		records      float64
		want, single *Composition
	}{{1, 500, large, large}, {1, 300, large, large}, {1, 16, small, small}, {2, 480, largeTwo, large}, {2, 90, smallTwo, small},
		{1, 0, small, small}} {
		got, one := CompositionFor(cs, "kafka-streams", c.threads, "vm", c.records)
		if got != c.want || one != c.single {
			t.Errorf("%d threads, records of %.0f B: %+v with %+v, want %+v with %+v", c.threads, c.records, got, one, c.want, c.single)
		}
	}
	if got, _ := CompositionFor([]*Composition{small, elsewhere}, "kafka-streams", 1, "other", 80); got != elsewhere {
		t.Errorf("the sample's own host's series lost to another host's at the user's record size: %+v", got)
	}
	// Two threads measured at 80 B and 500 B, one thread only at 80 B: the
	// pair priced together is alike (80 B) rather than the nearest records
	// with no single task of theirs.
	if got, one := CompositionFor([]*Composition{small, smallTwo, largeTwo}, "kafka-streams", 2, "vm", 450); got != smallTwo || one != small {
		t.Errorf("2 threads, one thread measured at 80 B only: %+v with %+v, want the 80 B pair", got, one)
	}
	// Only a series of other records has a single task: it is taken, the
	// nearest of the host's.
	if got, one := CompositionFor([]*Composition{largeTwo, small}, "kafka-streams", 2, "vm", 450); got != largeTwo || one != small {
		t.Errorf("2 threads at 500 B, one thread at 80 B only: %+v with %+v, want both", got, one)
	}
}

// Sampled tasks that span sizes tell what one of the user's tasks pays
// alone however large (their line's intercept), and the composition takes
// that rather than its own single task's, which another record size had.
func TestComposeInstanceTakesTheTasksOwnFixedPart(t *testing.T) {
	times := []TaskTime{{Partition: 0, Size: 100, Measured: true, Estimate: measured(3, 3, 3)},
		{Partition: 1, Size: 500, Measured: true, Estimate: measured(11, 11, 11)},
		{Partition: 2, Size: 300, Estimate: Estimate{Value: 7, Lo: 7, Hi: 7, Beyond: 1}}}
	c := &Composition{Threads: 1, MaxTasks: 4, Fits: []ComposeFit{
		{Tasks: 1, Fixed: 0.5, PerByte: 1e-8}, {Tasks: 2, Fixed: 0.5, PerByte: 1e-8}, {Tasks: 4, Fixed: 1, PerByte: 1e-8}}}
	got := composeInstance(times, 3, 1, c, c)
	// The tasks' own line: 1 s + 0.02 s a unit of size; k = 3 interpolates
	// the fixed part to 0.75 s, scaled by 1 / 0.5 to the user's.
	if want := 0.75*2 + (21 - 3*1.0); !got.TaskFixedOwn || got.TaskFixed != 1 || math.Abs(got.Value-want) > 1e-9 {
		t.Errorf("%+v, want the tasks' own fixed part (1 s) and %v s", got, want)
	}
	same := []TaskTime{{Partition: 0, Size: 100, Measured: true, Estimate: measured(3, 3, 3)},
		{Partition: 1, Size: 110, Measured: true, Estimate: measured(3.2, 3.2, 3.2)}}
	if got := composeInstance(same, 2, 1, c, c); got.TaskFixedOwn || got.TaskFixed != 0.5 {
		t.Errorf("tasks of nearly one size: %+v, want the composition's single task's fixed part (0.5 s)", got)
	}
}

// Tasks larger than any the composition measured are not composed as
// if they were not: the answer says how much larger and is unverified.
func TestComposeInstanceRefusesTasksLargerThanMeasured(t *testing.T) {
	times := []TaskTime{{Partition: 0, Offsets: 2.3e6, Measured: true, Estimate: measured(7, 6.8, 7.2)},
		{Partition: 1, Offsets: 2.3e6, Measured: true, Estimate: measured(7, 6.8, 7.2)}}
	c := &Composition{Threads: 1, MaxTasks: 2, Fits: []ComposeFit{
		{Tasks: 1, Fixed: 0.4, PerByte: 1e-8, MaxRecords: 1.6e6}, {Tasks: 2, Fixed: 0.5, PerByte: 0.9e-8, MaxRecords: 1.6e6}}}
	got := composeInstance(times, 2, 1, c, c)
	if !strings.Contains(got.Unverified, "up to 1.6 M records, and these hold up to 2.3 M (1.4×)") {
		t.Errorf("tasks of 2.3 M records through a composition of 1.6 M: %q, want it said unverified", got.Unverified)
	}
	times[0].Offsets, times[1].Offsets = 1.5e6, 1.5e6
	if got := composeInstance(times, 2, 1, c, c); got.Unverified != "" {
		t.Errorf("tasks within the sizes measured: %q, want a composed answer", got.Unverified)
	}
}

// The sampled partitions are named in their order, 2, 9, 10, not as
// strings sort them (10, 2, 9).
func TestSampleTextNamesPartitionsInOrder(t *testing.T) {
	s := &Sample{Tasks: []TaskSize{{2, 100, 0}, {9, 300, 0}, {10, 200, 0}, {11, 150, 0}}, SizeSource: "log segments"}
	times := taskTimes(s, map[int32][]float64{2: {1}, 9: {3}, 10: {2}})
	if got := sampleText(s, times); !strings.Contains(got, "(partitions 2, 9, 10)") {
		t.Errorf("%q, want the partitions in order", got)
	}
}

// The sampled tasks restored together say how the user's own tasks
// compose: the instance's tasks alone, summed, times what the sampled ones
// measured together over alone, moved from their count to the instance's
// as the composition series moves it; its interval takes the together
// restores' range; tasks larger than the series measured are answered when
// the check's tasks are as large. A check on smaller tasks, or on another
// thread count, is not applied.
func TestCheckComposedScalesByTheTasksTogether(t *testing.T) {
	times := []TaskTime{{Partition: 0, Offsets: 2.3e6, Size: 3e8, Measured: true, Estimate: measured(7, 6.8, 7.2)},
		{Partition: 1, Offsets: 2.3e6, Size: 3e8, Measured: true, Estimate: measured(7, 6.8, 7.2)},
		{Partition: 2, Offsets: 2.3e6, Size: 3e8, Estimate: Estimate{Value: 7, Lo: 6.8, Hi: 7.2, Beyond: 1}},
		{Partition: 3, Offsets: 2.3e6, Size: 3e8, Estimate: Estimate{Value: 7, Lo: 6.8, Hi: 7.2, Beyond: 1}}}
	// The series: 2 tasks together take 0.9× their time alone, 4 tasks
	// 0.72×, at every size: from 2 to 4 tasks the ratio moves by 0.8×.
	fit := func(k int, perByte float64) ComposeFit {
		return ComposeFit{Tasks: k, PerByte: perByte, MaxRecords: 1.6e6, MinSize: 1e8, MaxSize: 4e8}
	}
	c := &Composition{Threads: 1, MaxTasks: 4, Fits: []ComposeFit{fit(1, 1e-8), fit(2, 0.9e-8), fit(4, 0.72e-8)}}
	plain := checkComposed(times, 4, 1, c, c, nil)
	if plain.Unverified == "" || plain.Check != nil {
		t.Fatalf("tasks of 2.3 M records, no check: %+v, want unverified", plain)
	}
	// Partitions 0 and 1, 14 s alone, took 9.9 s together (9.6–10.4).
	tg := &Together{Partitions: []int32{0, 1}, Threads: 1, Seconds: []float64{9.6, 9.9, 10.4}}
	got := checkComposed(times, 4, 1, c, c, tg)
	ratio := 9.9 / 14
	if got.Check == nil || got.Unverified != "" || math.Abs(got.Check.Ratio-ratio) > 1e-9 || math.Abs(got.Check.Move-0.8) > 1e-9 ||
		math.Abs(got.Value-28*ratio*0.8) > 1e-9 {
		t.Fatalf("checked: %+v (check %+v), want 28 s × %.3f × 0.8 and no longer unverified", got, got.Check, ratio)
	}
	if lo, hi := 27.2*9.6/14*0.8, 28.8*10.4/14*0.8; math.Abs(got.Lo-lo) > 1e-9 || math.Abs(got.Hi-hi) > 1e-9 {
		t.Errorf("interval %v–%v, want %v–%v: the tasks' ranges and the least and most together over their medians alone", got.Lo, got.Hi, lo, hi)
	}
	if text := got.Check.Text(); !strings.Contains(text, "partitions 0, 1 restored together") || !strings.Contains(text, "from 2 to 4 tasks") {
		t.Errorf("check text %q names no partitions or no move", text)
	}
	small := append([]TaskTime(nil), times...)
	small[0].Offsets, small[1].Offsets = 1e6, 1e6
	if got := checkComposed(small, 4, 1, c, c, tg); got.Unverified == "" {
		t.Errorf("a check on tasks of 1 M records for an instance holding 2.3 M: %+v, want still unverified", got)
	}
	// The series predicted 0.9× for the two; a ratio a quarter and more
	// away from it says the series does not describe these tasks.
	far := &Together{Partitions: []int32{0, 1}, Threads: 1, Seconds: []float64{14 * 0.9 * 1.3}}
	if got := checkComposed(times, 4, 1, c, c, far); got.Check == nil || !strings.Contains(got.Unverified, "predicted 0.90× for the sampled tasks together where they measured 1.17×") {
		t.Errorf("a measured ratio 30%% off the series': %q, want unverified, naming both", got.Unverified)
	}
	// A smaller miss, moved far: 20% at 2 tasks is answered at 4 (one
	// doubling), not at 16 (three, past seriesMissMoved).
	near := &Together{Partitions: []int32{0, 1}, Threads: 1, Seconds: []float64{14 * 0.9 * 0.8}}
	if got := checkComposed(times, 4, 1, c, c, near); got.Check == nil || got.Unverified != "" {
		t.Errorf("a 20%% miss moved from 2 tasks to 4: %q, want answered", got.Unverified)
	}
	var sixteen []TaskTime
	for p := range int32(16) {
		tt := times[min(p, 2)]
		tt.Partition = p
		sixteen = append(sixteen, tt)
	}
	c16 := &Composition{Threads: 1, MaxTasks: 16, Fits: []ComposeFit{fit(1, 1e-8), fit(2, 0.9e-8), fit(4, 0.72e-8), fit(16, 0.6e-8)}}
	if got := checkComposed(sixteen, 16, 1, c16, c16, near); got.Check == nil ||
		!strings.Contains(got.Unverified, "(20% apart), and the answer moves that ratio 3.0 doublings, from 2 tasks to 16") {
		t.Errorf("a 20%% miss moved from 2 tasks to 16: %q, want unverified, naming the miss and the doublings", got.Unverified)
	}
	close5 := &Together{Partitions: []int32{0, 1}, Threads: 1, Seconds: []float64{14 * 0.9 * 1.05}}
	if got := checkComposed(sixteen, 16, 1, c16, c16, close5); got.Check == nil || got.Unverified != "" {
		t.Errorf("a 5%% miss moved from 2 tasks to 16: %q, want answered", got.Unverified)
	}
	if got := checkComposed(times[:2], 2, 1, c, c, far); got.Unverified != "" || got.Check == nil {
		t.Errorf("an instance of just the tasks restored together: %q, want their own restore together, the series not needed", got.Unverified)
	}
	if got := checkComposed(times[:1], 1, 1, c, c, tg); got.Check != nil || got.Value != 7 {
		t.Errorf("an instance of one task: %v s (check %+v), want the task's own 7 s, not scaled by a check of two", got.Value, got.Check)
	}
	if got := checkComposed(times, 4, 1, c, c, &Together{Partitions: []int32{0, 1}, Threads: 2, Seconds: []float64{9.9}}); got.Check != nil {
		t.Errorf("a check on 2 threads for a 1-thread instance was applied: %+v", got.Check)
	}
}

// A changelog restored through a sample is reported by its largest
// sampled partition's restores alone, not by a median over partitions of
// other sizes and the restore of the sample together.
func TestYourTopicRestoresOfASample(t *testing.T) {
	obs := func(bytes float64, secs float64, parts ...int32) Obs {
		return Obs{Restore: &runs.Restore{Topic: "t", Params: config.DefaultCase(), RestoredPartitions: parts}, ChangelogBytes: bytes, Seconds: secs}
	}
	a := &Analysis{Obs: []Obs{obs(300, 7, 0), obs(300, 7.4, 0), obs(100, 3, 3), obs(100, 3.2, 3), obs(400, 9, 0, 3), obs(400, 9.2, 0, 3)}}
	got, what := yourTopicRestores(a, "t")
	ks := got[config.EngineModel]
	if len(got) != 1 || len(ks) != 2 || ks[0].Seconds != 7 || ks[1].Seconds != 7.4 || !strings.Contains(what, "Partition 0 of your changelog t") {
		t.Errorf("%q: %+v, want partition 0's two restores alone", what, got)
	}
	a.Obs = append(a.Obs, obs(1600, 30))
	if got, what := yourTopicRestores(a, "t"); len(got[config.EngineModel]) != 1 || what != "Your changelog t" {
		t.Errorf("with a whole restore: %q %+v, want the whole topic's", what, got)
	}
}
