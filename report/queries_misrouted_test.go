package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// TestQueriesTableTellsMisroutedApart: the lookups table shows how many of
// the wrong answers Kafka Streams misrouted, and a run with none shows the
// plain count.
func TestQueriesTableTellsMisroutedApart(t *testing.T) {
	rows := []runs.Restore{
		{Case: "streams", Repeat: 1, Queries: &runs.QueryFigures{Rate: 300, Lookups: 5575, Answered: 3263, Refused: 2312, Wrong: 451, Misrouted: 451}},
		{Case: "classic", Repeat: 1, Queries: &runs.QueryFigures{Rate: 300, Lookups: 5000, Answered: 5000, Wrong: 3}},
	}
	var b bytes.Buffer
	printQueries(&b, rows)
	out := b.String()
	if !strings.Contains(out, "451 (451 misrouted)") || strings.Contains(out, "3 (") || !strings.Contains(out, "misrouted, Kafka Streams' queryMetadataForKey") {
		t.Fatalf("table does not tell misrouted answers apart:\n%s", out)
	}
}
