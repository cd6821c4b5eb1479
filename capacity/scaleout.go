package capacity

import (
	"fmt"
	"github.com/restorebench/restorebench/config"
	"math"
	"strings"

	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// RowScaleOut is the scale-out row's label in the RTO table.
const RowScaleOut = "scale-out (warmup)"

// scaleOutRunText is what the scale-out row needs.
const scaleOutRunText = "a scale-out run (kafka-streams engine: `restorebench run scaleout`, or the capacity profile)"

// ScaleOut is one measured scale-out: instances added to a running
// application, and the time until the assignment was balanced with every
// task running on its final owner (KIP-441 warmups included).
type ScaleOut struct {
	Obs    Obs
	Record *runs.ScaleOutRecord
	// TaskBytes is the median changelog per task at the scale-out.
	TaskBytes float64
}

func init() {
	RegisterEvidence(EvidenceDef{Name: "scale-out", Derive: func(a *Analysis) (any, error) { return scaleOuts(a.Obs), nil }})
}

// ScaleOuts are the verified scale-outs, in input order.
func (a *Analysis) ScaleOuts() []*ScaleOut {
	s, _ := evidenceAs[[]*ScaleOut](a, "scale-out")
	return s
}

// scaleOuts lists the verified scale-outs, in input order.
func scaleOuts(obs []Obs) []*ScaleOut {
	var out []*ScaleOut
	for _, o := range obs {
		so := o.Restore.ScaleOut
		if so == nil || so.WarmupAssignmentSeconds <= 0 {
			continue
		}
		sizes := make([]float64, len(so.TaskTimelines))
		for i, t := range so.TaskTimelines {
			sizes[i] = float64(t.Offsets) * so.BytesPerOffset
		}
		out = append(out, &ScaleOut{Obs: o, Record: so, TaskBytes: runs.Median(sizes)})
	}
	return out
}

// Measured describes the scale-out in one line: "R1 scaleout #1: 1 → 2
// instances, 4 tasks of 67.1 MB, classic protocol, 1 probing round:
// 62.8 s (warmup model 66.0 s, +5.0%)".
func (s *ScaleOut) Measured() string {
	so := s.Record
	text := fmt.Sprintf("%s: %d → %d instances, %s of %s, %s protocol, %s: %s", s.Obs.Ref(), so.Before, so.After, Plural(so.Tasks, "task"),
		FormatBytes(s.TaskBytes), so.Protocol, Plural(so.ProbingRounds, "probing round"), FormatSeconds(so.WarmupAssignmentSeconds))
	if p := so.Prediction; p != nil {
		text += fmt.Sprintf(" (warmup model from the same run's inputs: %s, %+.1f%%)", FormatSeconds(p.TotalSeconds), so.PredictionErrorPct)
	}
	return text
}

// predictable is the first scale-out the warmup model can be asked about:
// one whose record carries the model's inputs.
func predictable(sos []*ScaleOut) *ScaleOut {
	for _, s := range sos {
		if p := s.Record.Prediction; p != nil && s.Record.BytesPerOffset > 0 {
			return s
		}
	}
	return nil
}

// maxPredictedOffsets bounds the search for the largest task: 10^13
// offsets, petabytes per task.
const maxPredictedOffsets = 1e13

// predictedSamples bounds the process-id orders sampled per prediction
// when a record does not know its order (the search asks many times).
const predictedSamples = 25

// predictSeconds is the warmup model's warmup-assignment time for the
// recorded scale-out with every task offsets long; +Inf when the warmups
// never catch up. The tasks are hypothetical changelogs starting at offset
// 0: the measured run's log start offsets belong to its sizes, not these.
func predictSeconds(in warmup.Inputs, offsets int64) float64 {
	in.TaskOffsets = warmup.Uniform(len(in.TaskOffsets), offsets)
	in.TaskLogStart = nil
	if len(in.Order) == 0 {
		in.Samples = predictedSamples
	}
	p, err := warmup.PredictTotal(in)
	if err != nil || !p.Converged {
		return math.Inf(1)
	}
	return p.TotalSeconds
}

// largestWithin is the largest task (offsets) whose scale-out the model
// predicts within seconds, by bisection: a larger task never finishes
// sooner. 0 when even empty tasks take longer.
func largestWithin(in warmup.Inputs, seconds float64) int64 {
	if predictSeconds(in, 0) > seconds {
		return 0
	}
	lo, hi := int64(0), int64(1000)
	for predictSeconds(in, hi) <= seconds {
		if float64(hi) >= maxPredictedOffsets {
			return hi
		}
		lo, hi = hi, hi*4
	}
	for hi-lo > max(1, lo/200) {
		mid := lo + (hi-lo)/2
		if predictSeconds(in, mid) <= seconds {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// scaleOutRow: the measured scale-outs in the basis, and per RTO the
// largest task the warmup model predicts the same scale-out finishes
// within: a prediction, labelled so.
func scaleOutRow(a *Analysis) RTORow {
	row := RTORow{Scenario: RowScaleOut}
	if len(a.ScaleOuts()) == 0 {
		row.Missing = "not measured in the inputs: needs " + scaleOutRunText
		return row
	}
	s := predictable(a.ScaleOuts())
	if s == nil {
		row.Missing = fmt.Sprintf("the inputs measure %s but none carries the warmup model's inputs (a restore rate and a balanced end): %s",
			Plural(len(a.ScaleOuts()), "scale-out"), scaleOutList(a.ScaleOuts()))
		return row
	}
	row.Measured, row.Predicted = true, true
	in := s.Record.Prediction.Inputs
	rateNote := ""
	in.RestoreRate, rateNote = scaleOutRestoreRate(a, s, in)
	perInstance := float64(ceilDiv(len(in.TaskOffsets), in.After))
	for _, rto := range a.Options.RTOs {
		task := float64(largestWithin(in, rto.Seconds())) * in.BytesPerOffset
		beyond := outside(task, 0, s.TaskBytes)
		c := RTOCell{RTO: rto, Task: Figure{Estimate: Estimate{Value: task, Extrapolated: beyond}, Unit: UnitBytes},
			Instance: Figure{Estimate: Estimate{Value: task * perInstance, Extrapolated: beyond}, Unit: UnitBytes}}
		if task == 0 {
			c.Text = fmt.Sprintf("none: even empty tasks take %s", FormatSeconds(predictSeconds(in, 0)))
		}
		row.Cells = append(row.Cells, c)
	}
	row.Basis = scaleOutBasis(a.ScaleOuts(), s, in)
	if rateNote != "" {
		row.Basis = append(row.Basis, rateNote)
	}
	var obs []Obs
	for _, so := range a.ScaleOuts() {
		obs = append(obs, so.Obs)
	}
	row.Sources = Refs(obs)
	return row
}

// scaleOutRestoreRate is the restore rate per thread the scale-out row's
// predictions use: the scale-out setup's, unless the cold-restore rate the
// other answers use was measured on more bytes a thread and disagrees with
// it by more than runs.DisagreeFactor; then that one (a rate from little
// work is mostly fixed cost), with a note naming both.
func scaleOutRestoreRate(a *Analysis, s *ScaleOut, in warmup.Inputs) (float64, string) {
	r := a.Rate
	if r == nil || in.BytesPerOffset <= 0 || in.RestoreRate <= 0 {
		return in.RestoreRate, ""
	}
	var offsets int64
	for _, n := range in.TaskOffsets {
		offsets += n
	}
	setupWork := warmup.SetupBytesPerThread(offsets, in.BytesPerOffset, in.Before, in.Threads)
	cold := r.PerThread / r.CalibrationFactor() / in.BytesPerOffset
	ratio := cold / in.RestoreRate
	if r.Hi <= setupWork || !runs.Disagree(cold, in.RestoreRate) {
		return in.RestoreRate, ""
	}
	if runs.EngineOf(r.Setup.Params) != config.EngineKafkaStreams && r.Calibration == nil {
		return in.RestoreRate, fmt.Sprintf("restore rate: the scale-out setup's %.0f offsets/s (%s, on %s a thread) "+
			"disagrees by ×%.1f with the cold-restore rate %s (%s, up to %s a thread), which was measured "+
			"on more work but on the model engine, uncalibrated, so it is not used: add a calibrate run, or "+
			"cold restores on the kafka-streams engine",
			in.RestoreRate, FormatRate(in.RestoreRate*in.BytesPerOffset), FormatBytes(setupWork), ratio,
			FormatRate(cold*in.BytesPerOffset), r.Label(), FormatBytes(r.Hi))
	}
	return cold, fmt.Sprintf("restore rate: the cold-restore rate %s (%s, measured up to %s a thread) rather than the "+
		"scale-out setup's %.0f offsets/s (%s, on %s a thread): they disagree by ×%.1f, and a rate "+
		"measured on little work is mostly fixed cost",
		FormatRate(cold*in.BytesPerOffset), r.Label(), FormatBytes(r.Hi), in.RestoreRate, FormatRate(in.RestoreRate*in.BytesPerOffset), FormatBytes(setupWork), ratio)
}

// scaleOutList lists the measured scale-outs.
func scaleOutList(sos []*ScaleOut) string {
	parts := make([]string, len(sos))
	for i, s := range sos {
		parts[i] = s.Measured()
	}
	return strings.Join(parts, "; ")
}

// scaleOutBasis: what was measured, and what the predictions assume.
func scaleOutBasis(sos []*ScaleOut, s *ScaleOut, in warmup.Inputs) []string {
	out := []string{"measured warmup-assignment time (new instances started → assignment balanced, every task running on its final owner): " + scaleOutList(sos)}
	out = append(out, fmt.Sprintf("the sizes are the warmup model's predictions, not measured at these sizes, for the "+
		"scale-out of %s: %d → %d instances, %s, num.stream.threads=%d, max.warmup.replicas=%d, "+
		"acceptable.recovery.lag=%d, probing.rebalance.interval.ms=%.0f, %.0f records/s written; restore "+
		"%.0f offsets/s per thread (%s), startup %s, rebalance %s as measured there; per instance is the "+
		"task × the %d tasks each of the %d instances ends with",
		s.Obs.Ref(), in.Before, in.After, Plural(len(in.TaskOffsets), "task"), in.Threads, in.MaxWarmupReplicas, in.AcceptableRecoveryLag,
		in.ProbingIntervalSeconds*1000, in.WriteRate, in.RestoreRate, FormatRate(in.RestoreRate*in.BytesPerOffset), FormatSeconds(in.StartupSeconds),
		FormatSeconds(in.RebalanceSeconds), ceilDiv(len(in.TaskOffsets), in.After), in.After))
	out = append(out, "a task moves only at a probing rebalance once its warmup is within acceptable.recovery.lag, so "+
		"the time grows in steps of the probing interval: an objective shorter than one interval is met "+
		"only by tasks small enough to move at the first rebalance")
	return out
}

func init() {
	registerAnswerer(answerer{order: 60, answer: scaleOutAnswers, scenarios: []config.Scenario{config.ScenarioScaleOut}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 200, IDs: []string{"scale_out_measured"}, Unit: UnitSeconds,
		Meaning: "a measured scale-out's warmup-assignment time (one answer each)"})
	registerRTORow(rtoRow{order: 60, scenarios: []config.Scenario{config.ScenarioScaleOut}, row: scaleOutRow})
	declareLacks(config.ScenarioScaleOut, contribRecommendation, "a scale-out's row and answers, beside the warmup model's "+
		"prediction, are the advice: no setting is compared")
	declareLacks(config.ScenarioScaleOut, contribUnknown, "the scale-out row says it is not measured, and labels its cells predictions")
}

// scaleOutAnswers: each measured scale-out, beside the model's prediction
// for it.
func scaleOutAnswers(a *Analysis) ([]Answer, []Unanswered) {
	var out []Answer
	for _, s := range a.ScaleOuts() {
		so := s.Record
		fig := measuredFigure(so.WarmupAssignmentSeconds, UnitSeconds)
		ans := Answer{
			ID:     "scale_out_measured",
			Figure: fig,
			Question: fmt.Sprintf("Scale-out %d → %d instances, %s of %s (measured warmup-assignment time)", so.Before,
				so.After, Plural(so.Tasks, "task"), FormatBytes(s.TaskBytes)),
			Value:   fig.Text(),
			Inputs:  []string{fmt.Sprintf("%s protocol, %s, tasks moved: %d", so.Protocol, Plural(so.ProbingRounds, "probing round"), so.Moved)},
			Sources: s.Obs.Ref(),
		}
		if p := so.Prediction; p != nil {
			ans.Inputs = append(ans.Inputs, fmt.Sprintf("%s for it: %s (%+.1f%%)", warmup.Label, FormatSeconds(p.TotalSeconds), so.PredictionErrorPct))
		}
		out = append(out, ans)
	}
	return out, nil
}
