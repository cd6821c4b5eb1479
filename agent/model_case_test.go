package agent

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// notTheEngines are config.Case's fields a model restore on an agent is
// not told: the scenario around it (a warm restart is the command's
// Warm), the query load (refused on agents) and the JVM's settings.
var notTheEngines = map[string]bool{
	"Engine": true, "Scenario": true, "Queries": true, "KafkaStreamsVersion": true, "JVMHeap": true, "JVMFlags": true,
	"KafkaStreamsMetrics": true, "Warm": true, "Standby": true, "Failover": true, "ScaleOut": true, "Rolling": true,
	"Compaction": true,
}

// TestModelCaseCoversTheEngine: every field of config.Case is either in
// ModelCase, under the same JSON name (so the payload reads as the
// results' params), or listed as not the model engine's; a field added
// to config.Case fails here until it is one or the other.
func TestModelCaseCoversTheEngine(t *testing.T) {
	checkMirror(t, reflect.TypeOf(config.Case{}), reflect.TypeOf(ModelCase{}), notTheEngines, "not the model engine's", "Name")
}

// checkMirror checks that payload mirrors src: every field of src is in
// payload, of the same type and JSON name (but for the fields named in
// freeTag, whose JSON names may differ), or listed in left (as why); none
// is both.
func checkMirror(t *testing.T, src, payload reflect.Type, left map[string]bool, why string, freeTag ...string) {
	t.Helper()
	for i := range src.NumField() {
		f := src.Field(i)
		m, ok := payload.FieldByName(f.Name)
		free := slices.Contains(freeTag, f.Name)
		switch {
		case left[f.Name] && ok:
			t.Errorf("%s.%s is listed as %s, but %s carries it", src, f.Name, why, payload)
		case left[f.Name]:
		case !ok:
			t.Errorf("%s.%s is neither in %s nor listed as %s", src, f.Name, payload, why)
		case m.Type != f.Type || !free && m.Tag.Get("json") != f.Tag.Get("json"):
			t.Errorf("%s.%s is %s %q, %s's %s %q", payload, f.Name, m.Type, m.Tag.Get("json"), src, f.Type, f.Tag.Get("json"))
		}
	}
	if payload.NumField() != src.NumField()-len(left) {
		t.Errorf("%s has %d fields, %s %d of which %d are %s", payload, payload.NumField(), src, src.NumField(), len(left), why)
	}
}

// TestModelCaseCarriesEverySetting: a case with every engine setting set
// away from its default reaches the agent whole, and what the agent runs
// is a valid model case.
func TestModelCaseCarriesEverySetting(t *testing.T) {
	c := config.DefaultCase()
	c.Name, c.Strategy, c.Store, c.StoreKind = "w", config.StrategyPut, config.StoreRocksDB, config.StoreWindow
	c.Retention, c.SegmentInterval, c.ReadExpired = config.Duration(time.Hour), config.Duration(time.Minute), true
	c.BatchRecords, c.Threads, c.FetchMaxBytes, c.MaxPartitionFetchBytes, c.SortBuffer = 777, 3, 9<<20, 2<<20, 32<<20
	c.RocksDBPreset, c.Streams = "kstreams", map[string]string{"processing.guarantee": "exactly_once_v2"}
	c.RocksDB.WriteBufferSize = 8 << 20
	m := ModelCaseOf(c)
	got := m.Case()
	if err := got.Validate(); err != nil {
		t.Fatalf("the agent's case does not validate: %v", err)
	}
	if back := ModelCaseOf(got); !reflect.DeepEqual(back, m) {
		t.Fatalf("a setting was lost on the way:\n sent %+v\n  ran %+v", m, back)
	}
	mv := reflect.ValueOf(m)
	for i := range mv.NumField() {
		if mv.Field(i).IsZero() {
			t.Errorf("the test leaves ModelCase.%s at its zero value: set it, so its carrying is checked", mv.Type().Field(i).Name)
		}
	}
}

// theCoordinators are runs.Restore's fields a model restore on an agent
// does not send: the record's identity, its verdict and the other
// scenarios' and engines' records.
var theCoordinators = map[string]bool{
	"Case": true, "Step": true, "Repeat": true, "Params": true, "Topic": true, "Partitions": true, "RestoredPartitions": true, "SampleCopy": true,
	"Verified": true, "Verification": true, "Error": true,
	"Standby": true, "Failover": true, "ScaleOut": true, "Rolling": true, "Compaction": true, "Queries": true,
	"KafkaStreams": true, "OnAgent": true,
}

// theCoordinatorsInThePhase are runs.RestorePhase's fields the agent's
// restore phase leaves out: the rates its figures give (Into derives
// them) and the limits measured on the coordinator's side.
var theCoordinatorsInThePhase = map[string]bool{"RecordsPerSec": true, "MBPerSec": true, "Limits": true}

// TestModelFiguresCoverTheRecord: every field of runs.Restore is either
// one of ModelFigures, under the same JSON name and type, or listed as
// the coordinator's; a field added to the record fails here until it is
// one or the other.
func TestModelFiguresCoverTheRecord(t *testing.T) {
	checkMirror(t, reflect.TypeOf(runs.Restore{}), reflect.TypeOf(ModelFigures{}), theCoordinators, "the coordinator's")
}

// TestModelFiguresReachTheRecord: every figure the agent measured lands
// in the coordinator's record, which keeps its own identity and gets the
// rates the figures give; of the restore phase, every field but the
// coordinator's (theCoordinatorsInThePhase) is carried, and those are
// derived or left to the coordinator, never the agent's.
func TestModelFiguresReachTheRecord(t *testing.T) {
	phase := &runs.RestorePhase{Seconds: 2, TotalSeconds: 2.1, RecordsPerSec: 1, MBPerSec: 1, CPUSeconds: 7, PeakRSSBytes: 6, DiskBytes: 5,
		Limits: &runs.Limits{Runs: 1}}
	pv := reflect.ValueOf(*phase)
	for i := range pv.NumField() {
		if pv.Field(i).IsZero() {
			t.Errorf("the test leaves RestorePhase.%s at its zero value: set it, so its carrying is checked", pv.Type().Field(i).Name)
		}
	}
	agentRec := runs.Restore{StartedAt: time.Unix(100, 0).UTC(), Records: 1000, Bytes: 4e6, Read: &runs.ChangelogRead{IsolationLevel: "read_committed"},
		Phase: phase, Series: []measure.Point{{T: 1, Records: 500}},
		Model: &runs.ModelRun{LoadSeconds: 1.5, FinishSeconds: 0.5, PollWait: measure.Latency{Count: 3}, BatchWrite: measure.Latency{Count: 4},
			RocksDB: measure.StoreStats{L0Files: 2}, Ready: &runs.ReadyPhase{Seconds: 0.1}},
		Warm: &runs.WarmRecord{Changed: 8}, Store: &runs.StoreFigures{RecordsKept: 9}}
	f := ModelFiguresOf(agentRec)
	fv := reflect.ValueOf(f)
	for i := range fv.NumField() {
		if fv.Field(i).IsZero() {
			t.Errorf("the test leaves ModelFigures.%s at its zero value: set it, so its carrying is checked", fv.Type().Field(i).Name)
		}
	}
	sent := reflect.ValueOf(*f.Phase)
	for i := range sent.NumField() {
		name := sent.Type().Field(i).Name
		if carried := !sent.Field(i).IsZero(); carried == theCoordinatorsInThePhase[name] {
			t.Errorf("RestorePhase.%s: sent %v, but it is listed as the coordinator's: %v", name, sent.Field(i), theCoordinatorsInThePhase[name])
		}
	}
	mine := runs.Restore{Case: "c", Repeat: 2, Topic: "t", Partitions: 3}
	got := f.Into(mine)
	if got.Case != "c" || got.Repeat != 2 || got.Topic != "t" || got.Partitions != 3 || got.Verified || got.Error != "" {
		t.Fatalf("the coordinator's identity was not kept: %+v", got)
	}
	if !reflect.DeepEqual(ModelFiguresOf(got), f) {
		t.Fatalf("a figure was lost:\n sent %+v\n  got %+v", f, ModelFiguresOf(got))
	}
	if got.Phase.RecordsPerSec != 500 || got.Phase.MBPerSec != runs.MBPerSec(4e6, 2) || got.Phase.Limits != nil {
		t.Fatalf("rates %v records/s, %v MB/s, limits %v; want 500, %v and none", got.Phase.RecordsPerSec, got.Phase.MBPerSec,
			got.Phase.Limits, runs.MBPerSec(4e6, 2))
	}
}
