package profiles

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
)

// MaxConfirm bounds confirm: more settings than a run restores.
const MaxConfirm = 1000

// ConfirmSuffix ends the name of a model case's twin on the kafka-streams
// engine: case put-lz4 is confirmed as put-lz4-ks.
const ConfirmSuffix = "-ks"

// SetConfirm sets how many model settings each fill confirms on Kafka
// Streams (the profile's confirm, or run --confirm), refusing what no run
// can do: a negative k, more settings than the plan's model cold-restore
// cases beside one with the defaults, or a twin's name (<case>-ks) that is
// another case's. Whether a case with Kafka Streams' defaults is among
// them is the planner's notion of defaults, checked before the run
// starts (bench).
func (p *Plan) SetConfirm(k int) error {
	if k == 0 {
		p.Confirm = 0
		return nil
	}
	if k < 0 || k > MaxConfirm {
		return &config.FieldError{Path: "confirm", Msg: fmt.Sprintf("%d is not between 0 and %d", k, MaxConfirm)}
	}
	names := map[string]bool{}
	var models []config.Case
	for _, c := range p.Cases {
		names[c.Name] = true
		if c.Engine == config.EngineModel && c.Scenario == config.ScenarioCold {
			models = append(models, c)
		}
	}
	if len(models) < 2 {
		return &config.FieldError{Path: "confirm", Msg: fmt.Sprintf("%d: confirm screens the model's cold-restore cases and confirms the fastest "+
			"on Kafka Streams, and this profile has %d such case(s); it needs the defaults and at least one setting", k, len(models))}
	}
	if k > len(models)-1 {
		return &config.FieldError{Path: "confirm", Msg: fmt.Sprintf("%d: the profile has %d model cold-restore settings beside the defaults",
			k, len(models)-1)}
	}
	for _, c := range models {
		twin := c.Name + ConfirmSuffix
		if names[twin] {
			return &config.FieldError{Path: "confirm", Msg: fmt.Sprintf("case %s would be confirmed on Kafka Streams as %s, which is "+
				"another case's name; rename one", c.Name, twin)}
		}
		if err := config.CheckName("name", twin); err != nil {
			return &config.FieldError{Path: "confirm", Msg: fmt.Sprintf("case %s's twin on Kafka Streams, %s: %v", c.Name, twin, err)}
		}
	}
	p.Confirm = k
	return nil
}
