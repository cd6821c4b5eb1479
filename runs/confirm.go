package runs

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
)

// Confirmation is what a run screened on the model and restored again on
// Kafka Streams for one fill (a profile's `confirm: K`): the model's
// default case and its K fastest settings that Kafka Streams can apply,
// each paired with its twin on the kafka-streams engine, restored in the
// same run, interleaved. The pairs are chosen from the model's verified
// cold restores of that fill, so the record says which they were rather
// than leaving a reader to match names.
type Confirmation struct {
	// Fill names the fill confirmed: its shape or sweep size ("" for a run
	// of one fill), as its restores' steps carry it.
	Fill string `json:"fill,omitempty"`
	// K is how many settings the profile asked to confirm beside the
	// default.
	K int `json:"k"`
	// Baseline is the default pair: the model case with Kafka Streams'
	// default settings and its kafka-streams twin.
	Baseline ConfirmPair `json:"baseline"`
	// Pairs are the confirmed settings, fastest on the model first.
	Pairs []ConfirmPair `json:"pairs"`
	// UpperBounds are model cases faster than the slowest confirmed one (or
	// any, when fewer than K could be confirmed) whose settings Kafka
	// Streams cannot apply (a model-only strategy): their model times are
	// upper bounds on what such a strategy could give, not confirmable.
	UpperBounds []UpperBound `json:"upper_bounds,omitempty"`
}

// ConfirmPair is one setting restored on both engines.
type ConfirmPair struct {
	// Model is the case's name on the model engine.
	Model string `json:"model"`
	// KafkaStreams is its twin's name on the kafka-streams engine (the
	// same settings; the model case's name and "-ks").
	KafkaStreams string `json:"kafka_streams"`
}

// UpperBound is a model case Kafka Streams cannot restore as it is.
type UpperBound struct {
	Model string `json:"model"`
	// Why is the setting Kafka Streams cannot apply, as config says it.
	Why string `json:"why"`
}

// maxConfirm bounds a confirmation's K: more settings than any run holds.
const maxConfirm = 1000

// checkConfirmations refuses confirmations a run cannot have written: K
// out of range, more pairs than K, a name that is no case name, or a
// model case the run holds no restore of (the pairs are chosen from the
// model's restores, so those came first). A kafka-streams twin may be
// missing: an interrupted run stops before it.
func (r *Results) checkConfirmations() error {
	cases := map[string]bool{}
	for _, rec := range r.Restores {
		cases[rec.Case] = true
	}
	for i, c := range r.Confirmations {
		if c.K < 1 || c.K > maxConfirm {
			return fmt.Errorf("confirmations[%d]: k %d is not between 1 and %d", i, c.K, maxConfirm)
		}
		if len(c.Pairs) > c.K {
			return fmt.Errorf("confirmations[%d]: %d pairs, more than its k %d", i, len(c.Pairs), c.K)
		}
		for j, p := range append([]ConfirmPair{c.Baseline}, c.Pairs...) {
			where := fmt.Sprintf("confirmations[%d].pairs[%d]", i, j-1)
			if j == 0 {
				where = fmt.Sprintf("confirmations[%d].baseline", i)
			}
			for _, name := range []string{p.Model, p.KafkaStreams} {
				if err := config.CheckName("case", name); err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
			}
			if !cases[p.Model] {
				return fmt.Errorf("%s: model case %q has no restore in this run", where, p.Model)
			}
		}
		for j, u := range c.UpperBounds {
			if !cases[u.Model] {
				return fmt.Errorf("confirmations[%d].upper_bounds[%d]: model case %q has no restore in this run", i, j, u.Model)
			}
		}
	}
	return nil
}
