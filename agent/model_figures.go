package agent

import (
	"time"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// ModelFigures are what a model restore on an agent measured, as the
// agent's process saw it: when it started, what it read, its restore phase
// (time, CPU, peak RSS, the disk its stores take), what only the model
// measures (phases' split, latencies, RocksDB figures, the ready phase), a
// warm step's figures and the store kind's. Nothing of the record's
// identity (case, step, params, topic), no rates nor limits (the
// coordinator derives the rates and measured the limits) and no verdict:
// the coordinator has those, and only its check of the returned digest
// verifies a restore. TestModelFiguresCoverTheRecord keeps it whole against
// runs.Restore.
type ModelFigures struct {
	StartedAt time.Time           `json:"started_at"`
	Records   int64               `json:"records"`
	Bytes     int64               `json:"bytes"`
	Read      *runs.ChangelogRead `json:"read,omitempty"`
	// Phase is the restore phase without its rates and limits (zero and
	// nil here: Into sets the rates, the coordinator the limits).
	Phase  *runs.RestorePhase `json:"restore,omitempty"`
	Series []measure.Point    `json:"series"`
	Model  *runs.ModelRun     `json:"model,omitempty"`
	Warm   *runs.WarmRecord   `json:"warm,omitempty"`
	Store  *runs.StoreFigures `json:"store,omitempty"`
}

// ModelFiguresOf are the figures of rec, a model restore's record as the
// agent's measurement made it.
func ModelFiguresOf(rec runs.Restore) ModelFigures {
	f := ModelFigures{StartedAt: rec.StartedAt, Records: rec.Records, Bytes: rec.Bytes, Read: rec.Read, Series: rec.Series,
		Model: rec.Model, Warm: rec.Warm, Store: rec.Store}
	if rec.Phase != nil {
		p := *rec.Phase
		p.RecordsPerSec, p.MBPerSec, p.Limits = 0, 0, nil
		f.Phase = &p
	}
	return f
}

// Into is rec, the coordinator's record of the restore, with these
// figures and the rates they give.
func (f ModelFigures) Into(rec runs.Restore) runs.Restore {
	rec.StartedAt, rec.Records, rec.Bytes, rec.Read = f.StartedAt, f.Records, f.Bytes, f.Read
	rec.Series, rec.Model, rec.Warm, rec.Store = f.Series, f.Model, f.Warm, f.Store
	rec.Phase = nil
	if f.Phase != nil {
		p := *f.Phase
		p.RecordsPerSec = runs.PerSec(rec.Records, p.Seconds)
		p.MBPerSec = runs.MBPerSec(rec.Bytes, p.Seconds)
		p.Limits = nil
		rec.Phase = &p
	}
	return rec
}
