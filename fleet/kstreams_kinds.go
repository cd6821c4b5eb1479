package fleet

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/runs"
)

// KSStoreRecord is what a kafka-streams cold restore of a store kind
// beyond key-value can say about its store (nil for one whose record says
// none, config.KindFigures.Recorded): a store that keeps every record it
// restored (a timestamped key-value store's) counts them; one whose kept
// and expired records are not observable there (runs.StoreFigures.Uncounted:
// window, session and versioned stores) records its retention, its
// segment interval and, when its segments are RocksDB directories, those
// left under appDir (a session store's are laid out as a window store's:
// KeyValueSegments under both; the in-memory stores have none, and no
// interval).
func KSStoreRecord(c config.Case, records int64, appDir, store string) *runs.StoreFigures {
	f := kindFigures(c)
	switch {
	case !f.Recorded:
		return nil
	case !f.Uncounted:
		return &runs.StoreFigures{Kind: c.StoreKind, RecordsKept: records}
	}
	sr := &runs.StoreFigures{Kind: c.StoreKind, Uncounted: true, RetentionSeconds: c.Retention.D().Seconds()}
	switch {
	case f.SegmentInterval == nil:
	case !f.SegmentDirs:
		sr.SegmentIntervalSeconds = f.SegmentInterval(c).Seconds()
	case !c.Memory():
		sr.SegmentIntervalSeconds = f.SegmentInterval(c).Seconds()
		sr.Segments = countSegments(appDir, store)
	}
	return sr
}

// StoreRecord is what a model restore of a store kind beyond key-value
// did with its records; nil for one whose record says none
// (config.KindFigures.Recorded). A segmented store counts the records it
// kept and expired (skipped on arrival, or dropped with a segment) and its
// segments; a versioned store the records it put (kept) and those skipped
// as older than the grace period, and its logical segments (versions
// dropped past the history are versions, not records, and are not
// counted as expired records). Both record their retention and segment
// interval.
func StoreRecord(c config.Case, restored *engine.Restored) *runs.StoreFigures {
	f := kindFigures(c)
	if !f.Recorded {
		return nil
	}
	sr := &runs.StoreFigures{Kind: c.StoreKind, RecordsKept: restored.Records}
	counted := false
	if w, segments, ok := restored.Windows(); ok {
		sr.RecordsKept, sr.RecordsExpired, sr.RecordsSkipped = w.Kept, w.Skipped+w.Dropped, w.Skipped
		sr.SegmentsOpened, sr.SegmentsDropped, sr.Segments = w.SegmentsOpened, w.SegmentsDropped, segments
		counted = true
	}
	if v, segments, ok := restored.Versioned(); ok {
		sr.RecordsKept, sr.RecordsExpired, sr.RecordsSkipped = v.Put, v.Skipped, v.Skipped
		sr.SegmentsOpened, sr.SegmentsDropped, sr.Segments = v.SegmentsOpened, v.SegmentsDropped, segments
		counted = true
	}
	if counted && f.SegmentInterval != nil {
		sr.RetentionSeconds = c.Retention.D().Seconds()
		sr.SegmentIntervalSeconds = f.SegmentInterval(c).Seconds()
	}
	return sr
}

// kindFigures is what the record of the case's store kind says of its store.
func kindFigures(c config.Case) config.KindFigures {
	d, _ := config.StoreKindDefOf(c.StoreKind)
	return d.Figures
}

// AddKindProperties gives an instance the driver keys of its store kind
// that its fill's spec sets (config.Case.FillProperties: a window or
// session store's window size, a versioned store's key count); an error
// naming the case when the request has no such spec.
func AddKindProperties(props map[string]string, req Request) error {
	p, err := req.Case.FillProperties(req.Spec)
	if err != nil {
		return err
	}
	maps.Copy(props, p)
	return nil
}

// countSegments counts a window store's RocksDB segments under a Kafka
// Streams application's state directory: <task>/<store>/<store>.<segment
// start ms> in every task directory, the layout KeyValueSegments opens
// them in.
func countSegments(appDir, store string) int {
	tasks, err := os.ReadDir(appDir)
	if err != nil {
		return 0
	}
	n := 0
	for _, task := range tasks {
		if !task.IsDir() {
			continue
		}
		segs, err := os.ReadDir(filepath.Join(appDir, task.Name(), store))
		if err != nil {
			continue
		}
		for _, s := range segs {
			start, ok := strings.CutPrefix(s.Name(), store+".")
			if _, err := strconv.ParseInt(start, 10, 64); s.IsDir() && ok && err == nil {
				n++
			}
		}
	}
	return n
}
