package capacity

import (
	"errors"
	"fmt"
	"sort"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/runs"
)

// RowWarmRestart is the warm-restart row's label in the RTO table (not
// config.ScenarioWarm, the case setting "warm").
const RowWarmRestart = "warm restart"

// errNoWarm is why the inputs give no warm-restart rate.
var errNoWarm = errors.New("not measured in the inputs: needs a warm-restart run (`restorebench run warm`, or the " +
	"capacity profile: restarts with the state directory kept)")

// WarmRate is how fast a warm restart comes back. An instance restarted
// with its state directory kept replays only what was written to its
// changelogs while it was down, so its Rate is over the bytes of those
// changes, not over the state: seconds = Overhead + changes / PerThread for
// one stream thread, whatever the state's size.
type WarmRate struct {
	*Rate
	// Zero are the restarts with nothing written while down and
	// ZeroSeconds their median: what a restart costs before any record.
	Zero        []Obs
	ZeroSeconds float64
	// Cold are the sequences' cold baselines (the same state restored from
	// nothing), ColdSeconds their median.
	Cold        []Obs
	ColdSeconds float64
	// Fallback are restarts whose committed offsets lay below the log
	// start: they restored from the log start.
	Fallback []Obs
	// RecordBytes is the key+value bytes per changed record.
	RecordBytes float64
}

func init() {
	RegisterEvidence(EvidenceDef{Name: "warm", Derive: func(a *Analysis) (any, error) { return warmRate(a) }})
}

// Warm is the warm-restart rate the warm setups give, or why there is none.
func (a *Analysis) Warm() (*WarmRate, error) { return evidenceAs[*WarmRate](a, "warm") }

// warmRate derives the warm-restart rate from the warm setup with the most
// to go on (the kafka-streams engine first): a least-squares line through
// its restarts' times against the bytes of changes they replayed.
func warmRate(a *Analysis) (*WarmRate, error) {
	var setups []*Setup
	for _, s := range a.Setups {
		if s.Params.Scenario == config.ScenarioWarm {
			setups = append(setups, s)
		}
	}
	if len(setups) == 0 {
		return nil, errNoWarm
	}
	sort.SliceStable(setups, func(i, j int) bool { return better(setups[i], setups[j]) })
	s := setups[0]
	w := &WarmRate{}
	var steps []Obs
	var bytes, records float64
	for _, o := range s.Obs {
		switch o.Restore.StepKind() {
		case runs.StepCold:
			w.Cold = append(w.Cold, o)
		case runs.StepFallback:
			w.Fallback = append(w.Fallback, o)
		case runs.StepWarm:
			steps = append(steps, o)
			if o.Restore.Step.Changed == 0 {
				w.Zero = append(w.Zero, o)
			} else {
				bytes, records = bytes+o.ChangelogBytes, records+float64(o.Restore.Records)
			}
		}
	}
	if records == 0 {
		return nil, fmt.Errorf("the inputs hold warm restarts of %s, but none after records were written while it was down: add counts to warm.changed", s.Label())
	}
	w.Rate = rateFrom(s, steps)
	w.RecordBytes = bytes / records
	w.ZeroSeconds = medianSeconds(w.Zero)
	w.ColdSeconds = medianSeconds(w.Cold)
	return w, nil
}

// medianSeconds is the median time to ready of obs (0 for none).
func medianSeconds(obs []Obs) float64 {
	secs := make([]float64, len(obs))
	for i, o := range obs {
		secs[i] = o.Seconds
	}
	return runs.Median(secs)
}

// Records converts bytes of changes into records of the size measured.
func (w *WarmRate) Records(bytes float64) float64 { return bytes / w.RecordBytes }

// Summary is the rate in one line: "61.0 MB/s of changes per stream thread + 0.21 s per restart".
func (w *WarmRate) Summary() string {
	return fmt.Sprintf("%s of changes per stream thread + %s per restart", FormatRate(w.PerThread), FormatSeconds(w.Overhead))
}

// warmRestartRow: an instance restarted with its state directory kept
// replays what was written while it was down, so the row's sizes are that
// backlog per task and per instance, not the state.
func warmRestartRow(a *Analysis) RTORow {
	w, err := a.Warm()
	if w == nil {
		return RTORow{Scenario: RowWarmRestart, Missing: err.Error()}
	}
	row := RTORow{Scenario: RowWarmRestart, Measured: true, Quantity: QuantityChanges}
	row.Cells = answeredCells(a, "warm_backlog_task_within_rto", "warm_backlog_instance_within_rto")
	row.Basis = warmBasis(w, a.Options.Threads)
	row.Sources = Refs(append(append(append([]Obs(nil), w.Obs...), w.Cold...), w.Fallback...))
	return row
}

// warmBasis says what the warm row's cells are and rest on.
func warmBasis(w *WarmRate, threads int) []string {
	out := []string{
		"a warm restart replays only the records written to the changelog while the instance was down: the sizes are that " +
			"backlog of changes per task and per instance (bytes of key+value), not the size of the state, " +
			"which may be any",
		fmt.Sprintf("%s: %s; %s", w.Setup.ScenarioLabel(), w.Summary(), warmFitText(w)),
		fmt.Sprintf("a restart with 0 records changed took %s (%s): the fixed cost of reopening the stores", FormatSeconds(w.ZeroSeconds), Refs(w.Zero)),
		fmt.Sprintf("%s of changes is about %s records of %.0f bytes", FormatBytes(1e9), count(w.Records(1e9)), w.RecordBytes),
		threadsBasis(w.Rate, threads),
	}
	if len(w.Cold) > 0 {
		out = append(out,
			fmt.Sprintf("the cold restore of the same %s of state took %s (%s)", FormatBytes(w.Cold[0].ChangelogBytes), FormatSeconds(w.ColdSeconds), Refs(w.Cold)))
	}
	if len(w.Fallback) > 0 {
		out = append(out, fmt.Sprintf("when the committed offsets lie below the log start (retention, or an exactly-once "+
			"store wiped after an unclean shutdown) the restart restores from the log start: %s measured "+
			"(%s); the cold row applies then",
			FormatSeconds(medianSeconds(w.Fallback)), Refs(w.Fallback)))
	}
	return out
}

// warmFitText describes the line through the warm restarts.
func warmFitText(w *WarmRate) string {
	f := w.Fit
	if f == nil {
		return fmt.Sprintf("median rate of %d restarts after %s of changes (no line: it needs %d amounts of changes)",
			len(w.Obs), FormatBytes(w.Obs[0].ChangelogBytes), MinFitSizes)
	}
	return fmt.Sprintf("least-squares fit of time to ready against bytes of changes over %d restarts at %d amounts (%s to %s), R² %.3f",
		len(f.Points), len(f.Sizes), FormatBytes(f.Min()), FormatBytes(f.Max()), f.R2)
}

func init() {
	registerAnswerer(answerer{order: 40, answer: warmAnswers, scenarios: []config.Scenario{config.ScenarioWarm}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 120, IDs: []string{"warm_backlog_task_within_rto"}, Unit: UnitBytes, PerObjective: true,
		Meaning: "the largest backlog of changes a task's warm restart replays within the objective"})
	declareAnswerID(AnswerID{Row: 130, IDs: []string{"warm_backlog_instance_within_rto"}, Unit: UnitBytes, PerObjective: true,
		Meaning: "the same for an instance's threads"})
	registerRTORow(rtoRow{order: 30, scenarios: []config.Scenario{config.ScenarioWarm}, row: warmRestartRow})
	declareLacks(config.ScenarioWarm, contribRecommendation, "a warm restart's row and answers are the advice: keep the state "+
		"directory, and the backlog written while down is what replays")
	declareLacks(config.ScenarioWarm, contribUnknown, "the warm row says it is not measured, and what would measure it")
}

// warmAnswers: per RTO, the largest backlog of changes a task and an
// instance replay within it (the warm row's cells).
func warmAnswers(a *Analysis) ([]Answer, []Unanswered) {
	w, _ := a.Warm()
	if w == nil {
		return nil, nil
	}
	var out []Answer
	t := a.Options.Threads
	for _, rto := range a.Options.RTOs {
		rtoText := FormatRTO(rto)
		task := w.BytesWithin(rto.Seconds())
		taskFig, instFig := figureOf(task, UnitBytes), figureOf(task.Times(float64(t)), UnitBytes)
		inputs := []string{"RTO " + rtoText, w.Summary(), fmt.Sprintf("restart with nothing changed %s", FormatSeconds(w.ZeroSeconds))}
		out = append(out, Answer{
			ID:           "warm_backlog_task_within_rto",
			RTO:          rto,
			Figure:       taskFig,
			Question:     "Largest backlog of changes per task a warm restart replays within " + rtoText,
			Value:        fmt.Sprintf("%s of changes (%s records; any state size)", taskFig.Text(), count(w.Records(task.Value))),
			Extrapolated: task.Extrapolated,
			Below:        task.Below,
			Inputs:       inputs,
			Sources:      RunLabels(w.Obs),
		}, Answer{
			ID:           "warm_backlog_instance_within_rto",
			RTO:          rto,
			Figure:       instFig,
			Question:     fmt.Sprintf("Largest backlog of changes per instance (%s) a warm restart replays within %s", Plural(t, "stream thread"), rtoText),
			Value:        fmt.Sprintf("%s of changes (%s records)", instFig.Text(), count(w.Records(instFig.Value))),
			Extrapolated: task.Extrapolated,
			Below:        task.Below,
			Inputs:       append(inputs, threadsBasis(w.Rate, t)),
			Sources:      RunLabels(w.Obs),
		})
	}
	return out, nil
}

// count writes a record count compactly: "80,000", "1.23 M".
func count(n float64) string {
	switch {
	case n >= 1e9:
		return units.Sig3(n/1e9) + " G"
	case n >= 1e6:
		return units.Sig3(n/1e6) + " M"
	}
	s := fmt.Sprintf("%.0f", n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
