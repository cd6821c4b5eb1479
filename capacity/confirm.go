package capacity

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/runs"
)

// Effect is a setting's effect on one engine's cold restore time, against
// that engine's restores of Kafka Streams' defaults on the same fill:
// Median is median(setting) / median(defaults) - 1 (-0.10: 10% faster),
// and [Low, High] the run-to-run spread around it, from the extremes
// (fastest setting repeat over slowest defaults repeat, and the reverse).
type Effect struct {
	// N and BaseN are the verified repeats of the setting and of the
	// defaults the effect rests on.
	N, BaseN          int
	Median, Low, High float64
}

// Agreement verdicts of a ConfirmRow.
const (
	// Agree: the same direction on both engines, and the model's effect
	// within Kafka Streams' spread.
	Agree = "agree"
	// Disagree: another direction, or the model's effect outside Kafka
	// Streams' spread; ConfirmRow.Why says which.
	Disagree = "disagree"
	// UpperBoundOnly: Kafka Streams cannot apply the setting (a model-only
	// strategy): the model's figure is an upper bound, not confirmed.
	UpperBoundOnly = "upper bound, not confirmed"
	// NotMeasured: a side has no verified restore (an interrupted or
	// failed run), so nothing can be said.
	NotMeasured = "not measured"
	// Inconclusive: neither engine's spread excludes no effect at all, so
	// there is no effect to agree or disagree on; more repeats narrow it.
	Inconclusive = "inconclusive"
)

// ConfirmRow is one setting screened on the model and restored again on
// Kafka Streams (or not, for an upper bound), with its effect on each.
type ConfirmRow struct {
	// Fill is the fill confirmed ("" for a run of one fill).
	Fill string
	// Setting is what the case changes from Kafka Streams' defaults
	// ("compaction_style=level"), or its name when its record has none.
	Setting string
	// Model and KafkaStreams name the pair's cases (KafkaStreams empty for
	// an upper bound).
	Model, KafkaStreams string
	// ModelEffect and KafkaStreamsEffect are nil where that side has no
	// verified restore (or, for an upper bound, on Kafka Streams).
	ModelEffect, KafkaStreamsEffect *Effect
	// Verdict is Agree, Disagree, Inconclusive, UpperBoundOnly or
	// NotMeasured; Why says what decided it.
	Verdict, Why string
}

// Confirmations are the rows of every confirmation a run recorded, fill by
// fill, its pairs fastest on the model first, then its upper bounds.
func Confirmations(res *runs.Results) []ConfirmRow {
	var out []ConfirmRow
	for _, c := range res.Confirmations {
		secs := confirmSeconds(res.Restores, c.Fill)
		base := c.Baseline
		for _, p := range c.Pairs {
			row := ConfirmRow{Fill: c.Fill, Model: p.Model, KafkaStreams: p.KafkaStreams, Setting: settingOf(res.Restores, p.Model)}
			row.ModelEffect = effectOf(secs[p.Model], secs[base.Model])
			row.KafkaStreamsEffect = effectOf(secs[p.KafkaStreams], secs[base.KafkaStreams])
			row.Verdict, row.Why = Agreement(row.ModelEffect, row.KafkaStreamsEffect)
			out = append(out, row)
		}
		for _, u := range c.UpperBounds {
			out = append(out, ConfirmRow{Fill: c.Fill, Model: u.Model, Setting: settingOf(res.Restores, u.Model),
				ModelEffect: effectOf(secs[u.Model], secs[base.Model]), Verdict: UpperBoundOnly, Why: u.Why})
		}
	}
	return out
}

// confirmSeconds are the verified cold restore times of fill, by case.
func confirmSeconds(restores []runs.Restore, fill string) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range restores {
		if r.Step == nil || r.Step.FillLabel() != fill || !r.IsCold() || !r.Counts() {
			continue
		}
		if v, ok := compare.MetricRestoreSeconds.Value(r); ok {
			out[r.Case] = append(out[r.Case], v)
		}
	}
	return out
}

// settingOf is what case name changes from Kafka Streams' defaults, read
// from its first record.
func settingOf(restores []runs.Restore, name string) string {
	for _, r := range restores {
		if r.Case == name {
			if d := Differences(r.Params); len(d) > 0 {
				return strings.Join(d, ", ")
			}
			break
		}
	}
	return name
}

// effectOf is the effect of the setting's times against the defaults',
// nil when either has none.
func effectOf(setting, defaults []float64) *Effect {
	if len(setting) == 0 || len(defaults) == 0 {
		return nil
	}
	s, d := compare.StatOf(setting), compare.StatOf(defaults)
	if d.Median <= 0 || d.Min <= 0 || d.Max <= 0 {
		return nil
	}
	return &Effect{N: s.N, BaseN: d.N, Median: s.Median/d.Median - 1, Low: s.Min/d.Max - 1, High: s.Max/d.Min - 1}
}

// Agreement is the verdict on a pair: Agree when both engines move the
// same way and the model's effect lies within Kafka Streams' spread.
func Agreement(model, ks *Effect) (verdict, why string) {
	switch {
	case model == nil:
		return NotMeasured, "no verified model restore of the setting or the defaults"
	case ks == nil:
		return NotMeasured, "no verified Kafka Streams restore of the setting or the defaults"
	}
	if model.Low <= 0 && model.High >= 0 && ks.Low <= 0 && ks.High >= 0 {
		return Inconclusive, fmt.Sprintf("neither engine's spread excludes no effect (the model %s to %s, Kafka Streams %s to %s, "+
			"over %d and %d repeats): more repeats narrow them", EffectText(model.Low), EffectText(model.High), EffectText(ks.Low),
			EffectText(ks.High), model.N, ks.N)
	}
	sameWay := (model.Median < 0) == (ks.Median < 0) || model.Median == 0 || ks.Median == 0
	within := ks.Low <= model.Median && model.Median <= ks.High
	switch {
	case !sameWay:
		return Disagree, fmt.Sprintf("opposite directions: the model %s, Kafka Streams %s", EffectText(model.Median), EffectText(ks.Median))
	case !within:
		return Disagree, fmt.Sprintf("the model's %s lies outside Kafka Streams' spread %s to %s",
			EffectText(model.Median), EffectText(ks.Low), EffectText(ks.High))
	}
	return Agree, fmt.Sprintf("same direction, the model's %s within Kafka Streams' spread %s to %s",
		EffectText(model.Median), EffectText(ks.Low), EffectText(ks.High))
}

// EffectText writes an effect as a signed percentage of the defaults'
// time: "-12%" (faster), "+4%" (slower).
func EffectText(e float64) string { return fmt.Sprintf("%+.0f%%", 100*e) }
