package runs

import "github.com/restorebench/restorebench/config"

// StoreFigures is what a restore of a store kind beyond key-value did with
// its records: for a window store, the records kept and dropped as
// expired and the segments opened, dropped and left (on the model engine;
// see Uncounted for what the kafka-streams engine can tell).
type StoreFigures struct {
	// Kind is the store kind restored (Params.StoreKind).
	Kind config.StoreKind `json:"kind"`
	// RecordsKept are the records the store holds at the end (written to
	// a segment still open); RecordsExpired those it does not: dropped on
	// arrival because their window's (session end's) segment had expired
	// (RecordsSkipped, out of order by more than the retention), or
	// deleted with a segment that expired later. Records = kept + expired.
	RecordsKept    int64 `json:"records_kept"`
	RecordsExpired int64 `json:"records_expired"`
	RecordsSkipped int64 `json:"records_skipped"`
	// SegmentsOpened counts the window (or session) segments the restore
	// created, SegmentsDropped those it deleted as stream time passed
	// them, and Segments those open at the end, over all tasks.
	SegmentsOpened  int64 `json:"segments_opened,omitempty"`
	SegmentsDropped int64 `json:"segments_dropped,omitempty"`
	Segments        int   `json:"segments,omitempty"`
	// Uncounted says the restore's store did not report what it kept:
	// a window or session store on the kafka-streams engine, whose restore
	// (Kafka Streams' RocksDBSegmentedBytesStore, InMemoryWindowStore,
	// InMemorySessionStore) drops expired records and segments without a
	// listener or metric seeing them. RecordsKept, RecordsExpired, RecordsSkipped, SegmentsOpened
	// and SegmentsDropped are then 0, not counted; Segments is counted
	// from the state directory (the RocksDB segment directories left
	// after the restore; 0 in memory), and the reads served are the
	// verification's. A timestamped key-value store keeps every record
	// on either engine, so it is counted on both. A versioned store
	// (versioned-key-value) on the model counts the records it put as
	// kept (those older than stream time minus the history retention as
	// skipped and expired; the versions it drops past the history are not
	// records) and its logical segments, inside its one RocksDB; on the
	// kafka-streams engine it is uncounted, with no segments to count on
	// disk.
	Uncounted bool `json:"uncounted,omitempty"`
	// RetentionSeconds and SegmentIntervalSeconds are the window or
	// session store's retention and segment interval (a versioned store's
	// history retention and segment interval).
	RetentionSeconds       float64 `json:"retention_seconds,omitempty"`
	SegmentIntervalSeconds float64 `json:"segment_interval_seconds,omitempty"`
}
