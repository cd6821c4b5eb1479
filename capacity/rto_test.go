package capacity

import (
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// TestRTOCellsAreTheAnswersFigures: every sized cell of the cold-restore
// and warm-restart rows is the figure of the answer for its objective,
// value and interval alike (a calibrated cold rate gives the cells an
// interval; the instance cell keeps it), so the table and the answers
// never say two things.
func TestRTOCellsAreTheAnswersFigures(t *testing.T) {
	rtos := []time.Duration{time.Minute, 5 * time.Minute}
	for _, tc := range []struct {
		name       string
		a          *Analysis
		row        string
		task, inst string
	}{
		{"calibrated cold", Analyze(calibrationRuns(0, loadgen.KeysUniform), Options{RTOs: rtos, Threads: 2, Case: "kstreams-default"}),
			RowColdRestore, "largest_task_within_rto", "largest_instance_within_rto"},
		{"warm", Analyze(scenarioRuns(), Options{RTOs: rtos, Threads: 2}),
			RowWarmRestart, "warm_backlog_task_within_rto", "warm_backlog_instance_within_rto"},
	} {
		row := tc.a.RTO.Row(tc.row)
		if row == nil || !row.Measured || len(row.Cells) != len(rtos) {
			t.Fatalf("%s: row %+v, want measured with a cell per objective", tc.name, row)
		}
		if tc.row == RowColdRestore && (tc.a.Rate.Curve == nil || !row.Cells[0].Task.HasInterval()) {
			t.Fatalf("%s: the rate is not calibrated (%+v): the cells have no interval to compare", tc.name, row.Cells[0].Task)
		}
		for i, rto := range rtos {
			c := row.Cells[i]
			for _, side := range []struct {
				id   string
				cell Figure
			}{{tc.task, c.Task}, {tc.inst, c.Instance}} {
				ans := answerFor(tc.a, side.id, rto)
				if ans == nil || ans.Figure == nil {
					t.Fatalf("%s: no answer %s for %s", tc.name, side.id, FormatRTO(rto))
				}
				f := *ans.Figure
				if side.cell.Value != f.Value || side.cell.Lo != f.Lo || side.cell.Hi != f.Hi || side.cell.HasInterval() != f.HasInterval() ||
					side.cell.Extrapolated != f.Extrapolated || side.cell.Beyond != f.Beyond || side.cell.Unit != f.Unit {
					t.Errorf("%s %s %s: cell %s (%g–%g, beyond %g, unit %q), answer %s (%g–%g, beyond %g, unit %q)", tc.name, side.id,
						FormatRTO(rto), side.cell.Text(), side.cell.Lo, side.cell.Hi, side.cell.Beyond, side.cell.Unit,
						f.Text(), f.Lo, f.Hi, f.Beyond, f.Unit)
				}
			}
		}
	}
}

// answerFor is the answer with id for rto, nil when there is none.
func answerFor(a *Analysis, id string, rto time.Duration) *Answer {
	for i := range a.Answers {
		if a.Answers[i].ID == id && a.Answers[i].RTO == rto {
			return &a.Answers[i]
		}
	}
	return nil
}
