package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/errwriter"
)

// NewPlanReporter writes the analysis' answers for a terminal: each answer
// with its value, whether it meets the objective, the inputs it was computed
// from and the runs it rests on; then what cannot be answered and why.
func NewPlanReporter(a *capacity.Analysis) func(io.Writer) error {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		fmt.Fprintf(ew, "inputs: %s\n", runList(a.Runs))
		for _, p := range a.Incomplete {
			fmt.Fprintf(ew, "INCOMPLETE INPUT %s: %s; the answers rest only on what it finished\n", p.Run.Label, p.Reason)
		}
		for _, ans := range a.Answers {
			fmt.Fprintf(ew, "\n%s\n  = %s%s\n", ans.Question, ans.Value, verdict(ans))
			for i, in := range ans.Inputs {
				label := "        "
				if i == 0 {
					label = "inputs: "
				}
				fmt.Fprintf(ew, "  %s%s\n", label, in)
			}
			if ans.Sources != "" {
				fmt.Fprintf(ew, "  runs:   %s\n", ans.Sources)
			}
		}
		if len(a.Unanswered) > 0 {
			fmt.Fprintln(ew, "\ncannot answer:")
			for _, u := range a.Unanswered {
				fmt.Fprintf(ew, "  %s: %s\n", u.Question, u.Reason)
			}
		}
		return ew.Err()
	}
}

// verdict is the answer's qualifiers: meets or misses the objective, and
// whether it is an extrapolation.
func verdict(a capacity.Answer) string {
	var q []string
	for _, c := range a.Checks {
		q = append(q, c.Verdict())
	}
	if a.Extrapolated && a.Below {
		q = append(q, "extrapolated below the sizes measured")
	} else if a.Extrapolated {
		q = append(q, "extrapolated beyond the sizes measured")
	}
	if a.ShapeOutside != "" {
		q = append(q, "extrapolated "+a.ShapeOutside)
	}
	if len(q) == 0 {
		return ""
	}
	return "  (" + strings.Join(q, "; ") + ")"
}

// runList names the runs: "R1 /tmp/a/results.json (run 2026…), R2 …".
func runList(rs []*capacity.Run) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s = %s (run %s)", r.Label, r.Path, r.Results.RunID)
	}
	return strings.Join(parts, ", ")
}
