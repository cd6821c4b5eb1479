package capacity

import (
	"math"
	"reflect"
	"testing"

	"github.com/restorebench/restorebench/compare"
)

// The sample spans the partitions' sizes: the largest, the smallest, then
// ranks between; every partition when n is at least their count.
func TestChooseSampleSpansTheSizes(t *testing.T) {
	tasks := []TaskSize{{0, 50}, {1, 90}, {2, 10}, {3, 70}, {4, 30}}
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
	s := &Sample{Tasks: []TaskSize{{0, 100}, {1, 200}, {2, 150}, {3, 400}}}
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

// An instance composed through a measured composition takes the sum of
// its tasks less the saving measured at its task count, never less than
// its slowest task; with no composition it is the plain sum, said
// unverified; past the task counts measured it extrapolates.
func TestComposeInstance(t *testing.T) {
	times := []TaskTime{{Partition: 0, Estimate: measured(10, 9, 11)}, {Partition: 1, Estimate: measured(10, 9, 11)},
		{Partition: 2, Estimate: measured(10, 9, 11)}, {Partition: 3, Estimate: measured(10, 9, 11)}}
	c := &Composition{Threads: 1, Single: compare.Stat{N: 3, Median: 1, Min: 0.9, Max: 1.1}, MaxTasks: 4,
		Savings: []ComposePoint{{Tasks: 2, Stat: compare.Stat{N: 3, Median: 0.4, Min: 0.3, Max: 0.5}},
			{Tasks: 4, Stat: compare.Stat{N: 3, Median: 0.2, Min: 0.1, Max: 0.3}}}}
	got := composeInstance(times, 4, 1, c)
	if math.Abs(got.Value-39.4) > 1e-9 || got.Extrapolated || got.Unverified != "" {
		t.Errorf("4 tasks of 10 s saving 0.2 s each beyond the first: %+v, want 40 − 3 × 0.2 = 39.4 s, measured", got)
	}
	if math.Abs(got.Lo-(36-0.9)) > 1e-9 || math.Abs(got.Hi-(44-0.3)) > 1e-9 {
		t.Errorf("interval %v–%v, want the tasks' ranges less the saving's: 35.1–43.7", got.Lo, got.Hi)
	}
	if mid := composeInstance(times, 3, 1, c); math.Abs(mid.Value-(30-2*0.3)) > 1e-9 {
		t.Errorf("3 tasks, between the counts measured: %v, want the saving interpolated (0.3 s): 29.4 s", mid.Value)
	}
	plain := composeInstance(times, 4, 1, nil)
	if plain.Value != 40 || plain.Unverified == "" {
		t.Errorf("without a composition: %+v, want the sum 40 s, said unverified", plain)
	}
	c.MaxTasks = 2
	if got := composeInstance(times, 4, 1, c); !got.Extrapolated || got.Beyond != 2 {
		t.Errorf("4 tasks, composition measured to 2: %+v, want 2× beyond", got)
	}
	big := &Composition{Threads: 1, MaxTasks: 4, Savings: []ComposePoint{{Tasks: 4, Stat: compare.Stat{Median: 20, Min: 20, Max: 20}}}}
	if got := composeInstance(times, 4, 1, big); got.Value != 10 {
		t.Errorf("a saving larger than the tasks: %v, want the slowest task alone (10 s), never less", got.Value)
	}
}
