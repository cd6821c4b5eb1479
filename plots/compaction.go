package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The charts this file draws, in the registry (registerChart).
func init() {
	registerChart(Chart{Order: 150, Name: "compaction", File: CompactionFile, Scenario: config.ScenarioCompaction, Draw: CompactionAmplification, Report: true,
		Title:   "Restore amplification per cleaner setting",
		Caption: "Records read at restore per live key, median over repeats, beside the bound the settings allow"})
}

// CompactionFile is the file base name WriteAll gives CompactionAmplification.
const CompactionFile = "compaction-amplification"

// CompactionAmplification charts per compaction case the restore
// amplification (records the restore read per live key, after the log
// cleaner ran) as a bar at the median over repeats, beside the bound the
// case's cleaner settings allow, with the median above: 1 is a fully
// compacted changelog. (nil, nil) for results without compaction records.
func CompactionAmplification(r *runs.Results) (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResults
	}
	var names []string
	var measured, bound plotter.Values
	index := map[string]int{}
	amps := map[string][]float64{}
	kfake := false
	for _, rs := range r.Restores {
		cr := rs.Compaction
		if cr == nil || !rs.Counts() || cr.LiveKeys == 0 {
			continue
		}
		kfake = kfake || cr.CleanedBy == runs.CleanedByKfake
		c := caseOf(rs)
		if _, ok := index[c]; !ok {
			index[c] = len(names)
			names = append(names, c)
			bound = append(bound, cr.Bound)
		}
		amps[c] = append(amps[c], cr.Amplification)
	}
	if len(names) == 0 {
		return nil, nil
	}
	labels := make([]string, len(names))
	for i, c := range names {
		m := runs.Median(amps[c])
		measured = append(measured, m)
		labels[i] = fmt.Sprintf("×%.2f", m)
	}
	title := "Restore amplification per cleaner setting (median over repeats; Kafka's log cleaner)"
	if kfake {
		// The embedded broker compacts everything it can at once, whatever
		// the settings: its figures are the floor, not what they leave.
		title = "Restore amplification (embedded broker: full compaction, a floor, not the settings' effect)"
	}
	p := newPlot(title)
	p.Y.Label.Text = "records read at restore per live key"
	mb, bb, w, err := pairedBars(p, caseTicks(p, names), measured, bound, palette[0], palette[9])
	if err != nil {
		return nil, err
	}
	if err := addBarLabels(p, measured, labels, -w/2); err != nil {
		return nil, err
	}
	finishCaseAxes(p, len(names))
	legendOutside(p, []legendEntry{{name: "measured", thumb: mb}, {name: "bound the settings allow", thumb: bb}})
	return p, nil
}
