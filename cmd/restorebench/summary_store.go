package main

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/runs"
)

// storeKindLegend says what the store-kind table's columns mean.
var storeKindLegend = []string{
	"read: records the restore read; kept: those the store holds at the end; expired: the rest, dropped on arrival (skipped:",
	"their window's segment had expired already) or deleted with a segment that expired later; served: entries reads return",
	"(the verified live windows); segments opened, dropped, open: window segments (one RocksDB each) over all tasks;",
	"retention, segment: the window store's retention and segment interval; restore s: the repeat's restore;",
	"– : not counted (a window store on the kafka-streams engine: Kafka Streams reports none of them)",
}

// storeCounts are a store record's kept, expired and skipped records and
// its segments opened and dropped, as table cells: noFigure each when the
// restore did not count them.
func storeCounts(s *runs.StoreRecord) [5]string {
	var out [5]string
	for i, n := range []int64{s.RecordsKept, s.RecordsExpired, s.RecordsSkipped, s.SegmentsOpened, s.SegmentsDropped} {
		out[i] = fmt.Sprint(n)
		if s.Uncounted {
			out[i] = noFigure
		}
	}
	return out
}

// printStoreKinds prints, for restores of store kinds beyond key-value,
// what each did with its records: read, kept, expired, served, and a
// window store's segments. Nothing for key-value stores.
func printStoreKinds(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Store != nil })
	table(w, "store kinds: records read, kept and served", "case\trepeat\tkind\tread\tkept\texpired\tskipped\tserved\tsegments opened\tdropped\topen\tretention\tsegment\trestore s",
		storeKindLegend, rows, func(r runs.Restore) string {
			s := r.Store
			keys, _ := r.Verification.Totals()
			retention, segment := noFigure, noFigure
			if s.RetentionSeconds > 0 {
				retention, segment = units.SecondsTerse(s.RetentionSeconds), units.SecondsTerse(s.SegmentIntervalSeconds)
			}
			counts := storeCounts(s)
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%.2f",
				r.Case, r.Repeat, s.Kind, r.Records, counts[0], counts[1], counts[2], keys,
				counts[3], counts[4], s.Segments, retention, segment, r.DurationSeconds)
		})
}
