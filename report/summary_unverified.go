package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// printUnverified prints, for restores of a topic restorebench did not
// fill, what a user restoring a copy of their own changelog came for: time,
// throughput, records, live keys and bytes, with the note that nothing was
// checked against an expected state.
func printUnverified(w io.Writer, restores []runs.Restore, fill *runs.Fill) {
	read := fill != nil && fill.Spec == nil && fill.ExpectedFrom == runs.ExpectedFromIndependentRead
	first := true
	for _, r := range restores {
		if r.Error != "" || !(r.Verification.Mode == verify.ModeUnverified || read && r.Verified && r.Topic == fill.Topic) {
			continue
		}
		if first && r.Verification.Mode == verify.ModeUnverified {
			fmt.Fprintln(w, "not verified (a topic restorebench did not fill; its contents were counted, not checked):")
		} else if first {
			fmt.Fprintf(w, "verified against an independent read of the topic (%s, as Kafka Streams restores it):\n", readFolds(r))
		}
		first = false
		keys, live := r.Verification.Totals()
		took := ""
		if p := r.Phase; p != nil {
			took = fmt.Sprintf(" in %.2fs (%.1f MB/s, %.0f records/s)", p.Seconds, p.MBPerSec, p.RecordsPerSec)
		}
		if ready := r.Ready(); ready != nil {
			took += fmt.Sprintf(", ready after %.2fs more", ready.Seconds)
		}
		fmt.Fprintf(w, "  %s #%d: %d records (%.1f MB) restored%s; %d live keys, %.1f MB live\n",
			r.Case, r.Repeat, r.Records, float64(r.Bytes)/1e6, took, keys, float64(live)/1e6)
	}
}

// readFolds says what the independent read kept of the topic a restore
// was verified against, as its store kind declares it
// (config.ForeignRead.Folds): each key's last value, and for a window
// store's changelog per window, the windows past the retention left out.
func readFolds(r runs.Restore) string {
	if r.Store == nil {
		return config.ForeignReadOf(config.StoreKeyValue).Folds
	}
	return config.ForeignReadOf(r.Store.Kind).Folds
}
