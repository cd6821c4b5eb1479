package capacity

import (
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/runs"
)

// Run is one results file as the planner reads it.
type Run struct {
	// Label is the short name figures cite: "R1", "R2", … in input order.
	Label string
	// Path is the results.json the run was read from.
	Path    string
	Results *runs.Results
}

// Name is the run's label and id, e.g. "R1 (20261129-184502-size-512MB)".
func (r *Run) Name() string { return fmt.Sprintf("%s (%s)", r.Label, r.Results.RunID) }

// ResultsPath resolves arg to a results.json: the file itself, or
// DIR/results.json for a run directory.
func ResultsPath(arg string) (string, error) {
	p, err := runs.ResultsPath(arg)
	var d *runs.DirWithoutResultsError
	if errors.As(err, &d) {
		return "", fmt.Errorf("%s is a directory without results.json", arg)
	}
	return p, err
}

// LoadRuns reads each argument (a results.json or a run directory) and
// labels the runs R1, R2, … in argument order. A run given twice (the same
// run id, under any path) is an error: its restores would count twice in
// every median, test and fit.
func LoadRuns(args []string) ([]*Run, error) {
	out := make([]*Run, 0, len(args))
	byID := map[string]int{}
	byMeasurement := map[measurementKey]int{}
	for i, a := range args {
		p, err := ResultsPath(a)
		if err != nil {
			return nil, err
		}
		r, err := runs.Load(p)
		if err != nil {
			return nil, err
		}
		if j, dup := byID[r.RunID]; dup {
			return nil, fmt.Errorf("%s: run %s is given twice (also as %s): each run counts once", a, r.RunID, args[j])
		}
		byID[r.RunID] = i
		for _, rec := range r.Restores {
			if rec.StartedAt.IsZero() {
				continue
			}
			secs, _, _ := rec.Measured()
			k := measurementKey{rec.Case, rec.Repeat, rec.StartedAt.UnixNano(), secs}
			if j, dup := byMeasurement[k]; dup && j != i {
				return nil, fmt.Errorf("%s: %s #%d is the measurement %s holds (same start %s, same %v s): the same run under another run id counts once",
					a, rec.Case, rec.Repeat, args[j], rec.StartedAt.Format(time.RFC3339Nano), secs)
			}
			byMeasurement[k] = i
		}
		out = append(out, &Run{Label: fmt.Sprintf("R%d", i+1), Path: p, Results: r})
	}
	return out, nil
}

// measurementKey identifies one measurement across runs: two runs never
// start the same case and repeat at the same nanosecond and time it alike.
type measurementKey struct {
	Case     string
	Repeat   int
	StartNs  int64
	Duration float64
}

// Obs is one verified, error-free restore: the unit every fit, rate and
// calibration is made of. Unverified or failed restores never count.
type Obs struct {
	Run     *Run
	Restore *runs.Restore
	// ChangelogBytes is the key+value bytes the restore read.
	ChangelogBytes float64
	// LiveBytes is the key+value bytes live in the stores afterwards.
	LiveBytes float64
	// Seconds is the time until the stores could serve: compare's total
	// seconds (the restore plus the ready phase when it was measured).
	Seconds float64
}

// Ref cites the restore: "R2 kstreams-default #3".
func (o Obs) Ref() string {
	return fmt.Sprintf("%s %s #%d", o.Run.Label, o.Restore.Case, o.Restore.Repeat)
}

// Observations lists the verified, error-free restores of rs, in input order.
func Observations(rs []*Run) []Obs {
	var out []Obs
	for _, run := range rs {
		for i := range run.Results.Restores {
			r := &run.Results.Restores[i]
			if !r.Counts() {
				continue
			}
			secs, _ := compare.MetricTotalSeconds.Value(*r)
			_, live := r.Verification.Totals()
			out = append(out, Obs{Run: run, Restore: r, ChangelogBytes: float64(r.Bytes), LiveBytes: float64(live), Seconds: secs})
		}
	}
	return out
}
