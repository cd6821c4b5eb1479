package capacity

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/internal/registry"
)

// AnswerID declares what an answer id means: one row of docs/json.md's
// answer-id table. The file that gives the answers declares their ids
// (declareAnswerID, from its init, beside its answerer), so the table is
// generated from the declarations (AnswerIDTable) rather than written by
// hand beside them; a test in package docs fails while the two differ, and
// one here while an answer carries an id nobody declared or a unit or
// objective its declaration does not say.
type AnswerID struct {
	// Row places the declaration in the table: lower first, one row an
	// order.
	Row int
	// IDs are the ids the row describes, one or more that differ only by
	// how the answer was reached (reads_again_standby, …_no_standby).
	IDs []string
	// Unit is the unit of the answers' value (UnitSeconds, …); "" for
	// answers with no one figure (their text says it).
	Unit string
	// PerObjective says the answer is given once per objective, with its
	// rto_seconds.
	PerObjective bool
	// Meaning is what the answer is, as the table says it (Markdown).
	Meaning string
}

// answerIDs is the registry of the declarations, by Row.
var answerIDs = registry.Ordered[AnswerID]{
	What:  "capacity: the answer id row",
	Order: func(d AnswerID) int { return d.Row },
	Name:  func(d AnswerID) string { return strings.Join(d.IDs, ", ") },
}

// declareAnswerID adds d to the declarations. It panics, when the program
// starts, on a row without ids or meaning, on an id declared twice and on
// a row whose place another has.
func declareAnswerID(d AnswerID) {
	if len(d.IDs) == 0 || d.Meaning == "" {
		panic(fmt.Sprintf("capacity: answer id row %d declared without ids or meaning", d.Row))
	}
	for i, id := range d.IDs {
		if _, dup := AnswerIDOf(id); dup || id == "" || slices.Contains(d.IDs[:i], id) {
			panic(fmt.Sprintf("capacity: answer id %q declared twice or empty", id))
		}
	}
	answerIDs.Add(d)
}

// AnswerIDs returns every declared answer id row, in the table's order.
func AnswerIDs() []AnswerID { return append([]AnswerID(nil), answerIDs.All()...) }

// AnswerIDOf returns the declaration of answer id id.
func AnswerIDOf(id string) (AnswerID, bool) {
	for _, d := range answerIDs.All() {
		if slices.Contains(d.IDs, id) {
			return d, true
		}
	}
	return AnswerID{}, false
}

// AnswerIDTable is docs/json.md's answer-id table, its header included,
// written from the declarations: a line a row, each ending in a newline.
func AnswerIDTable() string {
	var b strings.Builder
	b.WriteString("| `id` | `unit` | per objective | the answer |\n|---|---|---|---|\n")
	for _, d := range answerIDs.All() {
		ids := make([]string, len(d.IDs))
		for i, id := range d.IDs {
			ids[i] = "`" + id + "`"
		}
		unit, per := d.Unit, ""
		if unit == "" {
			unit = "(none)"
		}
		if d.PerObjective {
			per = "yes"
		}
		b.WriteString("|")
		for _, cell := range []string{strings.Join(ids, ", "), unit, per, d.Meaning} {
			if cell != "" {
				b.WriteString(" " + cell)
			}
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
