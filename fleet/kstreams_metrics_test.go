package fleet

import (
	"testing"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

func sample(monoNs int64, values ...ksdriver.MetricValue) *ksdriver.Metrics {
	return &ksdriver.Metrics{Meta: ksdriver.Meta{Ev: ksdriver.EvMetrics, MonoNs: monoNs}, RecordingLevel: "DEBUG",
		RecordingLevelSet: true, SampleWindowMs: 30000, NumSamples: 2, Metrics: values}
}

func value(group, name, task string, v float64) ksdriver.MetricValue {
	tags := map[string]string{"thread-id": "a-1"}
	if task != "" {
		tags["task-id"] = task
	}
	return ksdriver.MetricValue{Group: group, Name: name, Tags: tags, Value: &v}
}

// TestFoldMetricsKeepsTheRestore: the record's series run from the last
// sample before the first restore_start to the first after the last
// restore_end, timed from the restore's start, one series per metric and
// tag set; the header and the offsets spanned come along.
func TestFoldMetricsKeepsTheRestore(t *testing.T) {
	const s = int64(1e9)
	var r ksdriver.Restores
	sp := func(p int32) ksdriver.StorePartition {
		return ksdriver.StorePartition{Store: "st", Topic: "app-st-changelog", Partition: p}
	}
	r.Add(&ksdriver.RestoreStart{Meta: ksdriver.Meta{MonoNs: 10 * s}, StorePartition: sp(0), StartOffset: 0, EndOffset: 600})
	r.Add(&ksdriver.RestoreStart{Meta: ksdriver.Meta{MonoNs: 10 * s}, StorePartition: sp(1), StartOffset: 100, EndOffset: 500})
	r.Add(&ksdriver.RestoreEnd{Meta: ksdriver.Meta{MonoNs: 13 * s}, StorePartition: sp(0), Restored: 600})
	r.Add(&ksdriver.RestoreEnd{Meta: ksdriver.Meta{MonoNs: 13 * s}, StorePartition: sp(1), Restored: 400})
	g, task := ksdriver.MetricGroupStateUpdater, ksdriver.MetricGroupTask
	samples := []*ksdriver.Metrics{
		sample(8*s, value(g, ksdriver.MetricRestoreRecordsRate, "", 0)), // before the one kept
		sample(9*s, value(g, ksdriver.MetricRestoreRecordsRate, "", 0)),
		sample(11*s, value(g, ksdriver.MetricRestoreRecordsRate, "", 100), value(task, ksdriver.MetricRestoreTotal, "0_1", 20), value(task, ksdriver.MetricRestoreTotal, "0_0", 80)),
		sample(14*s, value(g, ksdriver.MetricRestoreRecordsRate, "", 50), value(task, ksdriver.MetricRestoreTotal, "0_0", 600), value(task, ksdriver.MetricRestoreTotal, "0_1", 400)),
		sample(15*s, value(g, ksdriver.MetricRestoreRecordsRate, "", 40)), // after the one kept
	}
	m := foldMetrics(samples, &r, 10*s, 13*s)
	if m == nil {
		t.Fatal("no metrics")
	}
	if m.RecordingLevel != "DEBUG" || !m.RecordingLevelSet || m.SampleWindowMs != 30000 || m.NumSamples != 2 || m.OffsetsSpanned != 1000 {
		t.Errorf("header: %+v", m)
	}
	if len(m.Series) != 3 {
		t.Fatalf("%d series, want 3 (the rate, and restore-total of two tasks): %+v", len(m.Series), m.Series)
	}
	rate := m.Series[0]
	if rate.Name != ksdriver.MetricRestoreRecordsRate || len(rate.Points) != 3 || rate.Points[0].T != -1 || rate.Points[2].T != 4 || *rate.Points[1].Value != 100 {
		t.Errorf("restore-records-rate: %+v", rate)
	}
	if m.Series[1].Tags["task-id"] != "0_0" || m.Series[2].Tags["task-id"] != "0_1" {
		t.Errorf("series not in tag order: %+v", m.Series)
	}
	total := m.Total(runs.MetricGroupTask, runs.MetricRestoreTotal)
	if len(total) != 2 || total[1].Value != 1000 || total[1].N != 2 {
		t.Errorf("restore-total summed over the tasks: %+v", total)
	}
	if m.IntervalSeconds != 1.5 { // gaps 1, 2, 3, 1 s: median 1.5
		t.Errorf("interval %v s", m.IntervalSeconds)
	}
	if m.Restored != nil {
		t.Errorf("a finer count of ours beside a 30 s window: %+v", m.Restored)
	}
	for _, x := range samples {
		x.SampleWindowMs = 1000
	}
	r.Add(&ksdriver.RestoreBatch{Meta: ksdriver.Meta{MonoNs: 10*s + s/2}, StorePartition: sp(0), Records: 600})
	r.Add(&ksdriver.RestoreBatch{Meta: ksdriver.Meta{MonoNs: 12 * s}, StorePartition: sp(1), Records: 400})
	short := foldMetrics(samples, &r, 10*s, 13*s)
	if short.RestoredEverySeconds != 0.1 || len(short.Restored) != 30 || short.Restored[5].Records != 600 || short.Restored[20].Records != 400 {
		t.Errorf("with a 1 s window, restorebench's count every 0.1 s: every %v s, %+v", short.RestoredEverySeconds, short.Restored)
	}
	if foldMetrics(nil, &r, 10*s, 13*s) != nil {
		t.Error("metrics without samples")
	}
}
