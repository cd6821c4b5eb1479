package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
)

// readLine is how one restore read a changelog with transaction markers,
// as printReads shows it; the repeats of a case that read alike share one.
type readLine struct {
	step                               string
	isolation                          string
	records, offsets, markers, aborted int64
}

// printReads prints, for the restores that met transaction markers, how
// they read the changelog: the isolation level, the records restored over
// the offsets spanned, and what that means for the aborted transactions:
// read committed, the offsets that held no record restored (markers aside:
// the aborted records dropped, or compaction gaps); read uncommitted, that
// the aborted records were restored. Repeats that read alike print once.
// Restores of changelogs without markers print nothing.
func printReads(w io.Writer, restores []runs.Restore) {
	var lines []readLine
	repeats := map[readLine]int{}
	for _, r := range restores {
		rd := r.Read
		if rd == nil || rd.Markers == 0 {
			continue
		}
		l := readLine{r.Case, rd.IsolationLevel, r.Records, rd.Offsets, rd.Markers, rd.AbortMarkers}
		if repeats[l]++; repeats[l] == 1 {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "changelog reads over transactional batches:")
	}
	for _, l := range lines {
		times := "1 repeat"
		if n := repeats[l]; n > 1 {
			times = fmt.Sprintf("%d repeats", n)
		}
		fmt.Fprintf(w, "  %s (%s) %s: %d records restored over %d offsets (%d markers, %d of them aborts)",
			l.step, times, l.isolation, l.records, l.offsets, l.markers, l.aborted)
		skipped := l.offsets - l.records - l.markers
		switch {
		case l.isolation != "read_committed" && l.aborted > 0:
			fmt.Fprint(w, ": the aborted transactions' records restored too")
		case l.isolation == "read_committed" && skipped > 0:
			fmt.Fprintf(w, "; %d offsets held records not restored (aborted, or compacted away)", skipped)
		}
		fmt.Fprintln(w)
	}
}
