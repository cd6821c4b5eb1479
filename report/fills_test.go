package report

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/runs"
)

// TestFillsSectionSaysTheCleanerWasHeld: a fill whose run held the log
// cleaner says so under the fills table; one that did not, nothing.
func TestFillsSectionSaysTheCleanerWasHeld(t *testing.T) {
	held := &runs.Fill{Topic: "held-changelog", CleanerHold: &runs.CleanerHold{Setting: "min.compaction.lag.ms=9223372036854775807"}}
	free := &runs.Fill{Topic: "free-changelog"}
	a := &capacity.Analysis{Runs: []*capacity.Run{
		{Label: "R1", Results: &runs.Results{Fill: held}},
		{Label: "R2", Results: &runs.Results{Fill: free}},
	}}
	s, err := fillsSection(a)
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, b := range s.Blocks {
		if l, ok := b.(*List); ok {
			items = append(items, l.Items...)
		}
	}
	if len(items) != 1 || !strings.HasPrefix(items[0], "R1 held-changelog: the log cleaner was held") || !strings.Contains(items[0], "min.compaction.lag.ms=9223372036854775807") {
		t.Fatalf("notes under the fills table: %q, want one naming R1's hold", items)
	}
}
