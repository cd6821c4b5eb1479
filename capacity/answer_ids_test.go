package capacity

import (
	"strings"
	"testing"
	"time"
)

// TestEveryAnswerHasAnID: every answer a plan gives carries its stable id,
// the per-objective answers their objective, and every answer its
// Figure, except those that have no one figure.
func TestEveryAnswerHasAnID(t *testing.T) {
	rs := scenarioRuns()
	res := rs[0].Results
	res.Restores = append(res.Restores, failoverReadRecords("ss", true, true, []float64{0.4, 1.5, 0.2})...)
	res.Restores = append(res.Restores, failoverReadRecords("sn", true, false, []float64{6.5, 8})...)
	res.Restores = append(res.Restores, failoverReadRecords("nn", false, false, []float64{9})...)
	rtos := []time.Duration{time.Minute, 5 * time.Minute}
	for _, d := range []Deployment{
		{StateBytes: 20e9, Partitions: 16, Instances: 4, Standbys: 1, WriteRate: 5e6},
		{LiveBytes: 8e9, Partitions: 16, Instances: 4},
	} {
		a := Analyze(rs, Options{RTOs: rtos, Threads: 2, Deployment: d})
		seen := map[string]bool{}
		for _, ans := range a.Answers {
			seen[ans.ID] = true
			checkDeclared(t, ans)
			switch {
			case ans.ID == "":
				t.Errorf("%q has no id", ans.Question)
			case ans.Figure == nil && ans.ID != "standby_needed" && ans.ID != "standby_keeps_up":
				t.Errorf("%s (%q) has no figure", ans.ID, ans.Question)
			}
		}
		for _, id := range []string{"cold_restore_rate", "largest_task_within_rto", "largest_instance_within_rto", "partitions_needed",
			"cold_restore_task", "cold_restore_instance", "instances_needed", "warm_backlog_task_within_rto",
			"reads_again_standby_stale", "reads_again_standby", "reads_again_no_standby"} {
			if !seen[id] {
				t.Errorf("%+v: no answer %s", d, id)
			}
		}
		if d.LiveBytes > 0 && !seen["changelog_from_live_state"] {
			t.Errorf("%+v: no answer changelog_from_live_state", d)
		}
		for _, ans := range a.Answers {
			perRTO := ans.ID == "largest_task_within_rto" || ans.ID == "partitions_needed" || ans.ID == "instances_needed"
			if perRTO && ans.RTO != rtos[0] && ans.RTO != rtos[1] {
				t.Errorf("%s (%q): objective %v", ans.ID, ans.Question, ans.RTO)
			}
			if !perRTO && ans.ID == "cold_restore_task" && ans.RTO != 0 {
				t.Errorf("%s has an objective %v", ans.ID, ans.RTO)
			}
		}
	}
}

// checkDeclared fails t unless ans's id is declared (declareAnswerID) with
// the unit of its figure ("" for none) and as per objective exactly when
// the answer is given for one: what docs/json.md's table, generated from
// the declarations, says of it.
func checkDeclared(t *testing.T, ans Answer) {
	t.Helper()
	d, ok := AnswerIDOf(ans.ID)
	if !ok {
		t.Errorf("answer id %s (%q) is not declared: declareAnswerID from the init of the file that gives it", ans.ID, ans.Question)
		return
	}
	unit := ""
	if ans.Figure != nil {
		unit = ans.Figure.Unit
	}
	if unit != d.Unit {
		t.Errorf("answer %s (%q): unit %q, declared %q", ans.ID, ans.Question, unit, d.Unit)
	}
	if (ans.RTO != 0) != d.PerObjective {
		t.Errorf("answer %s (%q): objective %v, declared per objective %v", ans.ID, ans.Question, ans.RTO, d.PerObjective)
	}
}

// TestAnswerIDTableRows: the table has its header and a row per
// declaration, in their order, each id once.
func TestAnswerIDTableRows(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(AnswerIDTable(), "\n"), "\n")
	if len(lines) != 2+len(AnswerIDs()) {
		t.Fatalf("%d lines for %d declarations", len(lines), len(AnswerIDs()))
	}
	seen := map[string]bool{}
	for i, d := range AnswerIDs() {
		if i > 0 && AnswerIDs()[i-1].Row >= d.Row {
			t.Errorf("row %d after row %d", d.Row, AnswerIDs()[i-1].Row)
		}
		if !strings.HasPrefix(lines[2+i], "| `"+d.IDs[0]+"`") {
			t.Errorf("line %d = %q, want row %v", 2+i, lines[2+i], d.IDs)
		}
		for _, id := range d.IDs {
			if seen[id] {
				t.Errorf("id %s in two rows", id)
			}
			seen[id] = true
		}
	}
}
