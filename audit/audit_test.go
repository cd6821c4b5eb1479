package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/topicshape"
)

// member is a stream thread of process pid holding active and standby
// tasks, having reported offset sums.
func member(pid byte, client string, active, standby []TaskID, sums map[TaskID]int64) Member {
	s := &Subscription{Version: 11, OffsetSums: sums}
	s.ProcessID[15] = pid
	a := &Assignment{Version: 11}
	for _, t := range active {
		a.Active = append(a.Active, t)
	}
	for _, t := range standby {
		a.Standby = append(a.Standby, StandbyTask{Task: t})
	}
	return Member{ClientID: client, Host: "/10.0.0." + string('0'+pid), ProcessID: s.ProcessIDString(), Assignment: a, Subscription: s}
}

func tk(s, p int32) TaskID { return TaskID{Subtopology: s, Partition: p} }

// threeInstances: subtopology 0 stateless, 1 stateful over a changelog of
// 3 partitions (1000, 2000, 3000 records of 10 bytes); process 1 runs two
// threads. Standbys: 1_0 on p2 caught up (lag 100), 1_1 on p3 behind by
// 1500 (past an acceptable.recovery.lag of 1000), 1_2 on p1 with no
// offsets reported.
func threeInstances() *Report {
	sh := &topicshape.Shape{Records: 6000, Bytes: 60000, RecordsPerKey: 2, Tombstones: 60}
	r := &Report{
		Changelogs: []Changelog{{Topic: "app-s-changelog", Partitions: 3, Records: 6000,
			PartitionRecords: []int64{1000, 2000, 3000}, EndOffsets: []int64{1000, 2000, 3000}, Shape: sh}},
		Group: &Group{State: "Stable", Members: []Member{
			member(1, "c1a", []TaskID{tk(0, 0), tk(1, 0)}, []TaskID{tk(1, 2)}, map[TaskID]int64{tk(1, 0): OffsetSumRunning}),
			member(1, "c1b", []TaskID{tk(0, 1)}, nil, map[TaskID]int64{tk(1, 0): OffsetSumRunning}),
			member(2, "c2", []TaskID{tk(1, 1), tk(0, 2)}, []TaskID{tk(1, 0)}, map[TaskID]int64{tk(1, 1): OffsetSumRunning, tk(1, 0): 900}),
			member(3, "c3", []TaskID{tk(1, 2)}, []TaskID{tk(1, 1)}, map[TaskID]int64{tk(1, 2): OffsetSumRunning, tk(1, 1): 500}),
		}},
	}
	return r
}

func TestAnswerPerInstance(t *testing.T) {
	r := threeInstances()
	Answer(r, Options{AcceptableRecoveryLag: 1000})
	if len(r.Instances) != 3 {
		t.Fatalf("%d instances, want 3 (two threads of one process are one)", len(r.Instances))
	}
	p1, p2, p3 := r.Instances[0], r.Instances[1], r.Instances[2]
	if p1.Threads != 2 || !slices.Equal(p1.ClientIDs, []string{"c1a", "c1b"}) {
		t.Errorf("process 1: %d threads, clients %v", p1.Threads, p1.ClientIDs)
	}
	if !slices.Equal(p1.Active, []string{"0_0", "0_1", "1_0"}) || !slices.Equal(p1.Standby, []string{"1_2"}) {
		t.Errorf("process 1: active %v standby %v", p1.Active, p1.Standby)
	}
	if c := r.Changelogs[0]; c.Subtopology == nil || *c.Subtopology != 1 || !strings.Contains(c.MappingNote, "ASSUMED") {
		t.Errorf("mapping %v %q", c.Subtopology, c.MappingNote)
	}
	// State: 10 bytes a record.
	if p1.ActiveStateBytes != 10_000 || p1.ActiveStateRecords != 1000 || p1.StandbyStateBytes != 30_000 {
		t.Errorf("process 1 state: active %v B %d records, standby %v B", p1.ActiveStateBytes, p1.ActiveStateRecords, p1.StandbyStateBytes)
	}
	// Lags: p2's copy of 1_0 is 100 behind (caught up), p3's of 1_1 1500.
	if c := p2.Copies; len(c) != 1 || c[0].Task != "1_0" || c[0].LagRecords == nil || *c[0].LagRecords != 100 || !c[0].CaughtUp {
		t.Errorf("process 2 copies %+v", c)
	}
	if c := p3.Copies; len(c) != 1 || *c[0].LagRecords != 1500 || c[0].CaughtUp {
		t.Errorf("process 3 copies %+v", c)
	}
	if c := p1.Copies; len(c) != 1 || c[0].LagRecords != nil || c[0].CaughtUp {
		t.Errorf("process 1's copy of 1_2 reported no offsets: %+v", c)
	}
	// Losing p1: 1_0 is taken over warm by p2.
	if f := p1.IfItFails; !slices.Equal(f.TakenOverWarm, []string{"1_0"}) || len(f.Restored) != 0 || f.RestoreBytes != 0 {
		t.Errorf("process 1 fails: %+v", f)
	}
	// Losing p2: 1_1 restores p3's lag, 1500 records, 15 kB.
	if f := p2.IfItFails; !slices.Equal(f.Restored, []string{"1_1"}) || f.RestoreRecords != 1500 || f.RestoreBytes != 15_000 || f.ThreadBytes != 15_000 {
		t.Errorf("process 2 fails: %+v", f)
	}
	// Losing p3: 1_2 has no copy with offsets: all 3000 records, cold.
	if f := p3.IfItFails; f.RestoreRecords != 3000 || f.RestoreBytes != 30_000 || f.Total != nil || !strings.Contains(f.Note, "--from") ||
		!strings.Contains(f.Note, "1 task(s) have a standby that reported no offsets") {
		t.Errorf("process 3 fails: %+v", f)
	}
	if r.MostCostly != p3.ProcessID {
		t.Errorf("most costly %s, want process 3 %s", r.MostCostly, p3.ProcessID)
	}
	if !r.DetectionAssumed || r.DetectionSeconds != 45 || !strings.Contains(strings.Join(r.Assumptions, "\n"), "ASSUMED") {
		t.Errorf("detection %v assumed %v: %v", r.DetectionSeconds, r.DetectionAssumed, r.Assumptions)
	}
	if !strings.Contains(r.RateMissing, "--from") {
		t.Errorf("rate missing %q", r.RateMissing)
	}
}

// Restores spread over the survivors' threads largest first: the longest
// thread decides.
func TestAnswerSpreadsOverSurvivingThreads(t *testing.T) {
	r := &Report{
		Changelogs: []Changelog{{Topic: "app-s-changelog", Partitions: 4, Records: 10,
			PartitionRecords: []int64{4, 3, 2, 1}, EndOffsets: []int64{4, 3, 2, 1},
			Shape: &topicshape.Shape{Records: 10, Bytes: 1000}}},
		Group: &Group{Members: []Member{
			member(1, "a", []TaskID{tk(0, 0), tk(0, 1), tk(0, 2), tk(0, 3)}, nil, map[TaskID]int64{tk(0, 0): OffsetSumRunning}),
			member(2, "b1", nil, nil, nil),
			member(2, "b2", nil, nil, nil),
		}},
	}
	Answer(r, Options{})
	f := r.Instances[0].IfItFails
	// 400, 300, 200, 100 bytes over two threads: 400+100 and 300+200.
	if f.RestoreBytes != 1000 || f.ThreadBytes != 500 {
		t.Fatalf("restore %v bytes, largest thread %v: want 1000 and 500", f.RestoreBytes, f.ThreadBytes)
	}
	if f2 := r.Instances[1].IfItFails; f2.RestoreBytes != 0 || len(f2.Restored) != 0 {
		t.Errorf("the idle instance's loss restores %+v", f2)
	}
}

// With measured runs the time is detection and rejoin (session ±
// heartbeat), the handover, and the rate's seconds for the largest
// thread's bytes without the rate's fixed start, each with its interval.
func TestAnswerTimesFromRuns(t *testing.T) {
	rs, err := capacity.LoadRuns([]string{"../testdata/results/capacity"})
	if err != nil {
		t.Fatal(err)
	}
	r := threeInstances()
	Answer(r, Options{Runs: rs, SessionTimeout: 10 * time.Second, HeartbeatInterval: 2 * time.Second, AcceptableRecoveryLag: 1000})
	if r.DetectionAssumed || r.DetectionSeconds != 10 || r.HeartbeatAssumed || r.HeartbeatSeconds != 2 || r.Rate == "" {
		t.Fatalf("detection %v assumed %v heartbeat %v assumed %v rate %q (%s)", r.DetectionSeconds, r.DetectionAssumed,
			r.HeartbeatSeconds, r.HeartbeatAssumed, r.Rate, r.RateMissing)
	}
	f := r.Instances[2].IfItFails
	a := capacity.Analyze(rs, capacity.Options{Deployment: capacity.Deployment{StateBytes: f.RestoreBytes, Partitions: 1,
		Instances: 3, Standbys: 1, BytesPerRecord: 10, RecordsPerKey: 2, TombstoneShare: 0.01}})
	running := *a.Rate
	running.Overhead = 0
	e := running.Seconds(f.ThreadBytes)
	if a.Rate.Overhead <= 0 || e.Value >= a.Rate.Seconds(f.ThreadBytes).Value {
		t.Fatalf("the runs' rate has no fixed start to leave out (overhead %v)", a.Rate.Overhead)
	}
	// Three surviving stream threads (process 1 runs two): the last of
	// three heartbeats is 3/4 of an interval after detection on average.
	d := f.Detection
	if d == nil || d.Lo != 8 || d.Hi != 12 || math.Abs(d.Value-(10-1+2*3.0/4)) > 1e-9 {
		t.Fatalf("detection %+v, want 10 s - 1 s + 3/2 s in 8-12 s", d)
	}
	want := d.Value + Handover.Value + e.Value
	if f.Total == nil || math.Abs(f.Total.Value-want) > 1e-9 ||
		math.Abs(f.Total.Lo-(d.Lo+Handover.Lo+e.Lo)) > 1e-9 || math.Abs(f.Total.Hi-(d.Hi+Handover.Hi+e.Hi)) > 1e-9 {
		t.Fatalf("total %v (%v-%v), want %v", f.Total.Value, f.Total.Lo, f.Total.Hi, want)
	}
	// Losing process 1 restores nothing: detection and handover alone,
	// with or without runs.
	for _, o := range []Options{{Runs: rs, SessionTimeout: 10 * time.Second, HeartbeatInterval: 2 * time.Second}, {SessionTimeout: 10 * time.Second, HeartbeatInterval: 2 * time.Second}} {
		r := threeInstances()
		Answer(r, o)
		f1 := r.Instances[0].IfItFails
		if f1.Total == nil || f1.Total.Value != f1.Detection.Value+Handover.Value || f1.Total.Hi != 12+Handover.Hi {
			t.Errorf("process 1 with %d runs: %+v", len(o.Runs), f1)
		}
	}
}

// Two stateful subtopologies of the changelog's partition count: the
// changelog is attributed to neither, and the report says so.
func TestAnswerAmbiguousMapping(t *testing.T) {
	r := &Report{
		Changelogs: []Changelog{{Topic: "app-s-changelog", Partitions: 1, Records: 5, PartitionRecords: []int64{5}, EndOffsets: []int64{5}}},
		Group: &Group{Members: []Member{
			member(1, "a", []TaskID{tk(0, 0), tk(1, 0)}, nil, map[TaskID]int64{tk(0, 0): OffsetSumRunning, tk(1, 0): OffsetSumRunning}),
		}},
	}
	Answer(r, Options{})
	if c := r.Changelogs[0]; c.Subtopology != nil || !strings.Contains(c.MappingNote, "cannot be told") {
		t.Fatalf("mapping %v %q", c.Subtopology, c.MappingNote)
	}
	if in := r.Instances[0]; in.ActiveStateBytes != 0 || in.IfItFails.Note == "" {
		t.Errorf("unattributed state counted: %+v %+v", in, in.IfItFails)
	}
}

// The JSON document's fields are snake_case; the text names every
// instance, marks the most costly and says what it assumed.
func TestWriteJSONAndText(t *testing.T) {
	r := threeInstances()
	r.Schema, r.Application = Schema, "app"
	Answer(r, Options{AcceptableRecoveryLag: 1000})
	var js, text strings.Builder
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snake.MatchString(k) {
					t.Errorf("JSON field %q is not snake_case", k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, in := range r.Instances {
		if !strings.Contains(out, in.ProcessID) {
			t.Errorf("text names no %s:\n%s", in.ProcessID, out)
		}
	}
	for _, want := range []string{r.MostCostly + " *", "ASSUMED", "1_1 (≤1500)", "times need --from"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// Without standbys or offsets (instances that joined on empty state
// dirs), a changelog APP-S-changelog is attributed to the subtopology
// that reads APP-S-repartition, as the member's assigned partitions
// (sorted by topic and partition, beside its active tasks) say.
func TestMapChangelogByRepartitionTopic(t *testing.T) {
	m := member(1, "c1", []TaskID{tk(0, 0), tk(1, 0)}, nil, nil)
	// Out of order, as the consumer protocol may serialize them.
	if !m.Assignment.SetSources([]TopicPartition{{"app-s-repartition", 0}, {"app-input", 0}}) {
		t.Fatal("SetSources refused two partitions for two tasks")
	}
	if got := m.Assignment.Sources; !slices.Equal(got[tk(0, 0)], []string{"app-input"}) || !slices.Equal(got[tk(1, 0)], []string{"app-s-repartition"}) {
		t.Fatalf("sources %v", got)
	}
	if (&Assignment{Active: []TaskID{tk(0, 0)}}).SetSources(nil) {
		t.Error("SetSources paired 0 partitions with 1 task")
	}
	r := &Report{
		Changelogs: []Changelog{{Topic: "app-s-changelog", Partitions: 1, Records: 5, PartitionRecords: []int64{5}, EndOffsets: []int64{5}}},
		Group:      &Group{Members: []Member{m}},
	}
	Answer(r, Options{})
	if c := r.Changelogs[0]; c.Subtopology == nil || *c.Subtopology != 1 || !strings.Contains(c.MappingNote, "app-s-repartition") {
		t.Fatalf("mapping %v %q", c.Subtopology, c.MappingNote)
	}
	if in := r.Instances[0]; in.ActiveStateRecords != 5 {
		t.Errorf("the changelog's records are not the instance's active state: %+v", in)
	}
}

// Adding one instance is the warmup model run over the application's own
// stateful tasks (their sizes, log starts and current owners), its
// standbys, the fewest threads any instance runs, the write rate seen and
// the --from runs' restore rate at the changelog's shape; without runs
// it says what is missing.
func TestAnswerOneInstanceAdded(t *testing.T) {
	rs, err := capacity.LoadRuns([]string{"../testdata/results/capacity"})
	if err != nil {
		t.Fatal(err)
	}
	r := threeInstances()
	w := 50.0
	r.WriteRecordsPerSecond, r.WriteWindowSeconds = &w, 2
	Answer(r, Options{Runs: rs, SessionTimeout: 10 * time.Second, MaxWarmupReplicas: 1, ProbingInterval: time.Minute})
	so := r.IfOneAdded
	if so == nil || so.Prediction == nil {
		t.Fatalf("no scale-out prediction: %+v", so)
	}
	in := so.Prediction.Inputs
	if in.Before != 3 || in.After != 4 || !slices.Equal(in.TaskOffsets, []int64{1000, 2000, 3000}) ||
		!slices.Equal(in.Initial, []int{0, 1, 2}) || in.Threads != 1 || in.Standbys != 1 || in.WriteRate != 50 ||
		in.MaxWarmupReplicas != 1 || in.ProbingIntervalSeconds != 60 || in.BytesPerOffset != 10 || in.RestoreRate <= 0 {
		t.Errorf("inputs %+v", in)
	}
	if so.Prediction.TotalSeconds <= 0 || !strings.Contains(strings.Join(so.Assumed, "\n"), "1 stream thread(s), the fewest") {
		t.Errorf("prediction %v s, assumed %v", so.Prediction.TotalSeconds, so.Assumed)
	}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil || !strings.Contains(b.String(), "if one instance is added (3 -> 4), PREDICTION") {
		t.Errorf("text lacks the scale-out line: %v\n%s", err, b.String())
	}
	r = threeInstances()
	Answer(r, Options{})
	if so := r.IfOneAdded; so == nil || so.Prediction != nil || !strings.Contains(so.Missing, "--from") {
		t.Errorf("without runs: %+v", so)
	}
}

// sourceTableApp: two instances each running one task of subtopology 0,
// which reads orders-input and reported offsets (it holds state) but
// has no changelog: a builder.table() store under
// topology.optimization=reuse.ktable.source.topics.
func sourceTableApp() *Report {
	r := &Report{Changelogs: []Changelog{}, Group: &Group{State: "Stable"}}
	for i := range int32(2) {
		m := member(byte(i+1), fmt.Sprint("c", i), []TaskID{tk(0, i)}, nil, map[TaskID]int64{tk(0, i): OffsetSumRunning})
		m.Assignment.SetSources([]TopicPartition{{"orders-input", i}})
		r.Group.Members = append(r.Group.Members, m)
	}
	return r
}

// A store logged to its source topic is never "restored nothing": with
// the source topic's size read, its loss restores that topic's partition;
// without, the state and the restore are unknown and there is no time.
func TestAnswerSourceTable(t *testing.T) {
	r := sourceTableApp()
	disk := int64(20_000)
	r.SourceTopics = []Changelog{{Topic: "orders-input", Partitions: 2, Records: 2000, PartitionRecords: []int64{500, 1500},
		EndOffsets: []int64{500, 1500}, DiskBytes: &disk}}
	Answer(r, Options{SessionTimeout: 10 * time.Second, TopologyOptimization: "reuse.ktable.source.topics"})
	f := r.Instances[1].IfItFails
	if !slices.Equal(f.Restored, []string{"0_1"}) || f.RestoreRecords != 1500 || f.RestoreBytes != 15_000 {
		t.Errorf("the loss of the source table's instance restores %+v", f)
	}
	if in := r.Instances[0]; in.ActiveStateRecords != 500 || in.IfRestartedEmpty.RestoredText() == "nothing" {
		t.Errorf("instance 0: %d records, empty disk restores %q", in.ActiveStateRecords, in.IfRestartedEmpty.RestoredText())
	}
	if a := strings.Join(r.Assumptions, "\n"); !strings.Contains(a, "ASSUMED source table of subtopology 0") ||
		!strings.Contains(a, "topology.optimization=reuse.ktable.source.topics") {
		t.Errorf("assumptions %s", a)
	}
	r = sourceTableApp()
	Answer(r, Options{SessionTimeout: 10 * time.Second})
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, in := range r.Instances {
		for _, f := range []*Failure{in.IfItFails, in.IfRestartedEmpty} {
			if len(f.Unknown) != 1 || f.Total != nil || !strings.Contains(f.RestoredText(), "unknown") ||
				!strings.Contains(f.Note, "restores from that topic") {
				t.Errorf("%s: %+v", in.ProcessID, f)
			}
		}
	}
	if r.MostCostly != "" {
		t.Errorf("most costly %s among losses of unknown cost", r.MostCostly)
	}
	if out := b.String(); strings.Contains(out, "  nothing  ") || !strings.Contains(out, "0 B + unknown (0_0)") {
		t.Errorf("the text says nothing is restored, or not that the state is unknown:\n%s", out)
	}
}
