package scenario

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// ksStoreRecord is what a kafka-streams cold restore of a store kind
// beyond key-value can say about its store (nil for a key-value one): a
// timestamped key-value store keeps every record it restored; a window
// (or session) store's kept and expired records and opened and dropped
// segments are not observable there (runs.StoreFigures.Uncounted), but its
// retention, its segment interval and the RocksDB segments left under
// appDir are (a session store's segments are laid out as a window
// store's: KeyValueSegments under both).
func ksStoreRecord(c config.Case, records int64, appDir, store string) *runs.StoreFigures {
	switch c.StoreKind {
	case config.StoreKeyValue:
		return nil
	case config.StoreVersionedKeyValue:
		return ksVersionedRecord(c)
	case config.StoreWindow, config.StoreSession:
		sr := &runs.StoreFigures{Kind: c.StoreKind, Uncounted: true, RetentionSeconds: c.Retention.D().Seconds()}
		if !c.Memory() { // the in-memory window and session stores have no segments
			sr.SegmentIntervalSeconds = c.SegmentIntervalOf().Seconds()
			sr.Segments = countSegments(appDir, store)
		}
		return sr
	}
	return &runs.StoreFigures{Kind: c.StoreKind, RecordsKept: records}
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
