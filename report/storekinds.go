package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/runs"
)

// storeKindsTableLegend says what the columns of the store kinds table mean.
const storeKindsTableLegend = "read: records the restore read; " +
	"kept: those the store holds at the end (the rest expired with their segments, or on arrival); " +
	"served: the entries reads return, verified against the fill's expected state; " +
	"retention, segment: the window or session store's retention and " +
	"segment interval (one RocksDB per segment); " +
	"restore s: median over the case's verified repeats, range s their range; " +
	"– : not counted (a window or session store restored by " +
	"Kafka Streams, which reports no such count)."

// storeKindsSection: the restores of store kinds beyond key-value, a row
// per case: its kind, a window or session store's retention and segment
// interval,
// the records read against those kept and served, and the median restore
// time over its verified repeats. Empty (left out) for inputs of
// key-value stores only.
func storeKindsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "store-kinds", Title: "Store kinds"}
	var rows [][]string
	for _, run := range a.Runs {
		recs := kindRestores(run.Results.Restores)
		first := map[string]runs.Restore{} // each case's first verified repeat
		for _, r := range recs {
			if _, ok := first[r.Case]; !ok {
				first[r.Case] = r
			}
		}
		for _, cs := range runs.Summarize(recs) {
			rows = append(rows, storeKindRow(run.Label, cs, first[cs.Case]))
		}
	}
	if len(rows) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "A cold window store's restore starts, as Kafka Streams 4.4 means to, at " +
		"the first record within its retention of each partition's last record, and keeps only the " +
		"windows within the retention: " +
		"records of windows whose segment expired as stream time passed it are deleted with the segment, and reads serve " +
		"windows that start after stream time minus the retention. " +
		"A session store's restore does the same by session end: stream time is the largest session end, and reads serve " +
		"the sessions that end after it minus the retention. " +
		"Kafka Streams 4.4 seeks a partition so only when one probe poll (poll.ms) returns a record of it; a partition " +
		"whose probe comes back empty, as happens under load, restores from the log start, dropping the " +
		"expired records as they arrive: " +
		"its restore then reads more than the model's of the same changelog, and the calibration leaves such pairs out. " +
		"The table sets the records each restore read beside those it kept and served."})
	if note := versionedNote(a); note != nil {
		s.Blocks = append(s.Blocks, note)
	}
	tab := &Table{Head: []string{"case", "kind", "retention", "segment", "repeats", "read", "kept", "served", "restore s (median)", "range s"},
		Right:  []bool{false, false, true, true, true, true, true, true, true, true},
		Legend: storeKindsTableLegend}
	tab.Rows = rows
	s.Blocks = append(s.Blocks, tab)
	return s, nil
}

// kindRestores are the verified restores of store kinds beyond key-value.
func kindRestores(restores []runs.Restore) []runs.Restore {
	var out []runs.Restore
	for _, r := range restores {
		if r.Store != nil && r.Verified {
			out = append(out, r)
		}
	}
	return out
}

// storeKindRow is case cs's row, its store figures read from first, its
// first verified repeat (the repeats restore the same fill alike).
func storeKindRow(run string, cs runs.CaseSummary, first runs.Restore) []string {
	st := first.Store
	served, _ := first.Verification.Totals()
	retention, segment := "–", "–"
	if st.RetentionSeconds > 0 {
		retention, segment = units.SecondsTerse(st.RetentionSeconds), units.SecondsTerse(st.SegmentIntervalSeconds)
	}
	kept := fmt.Sprint(st.RecordsKept)
	if st.Uncounted {
		kept = "–"
	}
	return []string{run + " " + cs.Case, string(st.Kind), retention, segment, fmt.Sprint(cs.Verified),
		fmt.Sprint(first.Records), kept, fmt.Sprint(served),
		fmt.Sprintf("%.2f", cs.MedianSeconds), fmt.Sprintf("%.2f–%.2f", cs.MinSeconds, cs.MaxSeconds)}
}

// storeKindLegend says what the store-kind table's columns mean.
var storeKindLegend = []string{
	"read: records the restore read; kept: those the store holds at the end; expired: the rest, dropped on arrival (skipped:",
	"their window's (session end's) segment had expired already) or deleted with a segment that expired later; served: entries",
	"reads return (the verified live windows or sessions); segments opened, dropped, open: window or session segments (one",
	"RocksDB each) over all tasks; retention, segment: the window or session store's retention and segment interval;",
	"restore s: the repeat's restore; – : not counted (a window, session or versioned store on the kafka-streams engine:",
	"Kafka Streams reports none of them)",
	versionedLegend,
}

// storeCounts are a store record's kept, expired and skipped records and
// its segments opened and dropped, as table cells: noFigure each when the
// restore did not count them.
func storeCounts(s *runs.StoreFigures) [5]string {
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
// window or session store's segments. Nothing for key-value stores.
func printStoreKinds(w io.Writer, restores []runs.Restore) {
	rows := having(restores, func(r runs.Restore) bool { return r.Store != nil })
	textTable(w, "store kinds: records read, kept and served", "case\trepeat\tkind\tread\tkept\texpired\tskipped\tserved\tsegments "+
		"opened\tdropped\topen\tretention\tsegment\trestore s",
		storeKindLegend, rows, func(r runs.Restore) string {
			s := r.Store
			keys, _ := r.Verification.Totals()
			retention, segment := noFigure, noFigure
			if s.RetentionSeconds > 0 {
				retention, segment = units.SecondsTerse(s.RetentionSeconds), units.SecondsTerse(s.SegmentIntervalSeconds)
			}
			counts := storeCounts(s)
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s",
				r.Case, r.Repeat, s.Kind, r.Records, counts[0], counts[1], counts[2], keys,
				counts[3], counts[4], s.Segments, retention, segment, restoreSeconds(r, "%.2f"))
		})
}
