package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The confirmation takes the defaults and the k fastest model settings
// Kafka Streams can apply, fastest first, and names the faster ones it
// cannot apply as upper bounds.
func TestChooseConfirmTakesTheFastestKafkaStreamsCanApply(t *testing.T) {
	synthetic := []capacitytest.Case{
		{Name: "defaults", Modify: func(*config.Case) {}, Fixed: 10, Rate: 1e12},
		{Name: "slow", Modify: func(c *config.Case) { c.BatchRecords = 100 }, Fixed: 12, Rate: 1e12},
		{Name: "fast", Modify: func(c *config.Case) { c.RocksDB.CompactionStyle = "level" }, Fixed: 8, Rate: 1e12},
		{Name: "bulk", Modify: func(c *config.Case) { c.Strategy = config.StrategyBulk }, Fixed: 5, Rate: 1e12},
	}
	res := capacitytest.Run(0, 256e6, synthetic)
	var cases []config.Case
	for _, c := range synthetic {
		for _, r := range res.Restores {
			if r.Case == c.Name {
				cases = append(cases, r.Params)
				break
			}
		}
	}
	choice, twins, err := chooseConfirm(res.Restores, cases, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if choice.Baseline != (runs.ConfirmPair{Model: "defaults", KafkaStreams: "defaults-ks"}) {
		t.Errorf("baseline %+v", choice.Baseline)
	}
	if len(choice.Pairs) != 1 || choice.Pairs[0].Model != "fast" || choice.Pairs[0].KafkaStreams != "fast-ks" {
		t.Errorf("k=1 confirms %+v, want fast (the fastest Kafka Streams can apply)", choice.Pairs)
	}
	if len(choice.UpperBounds) != 1 || choice.UpperBounds[0].Model != "bulk" || !strings.Contains(choice.UpperBounds[0].Why, "model-only") {
		t.Errorf("upper bounds %+v, want bulk, saying it is model-only", choice.UpperBounds)
	}
	if len(twins) != 2 || twins[0].Engine != config.EngineKafkaStreams || twins[1].Name != "fast-ks" ||
		twins[1].RocksDB.CompactionStyle != "level" {
		t.Errorf("twins %+v, want defaults-ks and fast-ks with fast's settings on kafka-streams", twins)
	}
	choice, _, err = chooseConfirm(res.Restores, cases, 2, "")
	if err != nil || len(choice.Pairs) != 2 || choice.Pairs[1].Model != "slow" {
		t.Errorf("k=2: %+v, %v; want fast then slow", choice.Pairs, err)
	}
	if _, _, err := chooseConfirm(res.Restores, cases[1:], 1, ""); err == nil || !strings.Contains(err.Error(), "default settings") {
		t.Errorf("without the defaults: %v, want an error saying there is nothing to compare with", err)
	}
}
