package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// queriesMoves are a rolling restart of two instances and a scale-out,
// each with a query load.
func queriesMoves() []runs.Restore {
	served, first := 3.5, 0.4
	roll := config.DefaultCase()
	roll.Name, roll.Engine, roll.Scenario = "roll", config.EngineKafkaStreams, config.ScenarioRolling
	reads := func(longest float64) *runs.MoveReads {
		return &runs.MoveReads{Outage: &runs.ReadOutage{Partitions: []int32{0}, Lookups: 100, Answered: 80, Refused: 20, LongestUnansweredSeconds: longest,
			FirstAnsweredSeconds: &first, ServedAgainSeconds: &served, TakenOverSeconds: 4}, Lookups: 200, Answered: 170, Refused: 30,
			Before: measure.Latency{Count: 10, P99Ms: 1.5}, During: measure.Latency{Count: 170, P99Ms: 9}, After: measure.Latency{Count: 50, P99Ms: 2}}
	}
	q := &runs.QueryFigures{Rate: 300, Lookups: 1000, Answered: 900, Refused: 100, Correct: 900}
	r1 := runs.Restore{Case: roll.Name, Step: &runs.Step{Case: roll.Name, Kind: runs.StepRolling}, Repeat: 1, Params: roll, Verified: true, Queries: q,
		Rolling: &runs.RollingRecord{Instances: 2, Restarts: []runs.Restart{{Instance: "i0", Reads: reads(3.25)}, {Instance: "i1", Reads: reads(1.75)}}}}
	so := config.DefaultCase()
	so.Name, so.Engine, so.Scenario = "scale", config.EngineKafkaStreams, config.ScenarioScaleOut
	moved := []runs.ReadOutage{*reads(6.5).Outage, *reads(2).Outage}
	qs := &runs.QueryFigures{Rate: 300, Lookups: 1000, Answered: 900, Refused: 100, Correct: 900, Outage: runs.MergeOutages(moved),
		Before: &measure.Latency{Count: 5, P99Ms: 1}, During: measure.Latency{Count: 500, P99Ms: 20}, After: measure.Latency{Count: 300, P99Ms: 3}}
	r2 := runs.Restore{Case: so.Name, Step: &runs.Step{Case: so.Name, Kind: runs.StepScaleOut}, Repeat: 1, Params: so, Verified: true, Queries: qs,
		ScaleOut: &runs.ScaleOutRecord{Before: 1, After: 2, MovedReads: moved}}
	return []runs.Restore{r1, r2}
}

// TestOutagesOfMovesInReportAndSummary: each restart of a rolling restart
// and a scale-out's moved tasks get a row of the read outage table in the
// report, and a line in the summary, as a failover's kills do.
func TestOutagesOfMovesInReportAndSummary(t *testing.T) {
	rs := syntheticRuns()
	rs[0].Results.Restores = append(rs[0].Results.Restores, queriesMoves()...)
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"| R1 roll #1 restart of i0 | false | false | 3.25 | 0.40 | 3.50 | 4.00 | 20.0% | 0 | – | – | 1.5/9.0/2.0 |",
		"| R1 roll #1 restart of i1 | false | false | 1.75 |",
		"| R1 scale #1 scale-out | false | false | 6.50 | 0.40 | 3.50 | 4.00 | 20.0% | 0 | – | – | 1.0/20.0/3.0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	var b bytes.Buffer
	printReadOutages(&b, queriesMoves())
	for _, want := range []string{"read outage per kill, scale-out and restart", "restart of i1", "scale-out"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
