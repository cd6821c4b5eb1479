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
	"retention, segment: the window store's retention and segment interval; restore s: the repeat's restore",
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
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.2f",
				r.Case, r.Repeat, s.Kind, r.Records, s.RecordsKept, s.RecordsExpired, s.RecordsSkipped, keys,
				s.SegmentsOpened, s.SegmentsDropped, s.Segments, retention, segment, r.DurationSeconds)
		})
}
