package capacity

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// RowReadsAfterFailover is the RTO table's row for when a failed
// instance's keys are answered again after a SIGKILL, with a standby and
// stale reads: what the users of the application's API layer feel of a
// failover, not when its tasks are processed again.
const RowReadsAfterFailover = "lookups answered again (failover, standby + stale reads)"

// queriesFailoverRun is how to measure the read outage of a failover.
const queriesFailoverRun = "a kafka-streams failover with a queries block (the queries-failover profile)"

// Ways a failover's lookups can be served, as the answers name them.
const (
	readsStandbyStale = "With a standby and stale reads"
	readsStandby      = "With a standby, without stale reads"
	readsNoStandby    = "Without a standby"
)

// outageSet is the failover kills of one way with a query load
// (runs.ReadOutage): the longest span each left the killed instance's
// keys unanswered.
type outageSet struct {
	way         string
	id          string
	secs        []float64
	obs         []Obs
	servedAgain []float64
	lookups     int64
	refused     int64
	fromStandby int64
	lags        []*runs.StandbyLag
}

// readOutagesOf sorts the failover kills with a query load by the way
// they were served: standby and stale reads, standby alone, neither.
func readOutagesOf(obs []Obs) []*outageSet {
	sets := []*outageSet{{way: readsStandbyStale, id: "reads_again_standby_stale"}, {way: readsStandby, id: "reads_again_standby"},
		{way: readsNoStandby, id: "reads_again_no_standby"}}
	for _, o := range obs {
		f, q := o.Restore.Failover, o.Restore.Queries
		if f == nil || q == nil || q.Outage == nil {
			continue
		}
		s := sets[2]
		switch {
		case f.Standby && q.Stale:
			s = sets[0]
		case f.Standby:
			s = sets[1]
		}
		s.add(o, q)
	}
	return sets
}

// add counts one kill.
func (s *outageSet) add(o Obs, q *runs.QueryFigures) {
	out := q.Outage
	s.secs = append(s.secs, out.LongestUnansweredSeconds)
	s.obs = append(s.obs, o)
	if out.ServedAgainSeconds != nil {
		s.servedAgain = append(s.servedAgain, *out.ServedAgainSeconds)
	}
	s.lookups += out.Lookups
	s.refused += out.Refused
	s.fromStandby += out.FromStandby
	if q.StandbyLag != nil {
		s.lags = append(s.lags, q.StandbyLag)
	}
}

// worst is the longest outage of the set's kills.
func (s *outageSet) worst() float64 { return runs.Max(s.secs) }

// inputs say what the set's figure rests on.
func (s *outageSet) inputs() []string {
	out := []string{fmt.Sprintf("the longest span the killed instance's keys went unanswered, from the SIGKILL, over %s: worst %s, median %s",
		Plural(len(s.secs), "kill"), FormatSeconds(s.worst()), FormatSeconds(runs.Median(s.secs)))}
	if len(s.servedAgain) > 0 {
		out = append(out, fmt.Sprintf("every lookup answered again (the first answer after the last refusal) %s after the "+
			"kill at worst", FormatSeconds(runs.Max(s.servedAgain))))
	}
	if s.lookups > 0 {
		out = append(out, fmt.Sprintf("of %d lookups of those keys after the kills, %.1f%% refused or unanswered, %d answered from a standby",
			s.lookups, 100*float64(s.refused)/float64(s.lookups), s.fromStandby))
	}
	if lag := standbyLagText(s.lags); lag != "" {
		out = append(out, lag)
	}
	return out
}

// standbyLagText says how far behind the changelog's end standby reads were
// before the kills, per write rate ("" when not measured).
func standbyLagText(lags []*runs.StandbyLag) string {
	type agg struct {
		answers, max, p99 int64
		sum               float64
	}
	byRate := map[float64]*agg{}
	var rates []float64
	for _, l := range lags {
		g := byRate[l.WriteRate]
		if g == nil {
			g = &agg{}
			byRate[l.WriteRate] = g
			rates = append(rates, l.WriteRate)
		}
		g.answers += l.Answers
		g.sum += l.MeanRecords * float64(l.Answers)
		g.max, g.p99 = max(g.max, l.MaxRecords), max(g.p99, l.P99Records)
	}
	var parts []string
	for _, r := range rates {
		g := byRate[r]
		if g.answers > 0 {
			parts = append(parts,
				fmt.Sprintf("at %.0f records/s written: %.0f behind on average, p99 %d, max %d (%d answers)", r, g.sum/float64(g.answers), g.p99, g.max, g.answers))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "standby reads before the kills, in changelog records behind its end: " + strings.Join(parts, "; ")
}

func init() {
	registerAnswerer(answerer{order: 55, answer: readOutageAnswers, scenarios: []config.Scenario{config.ScenarioFailover}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 190, IDs: []string{"reads_again_standby_stale", "reads_again_standby", "reads_again_no_standby"}, Unit: UnitSeconds,
		Meaning: "after a failover with a query load, the worst time until a failed instance's keys are answered again, served as the id says, with `checks`"})
	registerRTORow(rtoRow{order: 50, scenarios: []config.Scenario{config.ScenarioFailover}, row: readsAfterFailoverRow})
}

// readOutageAnswers: for each way a failover's lookups were served
// (standby and stale reads, standby alone, neither), how soon the failed
// instance's keys were answered again, the worst of the kills measured,
// against each objective. Nothing is asked when no failover in the inputs
// ran a query load; once one did, a way not measured is said missing.
func readOutageAnswers(a *Analysis) ([]Answer, []Unanswered) {
	sets := readOutagesOf(a.Obs)
	measuredAny := false
	for _, s := range sets {
		measuredAny = measuredAny || len(s.secs) > 0
	}
	if !measuredAny {
		return nil, nil
	}
	var out []Answer
	var missing []Unanswered
	for _, s := range sets {
		q := s.way + ": lookups of a failed instance's keys answered again within"
		if len(s.secs) == 0 {
			missing = append(missing, Unanswered{Question: strings.ToLower(s.way[:1]) + s.way[1:] + ", how soon a failed instance's keys are answered again",
				Reason: "no failover of that kind with a query load in the inputs: needs " + queriesFailoverRun})
			continue
		}
		w := s.worst()
		fig := measuredFigure(w, UnitSeconds)
		out = append(out, Answer{
			ID:       s.id,
			Figure:   fig,
			Question: q,
			Value:    fmt.Sprintf("%s of a failure (worst of %s; median %s)", fig.Text(), Plural(len(s.secs), "kill"), FormatSeconds(runs.Median(s.secs))),
			Checks:   checks(measured(w, w, w), a.Options.RTOs),
			Inputs:   s.inputs(),
			Sources:  KillRefs(s.obs),
		})
	}
	return out, missing
}

// readsAfterFailoverRow: with a standby and stale reads a failed
// instance's keys are answered from the standby copy, whatever the
// state's size, so each objective is met or not by the worst outage
// measured; the other ways measured are said beside it.
func readsAfterFailoverRow(a *Analysis) RTORow {
	row := RTORow{Scenario: RowReadsAfterFailover}
	sets := readOutagesOf(a.Obs)
	s := sets[0]
	if len(s.secs) == 0 {
		row.Missing = "not measured in the inputs: needs " + queriesFailoverRun + " with a standby and stale reads"
		return row
	}
	row.Measured = true
	w, med := s.worst(), runs.Median(s.secs)
	for _, rto := range a.Options.RTOs {
		c := RTOCell{RTO: rto, Meets: w <= rto.Seconds()}
		switch {
		case c.Meets:
			c.Text = "any size (outage ≤ " + FormatSeconds(w) + ")"
		case med <= rto.Seconds():
			c.Text = fmt.Sprintf("not always: outage up to %s (median %s)", FormatSeconds(w), FormatSeconds(med))
		default:
			c.Text = "missed: median outage " + FormatSeconds(med)
		}
		row.Cells = append(row.Cells, c)
	}
	row.Basis = s.inputs()
	for _, o := range sets[1:] {
		if len(o.secs) > 0 {
			row.Basis = append(row.Basis, fmt.Sprintf("%s the same kills left the keys unanswered up to %s (median %s; %s)",
				strings.ToLower(o.way), FormatSeconds(o.worst()), FormatSeconds(runs.Median(o.secs)), KillRefs(o.obs)))
		}
	}
	row.Sources = KillRefs(s.obs)
	return row
}
