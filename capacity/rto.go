package capacity

import (
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
)

// DefaultRTOs are the recovery-time objectives a table shows unless told
// otherwise.
var DefaultRTOs = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute}

// RTOTable is the recovery-time table: per scenario, the largest state per
// task and per instance that comes back within each objective.
type RTOTable struct {
	RTOs []time.Duration
	// Threads is the stream threads per instance the instance column assumes.
	Threads int
	Rows    []RTORow
}

// RTORow is one scenario's line of the table.
type RTORow struct {
	// Scenario names how the state comes back, e.g. "cold restore".
	Scenario string
	// Measured is false when the inputs lack what the row needs; Missing
	// then says what and how to measure it.
	Measured bool
	Missing  string
	// Quantity says what the cells' sizes are: QuantityChangelog (the
	// changelog a task restores) or QuantityChanges (the records written
	// while an instance was down: a backlog, not the state's size).
	Quantity Quantity
	// Predicted marks cells that come from a model (the warmup model),
	// not from a measurement of that size.
	Predicted bool
	// Cells has one entry per RTO, in the table's order.
	Cells []RTOCell
	// Basis lists the figures the row rests on; Sources cites the restores.
	Basis   []string
	Sources string
}

// Quantity is what an RTO row's sizes measure.
type Quantity string

const (
	// QuantityChangelog: the changelog bytes a task restores (its state as
	// the log cleaner left it).
	QuantityChangelog Quantity = ""
	// QuantityChanges: the bytes written to a task's changelog while its
	// instance was down, which a warm restart replays; any state size.
	QuantityChanges Quantity = "changes"
)

// RTOCell is the largest state that meets one objective.
type RTOCell struct {
	RTO time.Duration
	// Task is the largest changelog one task (partition) may have; Instance
	// the largest an instance restores with the table's threads. In a row
	// whose scenario answers them (cold restore, warm restart) they are
	// those answers' Figures, interval and all, not computed beside them.
	Task, Instance Figure
	// Text, when set, is the cell's answer in words instead of a size: a
	// standby failover's recovery does not depend on the state's size, so
	// its cells say whether the objective is met and at what gap.
	Text string
	// Meets is whether a Text cell's objective is met.
	Meets bool
}

// rtoRow is one line of the table, registered from the init of the file
// that computes it (registerRTORow): coldRestoreRow here, warmRestartRow
// in warm.go, ... A scenario joins the table by registering its row from
// its own file: nothing else changes.
type rtoRow struct {
	// order places the row among the others: lower first, one row an
	// order (the registry is filled from the files' inits, in whatever
	// order they run).
	order int
	// scenarios are the scenarios whose records the row reads.
	scenarios []config.Scenario
	row       func(a *Analysis) RTORow
}

// rtoRows are the table's rows, in order. Every scenario config registers
// has a row or declares it has none (declareLacks); a test holds that.
var rtoRows = byScenario[rtoRow]("capacity: the RTO row of")

func (r rtoRow) place() (int, []config.Scenario) { return r.order, r.scenarios }

// registerRTORow adds r in its order. It panics, when the program starts,
// on an order another row has, and on a row reading no scenario or one
// config does not register.
func registerRTORow(r rtoRow) { register(&rtoRows, "the RTO row", r, false) }

// The cold restore's row comes first.
func init() {
	registerRTORow(rtoRow{order: 10, scenarios: []config.Scenario{config.ScenarioCold}, row: coldRestoreRow})
}

// buildRTOTable computes every registered row, after the answers: the
// rows that have answers take their cells from them.
func buildRTOTable(a *Analysis) RTOTable {
	t := RTOTable{RTOs: a.Options.RTOs, Threads: a.Options.Threads}
	for _, r := range rtoRows.All() {
		t.Rows = append(t.Rows, r.row(a))
	}
	return t
}

// Row returns the row of the named scenario, or nil.
func (t RTOTable) Row(scenario string) *RTORow {
	for i := range t.Rows {
		if t.Rows[i].Scenario == scenario {
			return &t.Rows[i]
		}
	}
	return nil
}

// RowColdRestore is the cold-restore row's label in the RTO table (not a
// config.Scenario: that is the case setting, "cold").
const RowColdRestore = "cold restore"

// coldRestoreRow: a task restores its whole changelog into an empty state
// directory at the measured per-thread rate; an instance's threads restore
// their tasks in parallel.
func coldRestoreRow(a *Analysis) RTORow {
	row := RTORow{Scenario: RowColdRestore}
	r := a.Rate
	if r == nil {
		row.Missing = a.RateErr.Error()
		return row
	}
	row.Measured = true
	threads := a.Options.Threads
	row.Cells = answeredCells(a, "largest_task_within_rto", "largest_instance_within_rto")
	row.Basis = append(row.Basis, fmt.Sprintf("%s: %s", r.Label(), r.Summary()), r.Basis())
	row.Basis = append(row.Basis, threadsBasis(r, threads))
	if r.Curve != nil {
		basis := "model times multiplied by the calibration factor at each cell's size: " + r.CalibrationText()
		if r.CurveMatch != "" {
			basis += " (" + r.CurveMatch + ")"
		}
		row.Basis = append(row.Basis, basis)
	}
	row.Sources = Refs(r.Obs)
	return row
}

// answeredCells are a row's cells taken from its answers: per objective,
// the Figure of the answer taskID gives for it, and of instID's, or with
// one thread (no instance answer is given then) the task's again.
func answeredCells(a *Analysis, taskID, instID string) []RTOCell {
	var cells []RTOCell
	for _, rto := range a.Options.RTOs {
		c := RTOCell{RTO: rto}
		if f := answerFigure(a.Answers, taskID, rto); f != nil {
			c.Task, c.Instance = *f, *f
		}
		if f := answerFigure(a.Answers, instID, rto); f != nil {
			c.Instance = *f
		}
		cells = append(cells, c)
	}
	return cells
}

// answerFigure is the Figure of the answer id gives for rto, nil when
// there is none.
func answerFigure(answers []Answer, id string, rto time.Duration) *Figure {
	for _, ans := range answers {
		if ans.ID == id && ans.RTO == rto {
			return ans.Figure
		}
	}
	return nil
}

// threadsBasis says what the instance column assumes about threads.
func threadsBasis(r *Rate, threads int) string {
	s := fmt.Sprintf("per instance: num.stream.threads=%d, each thread restoring its own tasks at the per-thread rate", threads)
	if threads > r.Threads {
		s += fmt.Sprintf(" (an assumption: the measurements ran %s in parallel; scaling beyond that on this host's %d cores was not measured)",
			Plural(r.Threads, "thread"), r.Setup.Env.CPUs)
	}
	return s
}
