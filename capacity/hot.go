package capacity

import (
	"fmt"
	"math"

	"github.com/restorebench/restorebench/loadgen"
)

// Hot records (loadgen.HotKeys): what a restore cost and a measured rate
// need to know of how skewed a changelog's keys are.

// maxHotGap is how far (in share of records) a deployment's hot records
// may lie outside those fitted before the answers say so.
const maxHotGap = 0.15

// hotWhat says what a hot record is, for a warning.
var hotWhat = fmt.Sprintf("their key among their partition's last %d records", loadgen.HotKeyWindow)

// hotUncounted says why restores have no hot share.
const hotUncounted = "their results hold no hot_records: written before restorebench counted them, or of a topic too large to read independently"

// minHotSpread is how far apart (in share of records) the least and most
// skewed shapes' hot records must lie before a Cost prices hot records
// apart: closer, the hot term would fit noise. Uniform keys give 0–4%,
// Zipf(1.1) keys 44–48% (loadgen.HotKeyWindow).
const minHotSpread = 0.2

// hotShareOf is the share of hot records (loadgen.HotKeys) in the
// changelog o restored, as its fill or independent read counted them,
// and whether it was counted.
func hotShareOf(o Obs) (float64, bool) {
	f := o.Run.Results.FillOf(o.Restore.Topic)
	if f == nil || f.HotRecords == nil {
		return 0, false
	}
	n := f.Records
	if n <= 0 { // an independent read: it read what the restore read
		n = o.Restore.Records
	}
	if n <= 0 {
		return 0, false
	}
	return math.Min(1, float64(*f.HotRecords)/float64(n)), true
}
