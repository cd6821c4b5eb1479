package scenario

import (
	"fmt"
	"strconv"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// addVersionedKeys gives a versioned store's instance its fill's key
// count: a versioned store has no range read, so the driver digests it by
// asking for every key of the fill's key space.
func addVersionedKeys(props map[string]string, req Request) error {
	if req.Case.StoreKind != config.StoreVersionedKeyValue {
		return nil
	}
	if req.Spec == nil || req.Spec.Keys <= 0 {
		return fmt.Errorf("case %s: a versioned store is digested over its fill's keys, and this restore has no fill's spec", req.Case.Name)
	}
	props[ksdriver.PropStoreKeys] = strconv.FormatInt(req.Spec.Keys, 10)
	return nil
}

// ksVersionedRecord is what a kafka-streams cold restore of a versioned
// store can say: its history retention and segment interval. What it kept
// and dropped is uncounted (no listener or metric sees the versions
// RocksDBVersionedStore drops past its history), and its segments are
// logical ones inside one RocksDB instance, not directories to count.
func ksVersionedRecord(c config.Case) *runs.StoreFigures {
	return &runs.StoreFigures{Kind: c.StoreKind, Uncounted: true,
		RetentionSeconds: c.Retention.D().Seconds(), SegmentIntervalSeconds: c.VersionedSegmentInterval().Seconds()}
}

// versionedRecord fills a model restore's store record of a versioned
// store: the records put (kept) and those skipped as older than the grace
// period, the logical segments opened, dropped and live, the history
// retention and segment interval. Versions dropped past the history are
// versions, not records, and are not counted as expired records.
func versionedRecord(sr *runs.StoreFigures, c config.Case, restored *engine.Restored) {
	v, segments, ok := restored.Versioned()
	if !ok {
		return
	}
	sr.RecordsKept, sr.RecordsExpired, sr.RecordsSkipped = v.Put, v.Skipped, v.Skipped
	sr.SegmentsOpened, sr.SegmentsDropped, sr.Segments = v.SegmentsOpened, v.SegmentsDropped, segments
	sr.RetentionSeconds = c.Retention.D().Seconds()
	sr.SegmentIntervalSeconds = c.VersionedSegmentInterval().Seconds()
}
