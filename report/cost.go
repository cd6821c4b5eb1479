package report

import (
	"fmt"

	"github.com/restorebench/restorebench/capacity"
)

// costTableLegend says what the columns of a restore cost's table mean.
const costTableLegend = "a row per changelog shape the cost was fitted over: its key+value bytes a record and records per " +
	"live key, the restores of it, their median time and the cost's median for the same restores, and measured over " +
	"fitted less one."

// costBlocks show each restore cost the inputs fit across changelog
// shapes: its terms, how well it fits, and a row per shape.
func costBlocks(a *capacity.Analysis) []Block {
	if len(a.Costs) == 0 {
		return nil
	}
	out := []Block{&Heading{Text: "Restore cost per record and per byte, across changelog shapes"},
		&Para{Text: "A restore of small records costs per record, one of large records per byte, and a record that a later one " +
			"of its key replaces costs flushes and compactions: an MB/s of one shape says little of another. Each setting whose " +
			"restores span record sizes is fitted, on relative error, to a fixed cost a restore plus a cost a record, a byte " +
			"and a record overwritten (records less live keys); a plan given your record size (--record-bytes, --from-topic) " +
			"answers from it at your shape."}}
	for _, c := range a.Costs {
		out = append(out, &Para{Text: fmt.Sprintf("%s: %s per stream thread; %s.", c.Label(), c.Equation(), c.FitText())})
		t := &Table{Head: []string{"bytes a record", "records per live key", "restores", "measured (median)", "fitted", "measured / fitted"},
			Legend: costTableLegend, Right: []bool{true, true, true, true, true, true}}
		for _, s := range c.Shapes {
			t.Rows = append(t.Rows, []string{capacity.FormatBytes(s.Shape.BytesPerRecord), fmt.Sprintf("%.1f", s.Shape.RecordsPerKey),
				fmt.Sprint(s.Restores), capacity.FormatSeconds(s.Measured), capacity.FormatSeconds(s.Fitted), fmt.Sprintf("%+.0f%%", s.Percent())})
		}
		out = append(out, t)
	}
	return out
}
