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

// queriesFailoverKill is kill k of a kafka-streams failover with a query
// load, stale reads on and a standby.
func queriesFailoverKill(k int) runs.Restore {
	p := config.DefaultCase()
	p.Name, p.Engine, p.Scenario = "standby-stale", config.EngineKafkaStreams, config.ScenarioFailover
	first, again := 0.02, 6.5
	q := &runs.QueryFigures{Rate: 1000, Stale: true, Lookups: 9000, Answered: 8800, Refused: 200, Failed: 3, Correct: 8700, StaleReads: 100,
		Forwarded: 40, FromStandby: 5000, Retried: 12, RetriedMaxMs: 310, Ranges: 90, RangesRefused: 2, RangeKeys: 1760, RangeLatency: &measure.Latency{Count: 88, P99Ms: 14.5}, ByInstance: map[string]int64{"i2": 8000, "i1": 800},
		RefusedWhy: []string{"InvalidStateStorePartitionException: partition 1", "owner unreachable"},
		Before:     &measure.Latency{Count: 100, P99Ms: 12.5}, During: measure.Latency{Count: 5000, P99Ms: 40}, After: measure.Latency{Count: 3000, P99Ms: 30},
		Outage: &runs.ReadOutage{KillSeconds: 4, Partitions: []int32{0, 2}, Lookups: 4000, Answered: 3900, Refused: 100, FromStandby: 2500,
			LongestUnansweredSeconds: 0.25, FirstAnsweredSeconds: &first, ServedAgainSeconds: &again, TakenOverSeconds: 6.4},
		StandbyLag: &runs.StandbyLag{Answers: 2000, MeanRecords: 3.4, P99Records: 20, MaxRecords: 35, WriteRate: 500}}
	if k == 2 {
		q.RangesBusy = 1 // one of the two refused for the range concurrency limit
	}
	f := &runs.FailoverRecord{Kill: k, Kills: 2, Standby: true, Tasks: []runs.FailoverTask{{Task: "0_0", GapSeconds: 7}}, MaxGapSeconds: 7, Takeover: runs.TakeoverPromoted}
	return runs.Restore{Case: p.Name, Step: &runs.Step{Case: p.Name, Kind: runs.StepKill, Kill: k}, Repeat: 1, Params: p, Verified: true, Failover: f, Queries: q}
}

// TestQueriesSectionShowsKafkaStreamsAndOutages: a kafka-streams failover
// with a query load puts into the Interactive queries section the API
// layer's figures (answers, no answer, forwarded, from a standby, the
// lookups it retried and its longest wait, by instance), the refusal reasons with the restores that gave them, and a
// row per kill of the read outage, and the recovery-time table its row;
// the synthetic runs without query loads have no such table.
func TestQueriesSectionShowsKafkaStreamsAndOutages(t *testing.T) {
	rs := syntheticRuns()
	res := rs[0].Results
	res.Restores = append(res.Restores, queriesFailoverKill(1), queriesFailoverKill(2))
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"## Interactive queries",
		"| R1 standby-stale #1 kill 2 | 8800 | 3 | 40 | 5000 | 12 (310 ms) | 90 (2, 1 for load) 14.5 | i1 800, i2 8000 |",
		"| R1 standby-stale #1 kill 1 | 8800 | 3 | 40 | 5000 | 12 (310 ms) | 90 (2) 14.5 | i1 800, i2 8000 |",
		"`owner unreachable` (R1 standby-stale #1 kill 1, R1 standby-stale #1 kill 2)",
		"| R1 standby-stale #1 kill 1 | true | true | 0.25 | 0.02 | 6.50 | 6.40 | 2.5% | 2500 | 3/20/35 | 500 | 12.5/40.0/30.0 |",
		"| lookups answered again (failover, standby + stale reads) | any size (outage ≤ 0.25 s) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	plain := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(build(t, capacity.Options{}))(w) })
	if strings.Contains(plain, "Read outage per kill") {
		t.Error("a report of runs without query loads has the read outage table")
	}
}
