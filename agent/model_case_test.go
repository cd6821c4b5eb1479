package agent

import (
	"reflect"
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
	ct, mt := reflect.TypeOf(config.Case{}), reflect.TypeOf(ModelCase{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		m, ok := mt.FieldByName(f.Name)
		switch {
		case notTheEngines[f.Name] && ok:
			t.Errorf("config.Case.%s is listed as not the engine's, but ModelCase carries it", f.Name)
		case notTheEngines[f.Name]:
		case !ok:
			t.Errorf("config.Case.%s is neither in ModelCase nor listed as not the model engine's", f.Name)
		case m.Type != f.Type:
			t.Errorf("ModelCase.%s is a %s, config.Case's a %s", f.Name, m.Type, f.Type)
		case f.Name != "Name" && m.Tag.Get("json") != f.Tag.Get("json"):
			t.Errorf("ModelCase.%s's JSON name is %q, config.Case's %q", f.Name, m.Tag.Get("json"), f.Tag.Get("json"))
		}
	}
	if mt.NumField() != ct.NumField()-len(notTheEngines) {
		t.Errorf("ModelCase has %d fields, config.Case %d of which %d are not the engine's", mt.NumField(), ct.NumField(), len(notTheEngines))
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
// does not send: the record's identity, its verdict, the rates the
// figures give, the limits measured here and the other scenarios' and
// engines' records.
var theCoordinators = map[string]bool{
	"Case": true, "Step": true, "Repeat": true, "Params": true, "Topic": true, "Partitions": true,
	"RecordsPerSec": true, "MBPerSec": true, "Limits": true, "Verified": true, "Verification": true, "Error": true,
	"Standby": true, "Failover": true, "ScaleOut": true, "Rolling": true, "Compaction": true, "Queries": true,
	"KafkaStreams": true, "OnAgent": true,
}

// TestModelFiguresCoverTheRecord: every field of runs.Restore is either
// one of ModelFigures, under the same JSON name and type, or listed as
// the coordinator's; a field added to the record fails here until it is
// one or the other.
func TestModelFiguresCoverTheRecord(t *testing.T) {
	rt, ft := reflect.TypeOf(runs.Restore{}), reflect.TypeOf(ModelFigures{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		m, ok := ft.FieldByName(f.Name)
		switch {
		case theCoordinators[f.Name] && ok:
			t.Errorf("runs.Restore.%s is listed as the coordinator's, but ModelFigures carries it", f.Name)
		case theCoordinators[f.Name]:
		case !ok:
			t.Errorf("runs.Restore.%s is neither in ModelFigures nor listed as the coordinator's", f.Name)
		case m.Type != f.Type || m.Tag.Get("json") != f.Tag.Get("json"):
			t.Errorf("ModelFigures.%s is %s %q, runs.Restore's %s %q", f.Name, m.Type, m.Tag.Get("json"), f.Type, f.Tag.Get("json"))
		}
	}
	if ft.NumField() != rt.NumField()-len(theCoordinators) {
		t.Errorf("ModelFigures has %d fields, runs.Restore %d of which %d are the coordinator's", ft.NumField(), rt.NumField(), len(theCoordinators))
	}
}

// TestModelFiguresReachTheRecord: every figure the agent measured lands
// in the coordinator's record, which keeps its own identity and gets the
// rates the figures give.
func TestModelFiguresReachTheRecord(t *testing.T) {
	agentRec := runs.Restore{StartedAt: time.Unix(100, 0).UTC(), DurationSeconds: 2, LoadSeconds: 1.5, FinishSeconds: 0.5,
		Ready: &runs.ReadyPhase{Seconds: 0.1}, TotalSeconds: 2.1, Records: 1000, Bytes: 4e6, Read: &runs.ChangelogRead{IsolationLevel: "read_committed"},
		Series: []measure.Point{{T: 1, Records: 500}}, PollWait: measure.Latency{Count: 3}, BatchWrite: measure.Latency{Count: 4},
		RocksDB: measure.StoreStats{L0Files: 2}, DiskBytes: 5, PeakRSSBytes: 6, CPUSeconds: 7,
		Warm: &runs.WarmRecord{Changed: 8}, Store: &runs.StoreFigures{RecordsKept: 9}}
	f := ModelFiguresOf(agentRec)
	fv := reflect.ValueOf(f)
	for i := range fv.NumField() {
		if fv.Field(i).IsZero() {
			t.Errorf("the test leaves ModelFigures.%s at its zero value: set it, so its carrying is checked", fv.Type().Field(i).Name)
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
	if got.RecordsPerSec != 500 || got.MBPerSec != runs.MBPerSec(4e6, 2) {
		t.Fatalf("rates %v records/s, %v MB/s; want 500 and %v", got.RecordsPerSec, got.MBPerSec, runs.MBPerSec(4e6, 2))
	}
}
