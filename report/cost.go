package report

import (
	"fmt"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/loadgen"
)

// costTableLegend says what the columns of a restore cost's table mean.
const costTableLegend = "a row per changelog shape the cost was fitted over: its key+value bytes a record and records per " +
	"live key, the restores of it, their median time and the cost's median for the same restores, and measured over " +
	"fitted less one."

// costTableHotLegend is the legend's sentence on the hot records column,
// shown when the cost prices them apart.
var costTableHotLegend = fmt.Sprintf(" Hot records: the share of records whose key is among the %d records of its partition "+
	"before it (skewed keys), priced apart.", loadgen.HotKeyWindow)

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
		if c.Hot {
			t.Head = append(t.Head[:2], append([]string{"hot records"}, t.Head[2:]...)...)
			t.Right = append(t.Right, true)
			t.Legend += costTableHotLegend
		}
		for _, s := range c.Shapes {
			row := []string{capacity.FormatBytes(s.Shape.BytesPerRecord), fmt.Sprintf("%.1f", s.Shape.RecordsPerKey),
				fmt.Sprint(s.Restores), capacity.FormatSeconds(s.Measured), capacity.FormatSeconds(s.Fitted), fmt.Sprintf("%+.0f%%", s.Percent())}
			if c.Hot {
				row = append(row[:2], append([]string{fmt.Sprintf("%.0f%%", 100*s.Shape.HotShare)}, row[2:]...)...)
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}
