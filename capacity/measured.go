package capacity

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// The user's own changelog, restored (plan --measure, or restore --topic
// runs given as inputs): what each engine took on it, and the model's
// distance to the real client there.
func init() {
	registerAnswerer(answerer{order: 5, answer: yourTopicAnswers, scenarios: []config.Scenario{config.ScenarioCold}})
}

// yourTopicAnswers answers, when the deployment names its changelog topic
// and the inputs restored it, what each engine's verified cold restores of
// it took, and with both engines their ratio.
func yourTopicAnswers(a *Analysis) ([]Answer, []Unanswered) {
	topic := a.Options.Deployment.topic()
	if topic == "" {
		return nil, nil
	}
	byEngine := map[config.Engine][]Obs{}
	for _, o := range a.Obs {
		if o.Restore.Topic == topic && o.Restore.Params.Scenario == config.ScenarioCold {
			e := runs.EngineOf(o.Restore.Params)
			byEngine[e] = append(byEngine[e], o)
		}
	}
	var out []Answer
	med := map[config.Engine]float64{}
	for _, e := range []config.Engine{config.EngineKafkaStreams, config.EngineModel} {
		obs := byEngine[e]
		if len(obs) == 0 {
			continue
		}
		secs := make([]float64, len(obs))
		for i, o := range obs {
			secs[i] = o.Seconds
		}
		med[e] = runs.Median(secs)
		r, fig := obs[0].Restore, measuredFigure(med[e], UnitSeconds)
		out = append(out, Answer{
			ID:       "your_changelog_restore_" + strings.ReplaceAll(string(e), "-", "_"),
			Figure:   fig,
			Question: fmt.Sprintf("Your changelog %s restored cold on the %s engine (measured)", topic, e),
			Value: fmt.Sprintf("%s to ready, median of %s (%s–%s)", fig.Text(), Plural(len(obs), "restore"),
				FormatSeconds(runs.Min(secs)), FormatSeconds(runs.Max(secs))),
			Inputs: []string{fmt.Sprintf("%s records, %s of key+value, %s, %s; verified against an independent read of the topic",
				count(float64(r.Records)), FormatBytes(float64(r.Bytes)), Plural(int(r.Partitions), "partition"), Describe(r.Params))},
			Sources: Refs(obs),
		})
	}
	if ks, m := med[config.EngineKafkaStreams], med[config.EngineModel]; ks > 0 && m > 0 {
		fig := measuredFigure(m/ks, UnitRatio)
		out = append(out, Answer{
			ID:       "model_over_kafka_streams",
			Figure:   fig,
			Question: "The model against Kafka Streams on your changelog",
			Value:    fmt.Sprintf("the model took %s the real client's time (%s against %s)", fig.Text(), FormatSeconds(m), FormatSeconds(ks)),
			Inputs:   []string{"medians of the verified cold restores of " + topic + " above, one engine each; the answers rest on the real client's"},
		})
	}
	return out, nil
}
