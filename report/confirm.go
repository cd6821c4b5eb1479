package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/runs"
)

// confirmLegend says what the columns of the confirmation table mean.
const confirmLegend = "effect: the setting's median cold restore time over the same engine's median with Kafka Streams' " +
	"defaults on the same fill, minus 1 (-10%: 10% faster), with its spread (fastest setting repeat over slowest " +
	"defaults repeat, to slowest over fastest) and the verified repeats (setting/defaults); agreement: the same " +
	"direction on both engines and the model's effect within Kafka Streams' spread, or not; inconclusive where neither " +
	"engine's spread excludes no effect; an upper bound is a setting Kafka Streams cannot apply (a model-only strategy), not confirmed."

// confirmColumns are the confirmation table's head.
var confirmColumns = []string{"fill", "setting", "model effect", "Kafka Streams effect", "agreement"}

// confirmCells are one row's cells.
func confirmCells(r capacity.ConfirmRow) []string {
	fill := r.Fill
	if fill == "" {
		fill = "-"
	}
	verdict := r.Verdict
	if r.Verdict == capacity.Disagree || r.Verdict == capacity.NotMeasured || r.Verdict == capacity.Inconclusive {
		verdict += ": " + r.Why
	}
	return []string{fill, fmt.Sprintf("%s (%s)", r.Setting, r.Model), effectCell(r.ModelEffect), effectCell(r.KafkaStreamsEffect), verdict}
}

// effectCell writes an effect with its spread and repeats, "-" without one.
func effectCell(e *capacity.Effect) string {
	if e == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s to %s, %d/%d)", capacity.EffectText(e.Median), capacity.EffectText(e.Low), capacity.EffectText(e.High), e.N, e.BaseN)
}

// confirmationBlocks show, for every run that confirmed its model
// screening on Kafka Streams, each setting's effect on both engines.
func confirmationBlocks(a *capacity.Analysis) []Block {
	var out []Block
	for _, run := range a.Runs {
		rows := capacity.Confirmations(run.Results)
		if len(rows) == 0 {
			continue
		}
		t := &Table{Head: confirmColumns, Legend: confirmLegend, Right: []bool{false, false, true, true, false}}
		for _, r := range rows {
			t.Rows = append(t.Rows, confirmCells(r))
		}
		out = append(out, &Heading{Text: fmt.Sprintf("Screened on the model, confirmed on Kafka Streams (%s)", run.Label)},
			&Para{Text: "The model restored every setting; the defaults and the fastest settings Kafka Streams can apply were " +
				"then restored on Kafka Streams in the same run, interleaved. A setting's effect counts for Kafka Streams " +
				"only where the two agree; where they disagree, Kafka Streams' column is the one to go by."}, t)
	}
	return out
}

// confirmTextLegend is confirmLegend in lines for a terminal.
var confirmTextLegend = []string{
	"effect: the setting's median cold restore time over the same engine's median with Kafka Streams' defaults on the",
	"same fill, minus 1 (-10%: 10% faster), with its spread (fastest setting repeat over slowest defaults repeat, to",
	"slowest over fastest) and the verified repeats (setting/defaults); agreement: the same direction on both engines and",
	"the model's effect within Kafka Streams' spread; inconclusive where neither engine's spread excludes no effect;",
	"an upper bound is a setting Kafka Streams cannot apply.",
}

// printConfirmations prints the run's confirmation table for `summary`,
// then what decided each verdict: nothing when it confirmed nothing.
func printConfirmations(w io.Writer, res *runs.Results) {
	rows := capacity.Confirmations(res)
	printed := textTable(w, "screened on the model, confirmed on Kafka Streams", strings.Join(confirmColumns, "\t"), confirmTextLegend,
		rows, func(r capacity.ConfirmRow) string {
			cells := confirmCells(r)
			cells[len(cells)-1] = r.Verdict
			return strings.Join(cells, "\t")
		})
	if !printed {
		return
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %s: %s: %s\n", r.Model, r.Verdict, r.Why)
	}
}
