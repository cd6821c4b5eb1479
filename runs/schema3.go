package runs

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/restorebench/restorebench/measure"
)

// upgrade brings r, read from b, a file of schema 1, 2 or 3, to this
// schema: each upgrade in turn from the file's own, the figures schema 4
// moved read once more from b in their flat schema-3 form.
func upgrade(r *Results, b []byte) error {
	var flat struct {
		Restores []schema3Figures `json:"restores"`
	}
	if err := json.Unmarshal(b, &flat); err != nil {
		return fmt.Errorf("schema %d: %w", r.SchemaVersion, err)
	}
	if len(flat.Restores) != len(r.Restores) {
		return fmt.Errorf("schema %d: %d restores read as %d", r.SchemaVersion, len(r.Restores), len(flat.Restores))
	}
	if r.SchemaVersion == 1 {
		if err := upgradeSchema1(r); err != nil {
			return err
		}
	}
	if r.SchemaVersion == 2 {
		if err := upgradeSchema2(r, flat.Restores); err != nil {
			return err
		}
	}
	return upgradeSchema3(r, flat.Restores)
}

// schema3Figures are a record's figures as schemas 1 to 3 wrote them: flat
// fields of the record, zero when not measured. On kafka-streams
// DurationSeconds, LoadSeconds and TotalSeconds were one figure, and
// FinishSeconds, PollWait, BatchWrite, RocksDB and Ready were never
// measured (zero, nil); a standby's following step held the standby's
// applying in the restore figures (its seconds, records a second).
type schema3Figures struct {
	DurationSeconds float64            `json:"duration_seconds"`
	LoadSeconds     float64            `json:"load_seconds"`
	FinishSeconds   float64            `json:"finish_seconds"`
	Ready           *ReadyPhase        `json:"ready"`
	TotalSeconds    float64            `json:"total_seconds"`
	RecordsPerSec   float64            `json:"records_per_sec"`
	MBPerSec        float64            `json:"mb_per_sec"`
	PollWait        measure.Latency    `json:"poll_wait"`
	BatchWrite      measure.Latency    `json:"batch_write"`
	RocksDB         measure.StoreStats `json:"rocksdb"`
	DiskBytes       int64              `json:"disk_bytes"`
	Limits          *Limits            `json:"limits"`
	PeakRSSBytes    int64              `json:"peak_rss_bytes"`
	CPUSeconds      float64            `json:"cpu_seconds"`
}

// restoreFigures are the figures only a restore has, by their JSON name,
// with the most a measurement of each gives: a record measured by its
// gap carries none of them (upgradeSchema2).
func (f *schema3Figures) restoreFigures() []restoreFigure {
	return []restoreFigure{
		{"duration_seconds", &f.DurationSeconds, MaxPlausibleSeconds},
		{"load_seconds", &f.LoadSeconds, MaxPlausibleSeconds},
		{"finish_seconds", &f.FinishSeconds, MaxPlausibleSeconds},
		{"total_seconds", &f.TotalSeconds, MaxPlausibleSeconds},
		{"records_per_sec", &f.RecordsPerSec, MaxPlausibleRecords},
		{"mb_per_sec", &f.MBPerSec, MaxPlausibleBytes / 1e6},
	}
}

// phase is the restore phase the flat figures held; nil when they hold
// none (every figure zero: a restore that failed before it was measured).
func (f *schema3Figures) phase() *RestorePhase {
	total := f.TotalSeconds
	if total == 0 && f.Ready != nil {
		// A total never recorded beside a measured ready phase: the
		// restore and the ready phase, as readers took it.
		total = f.DurationSeconds + f.Ready.Seconds
	}
	p := RestorePhase{Seconds: f.DurationSeconds, TotalSeconds: total, RecordsPerSec: f.RecordsPerSec, MBPerSec: f.MBPerSec,
		CPUSeconds: f.CPUSeconds, PeakRSSBytes: f.PeakRSSBytes, DiskBytes: f.DiskBytes, Limits: f.Limits}
	if reflect.ValueOf(p).IsZero() {
		return nil
	}
	return &p
}

// model is what the model measured, from the flat figures; nil when they
// hold none of it.
func (f *schema3Figures) model() *ModelRun {
	m := ModelRun{LoadSeconds: f.LoadSeconds, FinishSeconds: f.FinishSeconds, PollWait: f.PollWait, BatchWrite: f.BatchWrite,
		RocksDB: f.RocksDB, Ready: f.Ready}
	if reflect.ValueOf(m).IsZero() {
		return nil
	}
	return &m
}

// upgradeSchema3 brings a schema-3 file to schema 4, moving each record's
// flat figures (flat[i] of r.Restores[i]) into the sub-records of their
// meaning, by the record's engine and step:
//
//   - a restore (IsRestore: a cold restore, a warm restart, a compaction's
//     restore, a standby's initial restore) gets its restore phase (Phase)
//     from duration_seconds, total_seconds, the rates, cpu_seconds,
//     peak_rss_bytes, disk_bytes and limits;
//   - a standby's following step gets its applying
//     (StandbyRecord.Following) from duration_seconds and the rates;
//   - a scenario measured by its gap gets neither: schema 3 wrote it none
//     (upgradeSchema2 dropped schema 2's copies), its gap is in its own
//     record;
//   - a record of the model engine gets its Model from load_seconds,
//     finish_seconds, poll_wait, batch_write, rocksdb and ready; one of
//     kafka-streams gets none: its load_seconds was duration_seconds
//     again and the rest were never measured there.
//
// A sub-record whose figures are all zero was not measured, and stays
// absent. A figure a record of its kind cannot hold (a restore phase's on a
// following step's record, a model figure on a kafka-streams record but
// the copied load_seconds) is refused, not dropped unseen.
func upgradeSchema3(r *Results, flat []schema3Figures) error {
	for i := range r.Restores {
		rec, f := &r.Restores[i], &flat[i]
		fail := func(err error) error {
			return fmt.Errorf("restores[%d] (case %q repeat %d): schema 3: %w", i, rec.Case, rec.Repeat, err)
		}
		phase, model := f.phase(), f.model()
		switch kind := rec.StepKind(); {
		case kind.IsRestore():
			rec.Phase = phase
		case rec.Standby != nil:
			if phase != nil && (phase.CPUSeconds != 0 || phase.PeakRSSBytes != 0 || phase.DiskBytes != 0 || phase.Limits != nil) {
				return fail(fmt.Errorf("a standby's %s step carries a restore's cpu_seconds, peak_rss_bytes, disk_bytes or limits", kind))
			}
			if phase != nil {
				rec.Standby.Following = &FollowingPhase{Seconds: f.DurationSeconds, RecordsPerSec: f.RecordsPerSec, MBPerSec: f.MBPerSec}
			}
		case phase != nil:
			return fail(fmt.Errorf("a %s record is measured by its own figure, but carries restore figures", rec.Scenario()))
		}
		if rec.OnKafkaStreams() && model != nil {
			copied := *model
			if copied.LoadSeconds == f.DurationSeconds {
				copied.LoadSeconds = 0
			}
			if !reflect.ValueOf(copied).IsZero() {
				return fail(fmt.Errorf("a kafka-streams record carries figures only the model measures (load_seconds %v, finish_seconds %v, "+
					"poll_wait, batch_write, rocksdb or ready)", f.LoadSeconds, f.FinishSeconds))
			}
			model = nil
		}
		rec.Model = model
	}
	r.SchemaVersion = SchemaVersion
	return nil
}
