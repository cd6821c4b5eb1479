package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// TestQueriesTableShowsTheAPILayersCounts: a kafka-streams restore's row
// carries its lookups that got no answer, its forwarded and its standby
// answers; a model restore's has none to show.
func TestQueriesTableShowsTheAPILayersCounts(t *testing.T) {
	ks := runs.Restore{Case: "ks", Queries: &runs.QueryFigures{Rate: 100, Lookups: 50, Refused: 9, Failed: 7, Answered: 41, Correct: 41, Forwarded: 13, FromStandby: 5}}
	ks.Params.Engine = config.EngineKafkaStreams
	model := runs.Restore{Case: "model", Queries: &runs.QueryFigures{Rate: 100, Lookups: 10, Answered: 10, Correct: 10}}
	model.Params.Engine = config.EngineModel
	var b bytes.Buffer
	printQueries(&b, []runs.Restore{ks, model})
	var ksRow, modelRow string
	for _, l := range strings.Split(b.String(), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "ks":
			ksRow = l
		case len(f) > 0 && f[0] == "model":
			modelRow = l
		}
	}
	if f := strings.Fields(ksRow); len(f) < 3 || strings.Join(f[len(f)-3:], " ") != "7 13 5" {
		t.Fatalf("kafka-streams row %q: want no answer 7, forwarded 13, standby 5 last\n%s", ksRow, b.String())
	}
	if f := strings.Fields(modelRow); len(f) < 3 || strings.Join(f[len(f)-3:], " ") != noFigure+" "+noFigure+" "+noFigure {
		t.Fatalf("model row %q: want no API layer figures\n%s", modelRow, b.String())
	}
}
