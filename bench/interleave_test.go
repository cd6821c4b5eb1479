package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

func scheduleText(r caseRunner, names ...string) string {
	var cases []config.Case
	for _, n := range names {
		c := config.DefaultCase()
		c.Name = n
		cases = append(cases, c)
	}
	var out []string
	for _, j := range r.schedule(cases) {
		out = append(out, fmt.Sprintf("%s%d", j.c.Name, j.rep))
	}
	return strings.Join(out, " ")
}

// Without interleave every repeat of a case runs before the next case; with
// it the cases alternate repeat by repeat, every other round reversed (ABBA).
func TestScheduleInterleavesRepeats(t *testing.T) {
	if got := scheduleText(caseRunner{repeats: 2}, "a", "b", "c"); got != "a1 a2 b1 b2 c1 c2" {
		t.Fatalf("case by case: %s", got)
	}
	if got := scheduleText(caseRunner{repeats: 3, interleave: true}, "a", "b", "c"); got != "a1 b1 c1 c2 b2 a2 a3 b3 c3" {
		t.Fatalf("interleaved: %s", got)
	}
}
