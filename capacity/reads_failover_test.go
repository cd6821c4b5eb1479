package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// failoverReadRecords are kills of a failover with a query load: one per
// outage, with a standby or not, stale reads or not.
func failoverReadRecords(name string, standby, stale bool, outages []float64) []runs.Restore {
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario = name, config.EngineKafkaStreams, config.ScenarioFailover
	c.Failover = config.DefaultFailover()
	c.Failover.Standby, c.Failover.Kills = standby, len(outages)
	c.Queries = &config.QueryLoad{Rate: 1000, Stale: stale}
	var out []runs.Restore
	for i, secs := range outages {
		served := secs + 1
		q := &runs.QueryFigures{Rate: 1000, Stale: stale, Lookups: 1000, Answered: 900, Refused: 100,
			Outage: &runs.ReadOutage{Partitions: []int32{0, 1}, Lookups: 500, Answered: 400, Refused: 100, LongestUnansweredSeconds: secs, ServedAgainSeconds: &served}}
		if standby && stale {
			q.Outage.FromStandby = 300
			q.StandbyLag = &runs.StandbyLag{Answers: 100, MeanRecords: 12, P99Records: 40, MaxRecords: 50, WriteRate: 500}
		}
		f := &runs.FailoverRecord{Kill: i + 1, Kills: len(outages), Killed: "i1", Survivor: "i2", Standby: standby, MaxGapSeconds: 7, RunningSeconds: 7,
			Takeover: runs.TakeoverPromoted, SessionTimeoutMs: 6000, Tasks: []runs.FailoverTask{{Task: "0_0", GapSeconds: 7}}}
		out = append(out, runs.Restore{Case: name, Step: &runs.Step{Case: name, Kind: runs.StepKill, Kill: i + 1}, Repeat: 1, Params: c,
			Partitions: 4, Verified: true, Failover: f, Queries: q})
	}
	return out
}

// TestReadOutageAnswersByWayOfServing: the failovers with a query load
// answer, per way their lookups were served, how soon the failed
// instance's keys were answered again (the worst kill, against each
// objective), and the RTO row takes the standby-and-stale-reads kills,
// any size meeting an objective above their worst outage, naming the
// other ways beside it. Without such kills nothing is answered and the
// row says how to measure it; with only some ways, the others are said
// missing.
func TestReadOutageAnswersByWayOfServing(t *testing.T) {
	rs := syntheticRuns()
	a := Analyze(rs, Options{RTOs: []time.Duration{time.Second, time.Minute}})
	if row := a.RTO.Row(RowReadsAfterFailover); row == nil || row.Measured || !strings.Contains(row.Missing, "queries-failover") {
		t.Fatalf("without query loads: row %+v", row)
	}
	for _, ans := range a.Answers {
		if strings.Contains(ans.Question, "answered again within") {
			t.Fatalf("answered without evidence: %+v", ans)
		}
	}
	res := rs[0].Results
	res.Restores = append(res.Restores, failoverReadRecords("ss", true, true, []float64{0.4, 1.5, 0.2})...)
	a = Analyze(rs, Options{RTOs: []time.Duration{time.Second, time.Minute}})
	var missing []string
	for _, u := range a.Unanswered {
		missing = append(missing, u.Question)
	}
	if m := strings.Join(missing, "|"); !strings.Contains(m, "with a standby, without stale reads") || !strings.Contains(m, "without a standby") {
		t.Errorf("unanswered %q: want the two ways not measured", m)
	}
	res.Restores = append(res.Restores, failoverReadRecords("sn", true, false, []float64{6.5, 8})...)
	res.Restores = append(res.Restores, failoverReadRecords("nn", false, false, []float64{9})...)
	a = Analyze(rs, Options{RTOs: []time.Duration{time.Second, time.Minute}})
	got := map[string]Answer{}
	for _, ans := range a.Answers {
		if strings.Contains(ans.Question, "answered again within") {
			got[ans.Question] = ans
		}
	}
	for way, want := range map[string]string{readsStandbyStale: "1.50 s of a failure (worst of 3 kills; median 0.4 s)",
		readsStandby: "8.00 s of a failure (worst of 2 kills", readsNoStandby: "9.00 s of a failure (worst of 1 kill"} {
		ans, ok := got[way+": lookups of a failed instance's keys answered again within"]
		if !ok || !strings.HasPrefix(ans.Value, want) {
			t.Errorf("%s: answer %+v, want %q", way, ans, want)
			continue
		}
		if len(ans.Checks) != 2 || ans.Checks[0].Meets || !ans.Checks[1].Meets || ans.Sources == "" {
			t.Errorf("%s: checks %+v, sources %q: want 1 s missed, 1 min met, the kills cited", way, ans.Checks, ans.Sources)
		}
	}
	ss := got[readsStandbyStale+": lookups of a failed instance's keys answered again within"]
	if in := strings.Join(ss.Inputs, " "); !strings.Contains(in, "at 500 records/s written: 12 behind on average, p99 40, max 50") || !strings.Contains(in, "900 answered from a standby") {
		t.Errorf("inputs %q: want the standby reads' lag and answers", in)
	}
	row := a.RTO.Row(RowReadsAfterFailover)
	if row == nil || !row.Measured || len(row.Cells) != 2 {
		t.Fatalf("row %+v", row)
	}
	if c := row.Cells[0]; c.Meets || !strings.Contains(c.Text, "not always: outage up to 1.50 s (median 0.4 s)") {
		t.Errorf("1 s cell %+v", c)
	}
	if c := row.Cells[1]; !c.Meets || c.Text != "any size (outage ≤ 1.50 s)" {
		t.Errorf("1 min cell %+v", c)
	}
	basis := strings.Join(row.Basis, " | ")
	for _, w := range []string{"with a standby, without stale reads the same kills left the keys unanswered up to 8.00 s", "without a standby the same kills left the keys unanswered up to 9.00 s"} {
		if !strings.Contains(basis, w) {
			t.Errorf("basis %q: want %q", basis, w)
		}
	}
}
