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
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 20, IDs: []string{"your_changelog_restore_kafka_streams", "your_changelog_restore_model"}, Unit: UnitSeconds,
		Meaning: "`--measure`: the median time to ready of that engine's cold restores of your changelog"})
	declareAnswerID(AnswerID{Row: 30, IDs: []string{"model_over_kafka_streams"}, Unit: UnitRatio,
		Meaning: "the model's median time over the real client's, on your changelog"})
}

// yourTopicAnswers answers, when the deployment names its changelog topic
// and the inputs restored it, what each engine's verified cold restores of
// it took, and with both engines their ratio.
func yourTopicAnswers(a *Analysis) ([]Answer, []Unanswered) {
	topic := a.Options.Deployment.topic()
	if topic == "" {
		return nil, nil
	}
	byEngine, what := yourTopicRestores(a, topic)
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
			Question: fmt.Sprintf("%s restored cold on the %s engine (measured)", what, e),
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
			Inputs:   []string{"medians of the verified cold restores of " + topic + " above (" + what + "), one engine each; the answers rest on the real client's"},
		})
	}
	return out, nil
}

// yourTopicRestores are the verified cold restores of topic by engine,
// and what they restored: the whole topic's where the inputs have them;
// else, for a changelog restored through a sample of its partitions, the
// largest sampled partition's restores alone (its slowest task), never a
// median over partitions of other sizes or over tasks restored together.
func yourTopicRestores(a *Analysis, topic string) (map[config.Engine][]Obs, string) {
	whole, parts := map[config.Engine][]Obs{}, map[config.Engine][]Obs{}
	for _, o := range a.Obs {
		r := o.Restore
		if r.Topic != topic || r.Params.Scenario != config.ScenarioCold {
			continue
		}
		e := runs.EngineOf(r.Params)
		if len(r.RestoredPartitions) == 0 {
			whole[e] = append(whole[e], o)
		} else if len(r.RestoredPartitions) == 1 {
			parts[e] = append(parts[e], o)
		}
	}
	if len(whole) > 0 {
		return whole, "Your changelog " + topic
	}
	var largest *Obs
	for _, obs := range parts {
		for i, o := range obs {
			if largest == nil || o.ChangelogBytes > largest.ChangelogBytes {
				largest = &obs[i]
			}
		}
	}
	if largest == nil {
		return nil, ""
	}
	p := largest.Restore.RestoredPartitions[0]
	out := map[config.Engine][]Obs{}
	for e, obs := range parts {
		for _, o := range obs {
			if o.Restore.RestoredPartitions[0] == p {
				out[e] = append(out[e], o)
			}
		}
	}
	return out, fmt.Sprintf("Partition %d of your changelog %s (the largest sampled, alone at its full size)", p, topic)
}
