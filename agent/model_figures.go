package agent

import (
	"time"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// ModelFigures are what a model restore on an agent measured, as the
// agent's process saw it: its phases, what it read, its latencies and
// RocksDB figures, its CPU and peak RSS, the disk its stores take, a warm
// step's figures and the store kind's. Nothing of the record's identity
// (case, step, params, topic) and no verdict: the coordinator has those,
// and only its check of the returned digest verifies a restore.
// TestModelFiguresCoverTheRecord keeps it whole against runs.Restore.
type ModelFigures struct {
	StartedAt       time.Time           `json:"started_at"`
	DurationSeconds float64             `json:"duration_seconds"`
	LoadSeconds     float64             `json:"load_seconds"`
	FinishSeconds   float64             `json:"finish_seconds"`
	Ready           *runs.ReadyPhase    `json:"ready,omitempty"`
	TotalSeconds    float64             `json:"total_seconds"`
	Records         int64               `json:"records"`
	Bytes           int64               `json:"bytes"`
	Read            *runs.ChangelogRead `json:"read,omitempty"`
	Series          []measure.Point     `json:"series"`
	PollWait        measure.Latency     `json:"poll_wait"`
	BatchWrite      measure.Latency     `json:"batch_write"`
	RocksDB         measure.StoreStats  `json:"rocksdb"`
	DiskBytes       int64               `json:"disk_bytes"`
	PeakRSSBytes    int64               `json:"peak_rss_bytes"`
	CPUSeconds      float64             `json:"cpu_seconds"`
	Warm            *runs.WarmRecord    `json:"warm,omitempty"`
	Store           *runs.StoreFigures  `json:"store,omitempty"`
}

// ModelFiguresOf are the figures of rec, a model restore's record as the
// agent's measurement made it.
func ModelFiguresOf(rec runs.Restore) ModelFigures {
	return ModelFigures{StartedAt: rec.StartedAt, DurationSeconds: rec.DurationSeconds, LoadSeconds: rec.LoadSeconds,
		FinishSeconds: rec.FinishSeconds, Ready: rec.Ready, TotalSeconds: rec.TotalSeconds, Records: rec.Records, Bytes: rec.Bytes,
		Read: rec.Read, Series: rec.Series, PollWait: rec.PollWait, BatchWrite: rec.BatchWrite, RocksDB: rec.RocksDB,
		DiskBytes: rec.DiskBytes, PeakRSSBytes: rec.PeakRSSBytes, CPUSeconds: rec.CPUSeconds, Warm: rec.Warm, Store: rec.Store}
}

// Into is rec, the coordinator's record of the restore, with these
// figures and the rates they give.
func (f ModelFigures) Into(rec runs.Restore) runs.Restore {
	rec.StartedAt, rec.DurationSeconds, rec.LoadSeconds, rec.FinishSeconds = f.StartedAt, f.DurationSeconds, f.LoadSeconds, f.FinishSeconds
	rec.Ready, rec.TotalSeconds, rec.Records, rec.Bytes, rec.Read = f.Ready, f.TotalSeconds, f.Records, f.Bytes, f.Read
	rec.Series, rec.PollWait, rec.BatchWrite, rec.RocksDB = f.Series, f.PollWait, f.BatchWrite, f.RocksDB
	rec.DiskBytes, rec.PeakRSSBytes, rec.CPUSeconds, rec.Warm, rec.Store = f.DiskBytes, f.PeakRSSBytes, f.CPUSeconds, f.Warm, f.Store
	rec.RecordsPerSec = runs.PerSec(rec.Records, rec.DurationSeconds)
	rec.MBPerSec = runs.MBPerSec(rec.Bytes, rec.DurationSeconds)
	return rec
}
