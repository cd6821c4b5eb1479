package runs

import "github.com/restorebench/restorebench/config"

// StoreFigures is what a restore of a store kind beyond key-value did with
// its records: for a window store, the records kept and dropped as
// expired and the segments opened, dropped and left.
type StoreFigures struct {
	// Kind is the store kind restored (Params.StoreKind).
	Kind config.StoreKind `json:"kind"`
	// RecordsKept are the records the store holds at the end (written to
	// a segment still open); RecordsExpired those it does not: dropped on
	// arrival because their window's segment had expired
	// (RecordsSkipped, out of order by more than the retention), or
	// deleted with a segment that expired later. Records = kept + expired.
	RecordsKept    int64 `json:"records_kept"`
	RecordsExpired int64 `json:"records_expired"`
	RecordsSkipped int64 `json:"records_skipped"`
	// SegmentsOpened counts the window segments the restore created,
	// SegmentsDropped those it deleted as stream time passed them, and
	// Segments those open at the end, over all tasks.
	SegmentsOpened  int64 `json:"segments_opened,omitempty"`
	SegmentsDropped int64 `json:"segments_dropped,omitempty"`
	Segments        int   `json:"segments,omitempty"`
	// RetentionSeconds and SegmentIntervalSeconds are the window store's
	// retention and segment interval.
	RetentionSeconds       float64 `json:"retention_seconds,omitempty"`
	SegmentIntervalSeconds float64 `json:"segment_interval_seconds,omitempty"`
}
