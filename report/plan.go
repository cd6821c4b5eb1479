package report

import (
	"encoding/json"
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

// PlanJSON is plan's answers for scripts: the same fields the terminal
// shows, one object per answer, the unanswered questions with why, and the
// input runs (partial ones with their reason).
type PlanJSON struct {
	Runs       []PlanRun             `json:"runs"`
	Answers    []PlanAnswer          `json:"answers"`
	Unanswered []capacity.Unanswered `json:"unanswered"`
}

// PlanRun is one input run.
type PlanRun struct {
	Label, Path, RunID string
	// Partial says why the run is partial; empty when it is not.
	Partial string `json:",omitempty"`
}

// PlanAnswer is one answer: its value, each objective's check (met, the
// margin in seconds, inconclusive and why), whether it is extrapolated,
// what it was computed from and the runs it rests on.
type PlanAnswer struct {
	Question     string
	Value        string
	Checks       []PlanCheck `json:",omitempty"`
	Extrapolated bool
	Inputs       []string
	Sources      string
}

// PlanCheck is one objective's check.
type PlanCheck struct {
	RTOSeconds    float64
	Meets         bool
	MarginSeconds float64
	Inconclusive  bool
	Why           string `json:",omitempty"`
	Verdict       string
}

// NewPlanJSONReporter writes the analysis' answers as one JSON document.
func NewPlanJSONReporter(a *capacity.Analysis) func(io.Writer) error {
	return func(w io.Writer) error {
		doc := PlanJSON{Answers: []PlanAnswer{}, Unanswered: a.Unanswered}
		if doc.Unanswered == nil {
			doc.Unanswered = []capacity.Unanswered{}
		}
		partial := map[*capacity.Run]string{}
		for _, p := range a.Incomplete {
			partial[p.Run] = p.Reason
		}
		for _, r := range a.Runs {
			doc.Runs = append(doc.Runs, PlanRun{Label: r.Label, Path: r.Path, RunID: r.Results.RunID, Partial: partial[r]})
		}
		for _, ans := range a.Answers {
			pa := PlanAnswer{Question: ans.Question, Value: ans.Value, Extrapolated: ans.Extrapolated, Inputs: ans.Inputs, Sources: ans.Sources}
			for _, c := range ans.Checks {
				pa.Checks = append(pa.Checks, PlanCheck{RTOSeconds: c.RTO.Seconds(), Meets: c.Meets, MarginSeconds: c.Margin,
					Inconclusive: c.Inconclusive, Why: c.Why, Verdict: c.Verdict()})
			}
			doc.Answers = append(doc.Answers, pa)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
}

// verdict is the answer's qualifiers: meets or misses the objective, and
// whether it is an extrapolation.
func verdict(a capacity.Answer) string {
	var q []string
	for _, c := range a.Checks {
		q = append(q, c.Verdict())
	}
	if a.Extrapolated {
		q = append(q, "extrapolated beyond the sizes measured")
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
