package main

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
)

// printFillTransactions prints what a transactional fill wrote besides its
// records; nothing for a plain fill.
func printFillTransactions(w io.Writer, f *runs.Fill) {
	t := f.Transactions
	if t == nil {
		return
	}
	fmt.Fprintf(w, "  transactional: %d transactions of %d records, %d aborted (%d records, %.1f MB key+value), %d markers; %d offsets\n",
		t.Transactions, t.TransactionRecords, t.AbortedTransactions, t.AbortedRecords, float64(t.AbortedBytes)/1e6, t.Markers, t.Offsets)
}

// printReads prints, for every restore that met transaction markers, how
// it read the changelog: its isolation level, the records it restored over
// the offsets it spanned, and, read committed, the offsets that held no
// record it restored (markers, the aborted records it dropped, compaction
// gaps). Restores of changelogs without markers print nothing.
func printReads(w io.Writer, restores []runs.Restore) {
	header := false
	for _, r := range restores {
		rd := r.Read
		if rd == nil || rd.Markers == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "changelog reads over transactional batches:")
			header = true
		}
		fmt.Fprintf(w, "  %s #%d %s: %d records restored over %d offsets (%d markers, %d of them aborts)",
			r.Case, r.Repeat, rd.IsolationLevel, r.Records, rd.Offsets, rd.Markers, rd.AbortMarkers)
		if rd.Note != "" {
			fmt.Fprint(w, ": the aborted transactions' records restored too")
		} else if skipped := rd.Offsets - r.Records - rd.Markers; skipped > 0 {
			fmt.Fprintf(w, "; %d offsets held records not restored (aborted, or compacted away)", skipped)
		}
		fmt.Fprintln(w)
	}
}
