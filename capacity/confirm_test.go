package capacity_test

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// confirmRun is a run that screened three settings on the model and
// confirmed two on Kafka Streams: lz4 is faster on the model but slower on
// Kafka Streams (the model misleads), level is faster on both by about as
// much, and bulk is the model's own strategy, an upper bound.
func confirmRun() *runs.Results {
	ks := func(m func(*config.Case)) func(*config.Case) {
		return func(c *config.Case) { m(c); c.Engine = config.EngineKafkaStreams }
	}
	lz4 := func(c *config.Case) { c.RocksDB.Compression = "lz4" }
	level := func(c *config.Case) { c.RocksDB.CompactionStyle = "level" }
	const size = 256e6
	res := capacitytest.Run(0, size, []capacitytest.Case{
		{Name: "defaults", Modify: func(*config.Case) {}, Fixed: 10, Rate: 1e12},
		{Name: "lz4", Modify: lz4, Fixed: 8, Rate: 1e12},
		{Name: "level", Modify: level, Fixed: 9, Rate: 1e12},
		{Name: "bulk", Modify: func(c *config.Case) { c.Strategy = config.StrategyBulk }, Fixed: 5, Rate: 1e12},
		{Name: "defaults-ks", Modify: ks(func(*config.Case) {}), Fixed: 12, Rate: 1e12},
		{Name: "lz4-ks", Modify: ks(lz4), Fixed: 14, Rate: 1e12},
		{Name: "level-ks", Modify: ks(level), Fixed: 10.9, Rate: 1e12},
	})
	res.Confirmations = []runs.Confirmation{{K: 2,
		Baseline:    runs.ConfirmPair{Model: "defaults", KafkaStreams: "defaults-ks"},
		Pairs:       []runs.ConfirmPair{{Model: "lz4", KafkaStreams: "lz4-ks"}, {Model: "level", KafkaStreams: "level-ks"}},
		UpperBounds: []runs.UpperBound{{Model: "bulk", Why: "strategy: bulk is model-only"}}}}
	return res
}

func TestConfirmationsSayWhereTheModelMisleads(t *testing.T) {
	res := confirmRun()
	if err := res.Check(); err != nil {
		t.Fatalf("the synthetic run does not pass the results check: %v", err)
	}
	rows := capacity.Confirmations(res)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (two pairs and an upper bound): %+v", len(rows), rows)
	}
	byModel := map[string]capacity.ConfirmRow{}
	for _, r := range rows {
		byModel[r.Model] = r
	}
	lz4 := byModel["lz4"]
	if lz4.Verdict != capacity.Disagree || !strings.Contains(lz4.Why, "opposite directions") {
		t.Errorf("lz4 (model -20%%, Kafka Streams +17%%): %q: %s, want a disagreement of direction", lz4.Verdict, lz4.Why)
	}
	if lz4.ModelEffect == nil || lz4.ModelEffect.Median > -0.15 || lz4.KafkaStreamsEffect == nil || lz4.KafkaStreamsEffect.Median < 0.1 {
		t.Errorf("lz4's effects: model %+v, Kafka Streams %+v", lz4.ModelEffect, lz4.KafkaStreamsEffect)
	}
	if lz4.Setting != "compression=lz4" {
		t.Errorf("lz4's setting reads %q, want compression=lz4", lz4.Setting)
	}
	if level := byModel["level"]; level.Verdict != capacity.Agree {
		t.Errorf("level (model -10%%, Kafka Streams -9%%): %q: %s, want agree", level.Verdict, level.Why)
	}
	if bulk := byModel["bulk"]; bulk.Verdict != capacity.UpperBoundOnly || bulk.KafkaStreamsEffect != nil || bulk.ModelEffect == nil {
		t.Errorf("bulk: %+v, want an upper bound with the model's effect only", bulk)
	}
}

// A twin that never restored (the run was interrupted) is not measured,
// not an agreement.
func TestConfirmationWithoutItsTwinIsNotMeasured(t *testing.T) {
	res := confirmRun()
	var kept []runs.Restore
	for _, r := range res.Restores {
		if r.Case != "level-ks" {
			kept = append(kept, r)
		}
	}
	res.Restores = kept
	for _, r := range capacity.Confirmations(res) {
		if r.Model == "level" && r.Verdict != capacity.NotMeasured {
			t.Errorf("level without level-ks: %q (%s), want %q", r.Verdict, r.Why, capacity.NotMeasured)
		}
	}
}

// A results file naming a model case it has no restore of was not written
// by a run, which chooses the pairs from the model's restores.
func TestConfirmationOfAnUnknownCaseIsRefused(t *testing.T) {
	res := confirmRun()
	res.Confirmations[0].Pairs[0].Model = "nonesuch"
	err := res.Check()
	if err == nil || !strings.Contains(err.Error(), `model case "nonesuch" has no restore`) {
		t.Fatalf("Check: %v, want the unknown model case named", err)
	}
	res = confirmRun()
	res.Confirmations[0].K = 1
	if err := res.Check(); err == nil || !strings.Contains(err.Error(), "more than its k") {
		t.Fatalf("Check of 2 pairs with k 1: %v", err)
	}
}

// Two engines whose spreads both hold no effect at all have no effect to
// agree or disagree on: the verdict is inconclusive, not "disagree".
func TestConfirmationWithinNoiseOnBothIsInconclusive(t *testing.T) {
	model := &capacity.Effect{N: 2, BaseN: 2, Median: -0.05, Low: -0.23, High: 0.18}
	ks := &capacity.Effect{N: 2, BaseN: 2, Median: 0.07, Low: -0.08, High: 0.23}
	if v, why := capacity.Agreement(model, ks); v != capacity.Inconclusive || !strings.Contains(why, "more repeats") {
		t.Errorf("both spreads around zero: %q (%s), want inconclusive", v, why)
	}
	ks = &capacity.Effect{N: 4, BaseN: 4, Median: 0.07, Low: 0.02, High: 0.12}
	if v, _ := capacity.Agreement(model, ks); v != capacity.Disagree {
		t.Errorf("Kafka Streams slower beyond its spread, the model faster: %q, want disagree", v)
	}
}

// A strategy only the model has, beyond the spread in the model's group of
// a run that also confirmed settings on Kafka Streams, is a gain in every
// comparison that restored it: the kafka-streams group, where it could not
// run, is not a comparison it failed.
func TestUpperBoundCountsOnlyWhereItRan(t *testing.T) {
	a := capacity.Analyze([]*capacity.Run{{Label: "R1", Path: "x", Results: confirmRun()}}, capacity.Options{})
	var up *capacity.Recommendation
	for i, r := range a.Recommendations {
		if strings.HasPrefix(r.Title, "Upper bound") {
			up = &a.Recommendations[i]
		}
	}
	if up == nil || up.Case != "bulk" || !strings.Contains(up.Text, "in 1 of 1 run") || strings.Contains(up.Text, "not a consistent gain") {
		t.Fatalf("upper bound %+v, want bulk, beyond the spread in 1 of 1 run, a consistent gain", up)
	}
}
