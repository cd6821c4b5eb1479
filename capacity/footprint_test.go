package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/heapsearch"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
)

// TestDiskAnswerPredictsARunNotFitted: the disk per instance a plan gives
// from the saved capacity run (model engine, 256 MiB–2 GiB changelogs)
// predicts, within ±10%, the stores' size on disk that the saved quick run
// measured (another profile, other value sizes, not among the inputs), for
// a deployment of its shape: its live state over its 4 partitions on one
// instance; and the measured size lies inside the answer's interval.
func TestDiskAnswerPredictsARunNotFitted(t *testing.T) {
	fitted, err := LoadRuns([]string{"../testdata/results/capacity"})
	if err != nil {
		t.Fatal(err)
	}
	held, err := LoadRuns([]string{"../testdata/results/quick"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Observations(held) {
		r := o.Restore
		if r.Params.Threads != 1 || r.Params.BatchRecords != 1000 || r.Phase == nil || r.Phase.DiskBytes <= 0 {
			continue
		}
		a := Analyze(fitted, Options{Deployment: Deployment{LiveBytes: o.LiveBytes, Partitions: r.Partitions, Instances: 1}})
		ans := answerNamed(a, "Disk per instance")
		if ans == nil || ans.Figure == nil {
			t.Fatalf("no disk answer: %+v (unanswered %+v)", a.Answers, a.Unanswered)
		}
		e, measured := *ans.Figure, float64(r.Phase.DiskBytes)
		if off := e.Value/measured - 1; math.Abs(off) > 0.10 {
			t.Errorf("disk of %s #%d: predicted %s, measured %s (%+.1f%%), want within ±10%%", r.Case, r.Repeat, FormatBytes(e.Value), FormatBytes(measured), 100*off)
		}
		if measured < e.Lo || measured > e.Hi {
			t.Errorf("measured %s lies outside the answer's interval %s–%s", FormatBytes(measured), FormatBytes(e.Lo), FormatBytes(e.Hi))
		}
		return
	}
	t.Fatal("the quick run holds no restore of Kafka Streams' default settings with its disk size")
}

// TestDiskAndMemoryLimits: --disk under the estimate's interval is said
// not to fit; a --memory without any kafka-streams memory figures in the
// inputs is a question the plan cannot answer, and without --memory no
// question is missing for it.
func TestDiskAndMemoryLimits(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/capacity"})
	if err != nil {
		t.Fatal(err)
	}
	d := Deployment{StateBytes: 50e9, Partitions: 16, Instances: 4, Standbys: 1, DiskBytes: 1e9}
	a := Analyze(rs, Options{Deployment: d})
	ans := answerNamed(a, "Disk per instance")
	if ans == nil || !strings.Contains(ans.Value, "does NOT fit the 1.00 GB of --disk") || !strings.Contains(strings.Join(ans.Inputs, "\n"), "ASSUMED") {
		t.Errorf("disk answer %+v: want 'does NOT fit' and the live state said to be assumed", ans)
	}
	for _, u := range a.Unanswered {
		if strings.Contains(u.Question, "memory") {
			t.Errorf("memory is unanswered without --memory: %+v", u)
		}
	}
	d.MemoryBytes = 4e9
	a = Analyze(rs, Options{Deployment: d})
	var missing bool
	for _, u := range a.Unanswered {
		missing = missing || strings.Contains(u.Question, "RocksDB memory per instance (--memory)")
	}
	if !missing {
		t.Errorf("--memory with no memory figures in the inputs: unanswered %+v", a.Unanswered)
	}
}

// answerNamed is the first answer whose question starts with q.
func answerNamed(a *Analysis, q string) *Answer {
	for i := range a.Answers {
		if strings.HasPrefix(a.Answers[i].Question, q) {
			return &a.Answers[i]
		}
	}
	return nil
}

// TestMemoryAnswerPredictsARestoreNotFitted: on the saved shape sweep
// (Kafka Streams 4.4, its RocksDB memory metrics recorded), the RocksDB
// memory per instance a plan gives from every shape but one predicts the
// recorded peak of a restore of the shape left out within ±20%, for a
// deployment of that restore's 4 stores on one instance.
func TestMemoryAnswerPredictsARestoreNotFitted(t *testing.T) {
	all, err := LoadRuns([]string{"../testdata/results/shapes"})
	if err != nil {
		t.Fatal(err)
	}
	const heldOut = "kafka-streams@v512-r1-400k"
	run := *all[0]
	res := *run.Results
	res.Restores = nil
	var held []*Obs
	for _, o := range Observations(all) {
		if o.Restore.Case == heldOut {
			o := o
			held = append(held, &o)
			continue
		}
		res.Restores = append(res.Restores, *o.Restore)
	}
	run.Results = &res
	if len(held) == 0 {
		t.Fatalf("the saved shape sweep holds no restore %s", heldOut)
	}
	a := Analyze([]*Run{&run}, Options{Deployment: Deployment{StateBytes: 211e6, Partitions: 4, Instances: 1}})
	ans := answerNamed(a, "RocksDB memory per instance")
	if ans == nil || ans.Figure == nil {
		t.Fatalf("no memory answer (unanswered %+v)", a.Unanswered)
	}
	for _, o := range held {
		p := o.Restore.KafkaStreams.RocksDBMemory.Peak
		measured := float64(p.MemTablesBytes + p.BlockCacheUsageBytes + p.TableReadersBytes)
		if off := ans.Figure.Value/measured - 1; math.Abs(off) > 0.20 {
			t.Errorf("%s #%d: predicted %s, recorded peak %s (%+.0f%%), want within ±20%%", heldOut, o.Restore.Repeat,
				FormatBytes(ans.Figure.Value), FormatBytes(measured), 100*off)
		}
	}
}

// TestDiskNeedsAReadyPhase: a restore measured without its ready phase
// (the shape sweep's) took its stores' size with records still in
// memtables, and gives no disk figure.
func TestDiskNeedsAReadyPhase(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/shapes"})
	if err != nil {
		t.Fatal(err)
	}
	if f := footprintOf(Observations(rs), ""); f.Disk.N != 0 || f.Memory.N == 0 {
		t.Errorf("footprint of the shape sweep: %d disk figures (want none: no ready phase), %d memory figures (want some)", f.Disk.N, f.Memory.N)
	}
}

// TestHeapAnswerFromASearch: --heap's search becomes the JVM heap answer:
// the smallest heap that verified, above the largest that ran out of
// memory, with the search's case and records; an inconclusive search is
// said as such, with no figure.
func TestHeapAnswerFromASearch(t *testing.T) {
	h := &heapsearch.Result{Schema: heapsearch.Schema, Profile: "heap-10000", Case: "standby", Records: "values of 10000 B, max.poll.records 1000",
		Steps: make([]heapsearch.Step, 9), SmallestVerifiedBytes: 78 * heapsearch.MiB, LargestOutOfMemoryBytes: 70 * heapsearch.MiB}
	a := heapAnswer(h)
	if a.ID != "jvm_heap_per_instance" || a.Value != "at least 78 MiB (verified); 70 MiB ran out of memory" || a.Figure == nil ||
		a.Figure.Lo != 70*heapsearch.MiB || a.Figure.Value != 78*heapsearch.MiB || !strings.Contains(a.Inputs[0], "values of 10000 B") {
		t.Errorf("%+v", a)
	}
	h.Inconclusive, h.Answer = true, "inconclusive: it ran out of memory even with 1024 MiB (--high)"
	if a := heapAnswer(h); a.Figure != nil || a.Value != h.Answer {
		t.Errorf("inconclusive: %+v", a)
	}
}

// TestMemoryAnswerGrowsWithTheStore: the RocksDB memory a store takes is
// priced at the deployment's task size, not at the measured stores' size:
// a task twice the largest store measured takes more and says how far it
// extrapolates; one 100× larger is inconclusive against --memory; one no
// larger than the stores measured gets their figure.
func TestMemoryAnswerGrowsWithTheStore(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/shapes"})
	if err != nil {
		t.Fatal(err)
	}
	f := footprintOf(Observations(rs), "")
	var largest float64
	for _, m := range f.StoreMemory {
		largest = max(largest, m.liveBytes)
	}
	if largest == 0 {
		t.Fatal("the saved shape sweep has no store memory figures")
	}
	answer := func(taskLive float64) *Answer {
		t.Helper()
		d := Deployment{LiveBytes: 4 * taskLive, Partitions: 4, Instances: 1, MemoryBytes: 64e9}
		ans := answerNamed(Analyze(rs, Options{Deployment: d}), "RocksDB memory per instance")
		if ans == nil || ans.Figure == nil {
			t.Fatalf("no memory answer for a task of %s", FormatBytes(taskLive))
		}
		return ans
	}
	small, twice, huge := answer(1e6), answer(2*largest), answer(100*largest)
	if small.Extrapolated || small.Figure.Value < 4*f.Memory.Min || small.Figure.Value > 4*f.Memory.Max {
		t.Errorf("a task of 1 MB: %s (extrapolated %v), want 4 stores as measured (%s–%s a store)", small.Value, small.Extrapolated,
			FormatBytes(f.Memory.Min), FormatBytes(f.Memory.Max))
	}
	if !twice.Extrapolated || twice.Figure.Value <= small.Figure.Value || !strings.Contains(strings.Join(twice.Inputs, "\n"), "2.0× the largest store measured") {
		t.Errorf("a task twice the largest store: %s, inputs %q; want more than %s, said to be 2.0× the largest store measured",
			twice.Value, twice.Inputs, small.Value)
	}
	if !strings.Contains(huge.Value, "INCONCLUSIVE") {
		t.Errorf("a task 100× the largest store measured: %s, want INCONCLUSIVE against --memory", huge.Value)
	}
}

// A changelog read through a sample of its partitions speaks for those
// alone: the plan says so, and prices the live state of the whole topic
// (the memory a store takes) in proportion to the sample's size, not as
// if the sample were the topic.
func TestSampledReadIsScaledToTheTopic(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/shapes"})
	if err != nil {
		t.Fatal(err)
	}
	read := &topicshape.Shape{Topic: "t", Partitions: 4, ReadPartitions: []int32{0}, Offsets: 1e6, Records: 1e6, Bytes: 2e8,
		LiveKeys: 5e5, LiveBytes: 1e8, RecordsPerKey: 2}
	s := &Sample{Topic: "t", Sampled: []int32{0}, SizeSource: "log segments",
		Tasks: []TaskSize{{0, 100, 0}, {1, 100, 0}, {2, 100, 0}, {3, 100, 0}}}
	a := Analyze(rs, Options{Sample: s, Deployment: Deployment{Changelog: read, StateBytes: 8e8, Partitions: 4, Instances: 1}})
	if ch := answerNamed(a, "Your changelog"); ch == nil || !strings.Contains(ch.Value, "over the 1 partition sampled (0) of its 4") {
		t.Errorf("changelog answer %+v, want it to say the figures are the sampled partition's", ch)
	}
	mem := answerNamed(a, "RocksDB memory per instance")
	if mem == nil || !strings.Contains(strings.Join(mem.Inputs, "\n"), "live state 400 MB (the read of topic t's sampled partitions, 100 MB, scaled by their 25%") {
		t.Errorf("memory answer %+v, want the live state scaled from the sample to the topic", mem)
	}
}

// A sampled restore's RocksDB memory is its sampled stores': the copy
// topic opens a store for each of its partitions and only the sampled
// ones hold records, so the memory is not divided among the empty ones.
func TestSampledStoreMemoryIsTheSampledStores(t *testing.T) {
	r := &runs.Restore{Params: config.DefaultCase(), RestoredPartitions: []int32{3}, Verified: true,
		KafkaStreams: &runs.KafkaStreamsRun{RocksDBMemory: &runs.RocksDBMemory{Peak: ksdriver.RocksMemory{Stores: 8,
			MemTablesBytes: 16e6, TableReadersBytes: 8e5, BlockCacheUsageBytes: 1e6}}}}
	f := footprintOf([]Obs{{Restore: r, ChangelogBytes: 4e8, LiveBytes: 1e8}}, "")
	if len(f.StoreMemory) != 1 {
		t.Fatalf("%d store memory figures, want 1", len(f.StoreMemory))
	}
	if m := f.StoreMemory[0]; m.memtables != 16e6 || m.tableReaders != 8e5 || m.liveBytes != 1e8 {
		t.Errorf("the sampled store: %+v, want all of the 8 stores' memory and live bytes in the one sampled", m)
	}
}
