package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
)

// printFills prints a line per changelog the run restored from: for a fill
// of restorebench's, its records, bytes and fill rates (whether filled now
// or reused), what compaction left of it and what a transactional fill
// wrote besides; for an existing topic, that restorebench did not fill it
// and, where one was made, that restores were verified against an
// independent read of it. A file of one fill (res.Fill, older files) prints
// that fill.
func printFills(w io.Writer, res *runs.Results) {
	fills := res.Fills
	if len(fills) == 0 && res.Fill != nil {
		fills = []*runs.Fill{res.Fill}
	}
	for _, f := range fills {
		switch {
		case f.Spec == nil && f.ExpectedFrom == runs.ExpectedFromIndependentRead:
			var keys int64
			for _, p := range f.Expected {
				keys += p.Keys
			}
			fmt.Fprintf(w, "\nchangelog %s: existing topic, not filled by restorebench: "+
				"restores verified against an independent read of it (%d live keys)\n", f.Topic, keys)
		case f.Spec == nil:
			fmt.Fprintf(w, "\nchangelog %s: existing topic, not filled by restorebench\n", f.Topic)
		default:
			printFill(w, res, f)
		}
	}
}

// printFill prints a fill of restorebench's: its records, bytes and rates,
// then what compaction left of it and what its transactions wrote.
func printFill(w io.Writer, res *runs.Results, f *runs.Fill) {
	how := "filled now"
	if f.Reused {
		how = "reused fill"
	}
	fmt.Fprintf(w, "\nchangelog %s (%s): %d records, %.1f MB key+value, fill %.1f MB/s, %.0f records/s\n",
		f.Topic, how, f.Records, float64(f.Bytes)/1e6, f.MBPerSec, f.RecordsPerSec)
	if rb := res.ReadBackOf(f); rb.Compacted(f) {
		fmt.Fprintf(w, "  %s\n", rb.Describe(f))
	}
	printFillTransactions(w, f)
}

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
