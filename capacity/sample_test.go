package capacity

import (
	"math"
	"reflect"
	"testing"
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

// An instance composed through a measured composition takes the shared
// start-up once; with no composition it is the plain sum, said unverified;
// past the task counts measured it extrapolates.
func TestComposeInstance(t *testing.T) {
	times := []TaskTime{{Partition: 0, Estimate: measured(10, 9, 11)}, {Partition: 1, Estimate: measured(10, 9, 11)},
		{Partition: 2, Estimate: measured(10, 9, 11)}, {Partition: 3, Estimate: measured(10, 9, 11)}}
	one := &Composition{Threads: 1, Shared: 2, PerTask: 8, MaxTasks: 4, ErrLo: -0.05, ErrHi: 0.05}
	got := composeInstance(times, 4, 1, one, one)
	if math.Abs(got.Value-34) > 1e-9 || got.Extrapolated || got.Unverified != "" {
		t.Errorf("4 tasks of 10 s sharing 2 s: %+v, want 2 + 4 × 8 = 34 s, measured", got)
	}
	if got.Lo >= got.Value || got.Hi <= got.Value {
		t.Errorf("interval %v–%v does not hold %v", got.Lo, got.Hi, got.Value)
	}
	plain := composeInstance(times, 4, 1, nil, nil)
	if plain.Value != 40 || plain.Unverified == "" {
		t.Errorf("without a composition: %+v, want the sum 40 s, said unverified", plain)
	}
	two := &Composition{Threads: 2, Shared: 3, PerTask: 4.4, MaxTasks: 2}
	got = composeInstance(times, 4, 2, two, one)
	if want := 3 + 4.4/8*(40-4*2); math.Abs(got.Value-want) > 1e-9 || !got.Extrapolated || got.Beyond != 2 {
		t.Errorf("4 tasks on 2 threads measured to 2 tasks: %+v, want %v, 2× beyond", got, want)
	}
}
