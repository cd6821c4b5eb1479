package docs

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
)

// update rewrites generated parts of the pages from what they are generated
// from (make docs runs it).
var update = flag.Bool("update", false, "rewrite json.md's answer-id table from the planner's declarations")

// answerIDsPage is the page whose answer-id table is generated, and
// answerIDsHeading the heading the table follows.
const (
	answerIDsPage    = "json.md"
	answerIDsHeading = "### Answer ids\n"
)

// TestAnswerIDTableIsTheDeclarations: docs/json.md's answer-id table (the
// table right after its "### Answer ids" heading) is the one the planner's
// declarations make (capacity.AnswerIDTable: each id's unit, objective and
// meaning, declared beside the answerer giving it), byte for byte; an id
// declared, changed or removed without `make docs` fails here. With
// -update it rewrites the table instead.
func TestAnswerIDTableIsTheDeclarations(t *testing.T) {
	b, err := os.ReadFile(answerIDsPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	start, end, ok := tableAfter(page, answerIDsHeading)
	if !ok {
		t.Fatalf("%s has no table after %q", answerIDsPage, strings.TrimSpace(answerIDsHeading))
	}
	want := capacity.AnswerIDTable()
	if page[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile(answerIDsPage, []byte(page[:start]+want+page[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have := strings.Split(page[start:end], "\n")
	for i, line := range strings.Split(want, "\n") {
		if i >= len(have) || have[i] != line {
			t.Errorf("docs/%s's answer-id table differs from the declarations (capacity's declareAnswerID) at its line %d:\n have %q\n want %q\nrun make docs",
				answerIDsPage, i+1, at(have, i), line)
			return
		}
	}
	t.Errorf("docs/%s's answer-id table has rows no answer id declares: run make docs", answerIDsPage)
}

// tableAfter returns where the Markdown table that first follows heading
// in page starts and ends (its lines, each with its newline).
func tableAfter(page, heading string) (start, end int, ok bool) {
	h := strings.Index(page, heading)
	if h < 0 {
		return 0, 0, false
	}
	start = strings.Index(page[h:], "\n|")
	if start < 0 {
		return 0, 0, false
	}
	start += h + 1
	end = start
	for end < len(page) && page[end] == '|' {
		nl := strings.IndexByte(page[end:], '\n')
		if nl < 0 {
			return start, len(page), true
		}
		end += nl + 1
	}
	return start, end, true
}

// at is lines[i], or "" past its end.
func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}
