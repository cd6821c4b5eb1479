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
	// Estimate is the figure the answer rests on, with its interval and
	// the calibration factor applied to it; nil for answers that are not
	// an estimate.
	Estimate *PlanEstimate `json:",omitempty"`
}

// PlanEstimate is an estimate with its interval: Value and Lo–Hi in Unit
// ("seconds" or "bytes"), how far beyond the measured sizes it lies, and
// the calibration factor it was scaled by, nil when uncalibrated.
type PlanEstimate struct {
	Unit          string
	Value, Lo, Hi float64
	Extrapolated  bool
	Beyond        float64
	Calibration   *PlanCalibration `json:",omitempty"`
}

// PlanCalibration is the factor a calibrated estimate took (Kafka Streams'
// restore time over the model's) and what it rests on: the bytes a thread
// it is for, the setting and changelog shape calibrated, the sizes
// calibrated, the fit, and the parts of its interval.
type PlanCalibration struct {
	Factor, Lo, Hi                         float64
	BytesPerThread                         float64
	SpreadLo, SpreadHi, Residual           float64
	Extrapolated                           bool
	Beyond                                 float64
	Setting, Shape                         string
	Sizes                                  int
	CalibratedMinBytes, CalibratedMaxBytes float64
	// Fit is Factor = Intercept + Slope × ln(bytes / ReferenceBytes), over
	// Pairs repeat pairs; nil with one size calibrated.
	Fit *PlanFactorFit `json:",omitempty"`
	// Match says how the setting was chosen when it is not the rate's own.
	Match string `json:",omitempty"`
}

// PlanFactorFit is a calibration curve's fit against log size.
type PlanFactorFit struct {
	Intercept, Slope, PerDoubling, ReferenceBytes float64
	Pairs                                         int
}

// planEstimate is an answer's estimate for the JSON, nil without one.
func planEstimate(ans capacity.Answer) *PlanEstimate {
	e := ans.Estimate
	if e == nil {
		return nil
	}
	out := &PlanEstimate{Unit: ans.EstimateUnit, Value: e.Value, Lo: e.Lo, Hi: e.Hi, Extrapolated: e.Extrapolated, Beyond: e.Beyond}
	if f := e.Factor; f != nil {
		c := f.Curve
		out.Calibration = &PlanCalibration{Factor: f.Value, Lo: f.Lo, Hi: f.Hi, BytesPerThread: f.Bytes,
			SpreadLo: f.SpreadLo, SpreadHi: f.SpreadHi, Residual: f.Residual, Extrapolated: f.Extrapolated, Beyond: f.Beyond,
			Setting: c.Setting, Shape: c.Shape, Sizes: c.Sizes(), CalibratedMinBytes: c.MinBytes(), CalibratedMaxBytes: c.MaxBytes(), Match: f.Match}
		if fit := c.Fit; fit != nil {
			out.Calibration.Fit = &PlanFactorFit{Intercept: fit.Intercept, Slope: fit.Slope, PerDoubling: fit.PerDoubling(),
				ReferenceBytes: capacity.FactorFitReference, Pairs: fit.N}
		}
	}
	return out
}

// PlanCheck is one objective's check.
type PlanCheck struct {
	RTOSeconds    float64
	Meets         bool
	MarginSeconds float64
	// AtLeast says MarginSeconds was taken at the estimate's interval's
	// end nearest the objective (the verdict's "by at least"), not at the
	// point estimate.
	AtLeast      bool `json:",omitempty"`
	Inconclusive bool
	Why          string `json:",omitempty"`
	Verdict      string
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
			pa := PlanAnswer{Question: ans.Question, Value: ans.Value, Extrapolated: ans.Extrapolated, Inputs: ans.Inputs, Sources: ans.Sources,
				Estimate: planEstimate(ans)}
			for _, c := range ans.Checks {
				pa.Checks = append(pa.Checks, PlanCheck{RTOSeconds: c.RTO.Seconds(), Meets: c.Meets, MarginSeconds: c.Margin, AtLeast: c.AtLeast,
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
	if a.Extrapolated && a.Below {
		q = append(q, "extrapolated below the sizes measured")
	} else if a.Extrapolated {
		q = append(q, "extrapolated beyond the sizes measured")
	}
	if a.RecordSizeOutside != "" {
		q = append(q, "extrapolated "+a.RecordSizeOutside+" the record sizes measured")
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
