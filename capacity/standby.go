package capacity

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// RowStandbyFailover is the standby-failover row's label in the RTO table.
const RowStandbyFailover = "standby failover"

// failoverRun is what the failover scenario needs: the real client and a
// broker that lets it create its topics.
const failoverRun = "a failover run with a standby (kafka-streams engine on a real broker: `restorebench --brokers HOST:PORT run failover`)"

// standbyRun is what the standby questions need.
const standbyRunText = "a standby run (`restorebench run standby`, or the capacity profile)"

// StandbyEvidence is what the standby records say: the highest write rate
// a standby kept up with and how fast it caught up after pauses.
type StandbyEvidence struct {
	// Steps are the verified rate steps (fixed rates and the search for the
	// highest) with a verdict, of one engine: the kafka-streams engine's
	// when there are any. Unjudged are that engine's rate steps that took
	// too few lag samples for one (runs.MinLagSamples): they count neither
	// way.
	Steps    []Obs
	Unjudged []Obs
	// Best is the step at the highest rate the standby sustained (nil when
	// it sustained none); BestRecords its written rate in records/s and
	// BestBytes in key+value bytes/s.
	Best                   *Obs
	BestRecords, BestBytes float64
	// AtLeast is true when the standby kept up with every rate tried, or
	// the producer, not the standby, limited Best: the standby's own limit
	// lies above it.
	AtLeast bool
	// Behind is the step at the lowest rate the standby fell behind at;
	// nil when it kept up with every rate tried.
	Behind *Obs
	// CatchUps are the pause steps, by pause length.
	CatchUps []CatchUp
	// AcceptableRecoveryLag is the acceptable.recovery.lag the steps used.
	AcceptableRecoveryLag int64
}

// CatchUp is a standby's catch-up after being stopped for PauseSeconds
// while the changelog was written at Rate records/s: Seconds (median over
// Obs) from its restart until its lag was within acceptable.recovery.lag.
type CatchUp struct {
	PauseSeconds, Rate, Seconds float64
	Obs                         []Obs
}

func init() {
	RegisterEvidence(EvidenceDef{Name: "standby", Derive: func(a *Analysis) (any, error) { return standbyEvidence(a.Obs), nil }})
	RegisterEvidence(EvidenceDef{Name: "failover", Derive: func(a *Analysis) (any, error) { return failoverEvidence(a.Obs), nil }})
}

// Standby is what the standby records say; nil without any.
func (a *Analysis) Standby() *StandbyEvidence {
	ev, _ := evidenceAs[*StandbyEvidence](a, "standby")
	return ev
}

// Failover is what the failover kills say; nil without a verified kill
// with a standby.
func (a *Analysis) Failover() *FailoverEvidence {
	ev, _ := evidenceAs[*FailoverEvidence](a, "failover")
	return ev
}

// standbyEvidence collects the standby steps; nil without any.
func standbyEvidence(obs []Obs) *StandbyEvidence {
	all, pauses := standbySteps(obs)
	if len(all) == 0 && len(pauses) == 0 {
		return nil
	}
	var steps, unjudged []Obs
	for _, o := range all {
		if o.Restore.Standby.Judged() {
			steps = append(steps, o)
		} else {
			unjudged = append(unjudged, o)
		}
	}
	ev := &StandbyEvidence{Steps: steps, Unjudged: unjudged}
	for i := range steps {
		o := &steps[i]
		sb := o.Restore.Standby
		ev.AcceptableRecoveryLag = sb.AcceptableRecoveryLag
		switch {
		case sb.Sustained && (ev.Best == nil || sb.WrittenRate > ev.BestRecords):
			ev.Best, ev.BestRecords, ev.AtLeast = o, sb.WrittenRate, sb.ProducerLimited
			ev.BestBytes = sb.WrittenRate * recordBytes(*o)
		case !sb.Sustained && (ev.Behind == nil || sb.TargetRate < ev.Behind.Restore.Standby.TargetRate):
			ev.Behind = o
		}
	}
	// Kept up with every rate tried: its own limit lies above the best.
	ev.AtLeast = ev.AtLeast || (ev.Best != nil && ev.Behind == nil)
	ev.CatchUps = catchUps(pauses)
	return ev
}

// standbySteps splits the verified standby records into rate steps and
// pause steps, keeping one engine: the real client's when it has steps.
func standbySteps(obs []Obs) (steps, pauses []Obs) {
	for _, engine := range []config.Engine{config.EngineKafkaStreams, config.EngineModel} {
		for _, o := range obs {
			sb := o.Restore.Standby
			if sb == nil || runs.EngineOf(o.Restore.Params) != engine {
				continue
			}
			switch k := o.Restore.StepKind(); {
			case k.IsRate():
				steps = append(steps, o)
			case k == runs.StepPause:
				pauses = append(pauses, o)
			}
		}
		if len(steps)+len(pauses) > 0 {
			return steps, pauses
		}
	}
	return nil, nil
}

// recordBytes is the key+value bytes per record a step applied.
//
// A kafka-streams standby reports records, not bytes: its records are the
// fill's generator continued, so they take the fill's bytes per record.
func recordBytes(o Obs) float64 {
	if o.Restore.Records > 0 && o.ChangelogBytes > 0 {
		return o.ChangelogBytes / float64(o.Restore.Records)
	}
	if f := o.Run.Results.Fill; f != nil && f.Records > 0 {
		return float64(f.Bytes) / float64(f.Records)
	}
	return 0
}

// catchUps groups pause steps by pause length, shortest first.
func catchUps(pauses []Obs) []CatchUp {
	index := map[float64]int{}
	var out []CatchUp
	for _, o := range pauses {
		sb := o.Restore.Standby
		if sb.CatchUpSeconds <= 0 {
			continue
		}
		i, ok := index[sb.PauseSeconds]
		if !ok {
			i = len(out)
			index[sb.PauseSeconds] = i
			out = append(out, CatchUp{PauseSeconds: sb.PauseSeconds, Rate: sb.TargetRate})
		}
		out[i].Obs = append(out[i].Obs, o)
	}
	for i := range out {
		secs := make([]float64, len(out[i].Obs))
		for j, o := range out[i].Obs {
			secs[j] = o.Restore.Standby.CatchUpSeconds
		}
		out[i].Seconds = runs.Median(secs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PauseSeconds < out[j].PauseSeconds })
	return out
}

// Sustained is the highest sustained rate in words: "37.0 MB/s (80,000
// records/s)", with "at least" when the producer was the limit.
func (ev *StandbyEvidence) Sustained() string {
	if ev.Best == nil && len(ev.Steps) == 0 {
		return "not measured"
	}
	if ev.Best == nil {
		return "none of the rates tried"
	}
	s := fmt.Sprintf("%s (%s records/s)", FormatRate(ev.BestBytes), count(ev.BestRecords))
	if ev.AtLeast {
		s = "at least " + s
	}
	return s
}

// SustainedBasis says what the sustained rate rests on.
func (ev *StandbyEvidence) SustainedBasis() string {
	if len(ev.Steps) == 0 {
		if len(ev.Unjudged) > 0 {
			return fmt.Sprintf("no rate step took the %d lag samples while writing that a verdict needs (%s without: lengthen "+
				"standby.duration or shorten standby.sample)",
				runs.MinLagSamples, Plural(len(ev.Unjudged), "step"))
		}
		return "no rate step measured it (only pauses)"
	}
	s := fmt.Sprintf("the highest write rate at which the standby's lag stayed bounded and it caught up within a second "+
		"of the writes stopping, over %s on the %s engine",
		Plural(len(ev.Steps), "rate step"), runs.EngineOf(ev.Steps[0].Restore.Params))
	switch {
	case ev.AtLeast && ev.Best.Restore.Standby.ProducerLimited:
		s += "; the producer could not write faster here, so the standby's own limit lies above it"
	case ev.AtLeast:
		s += "; it kept up with every rate tried, so its own limit lies above it"
	}
	if b := ev.Behind; b != nil {
		s += fmt.Sprintf("; it fell behind at %s records/s (%s)", count(b.Restore.Standby.TargetRate), b.Ref())
	}
	if n := len(ev.Unjudged); n > 0 {
		s += fmt.Sprintf("; %s with fewer than %d lag samples while writing not counted", Plural(n, "step"), runs.MinLagSamples)
	}
	return s
}

// CatchUpText lists the catch-ups: "5 s pause: 0.61 s; 15 s pause: 1.32 s".
func (ev *StandbyEvidence) CatchUpText() string {
	var parts []string
	for _, c := range ev.CatchUps {
		parts = append(parts, fmt.Sprintf("%s pause: %s", FormatSeconds(c.PauseSeconds), FormatSeconds(c.Seconds)))
	}
	return strings.Join(parts, "; ")
}

// FailoverEvidence is what the failover records with a standby say: per
// SIGKILL, the processing gap until the survivor processed the killed
// instance's tasks again.
type FailoverEvidence struct {
	// Kills are the verified kill records with a standby; Gaps their
	// longest task gaps, Median and Worst over them.
	Kills         []Obs
	Gaps          []float64
	Median, Worst float64
	// Detection is the median time from a kill to the survivor's
	// rebalance; SessionTimeoutMs the session.timeout.ms that bounds it.
	Detection        float64
	SessionTimeoutMs int64
	// Takeovers counts the kills by how the survivor took over.
	Takeovers map[string]int
	// NoStandby are the verified kills without a standby, NoStandbyMedian
	// their median gap, for contrast.
	NoStandby       []Obs
	NoStandbyMedian float64
	// Unresolved counts the kills left out: their gaps lay within the
	// clocks' bound across hosts, so they measure nothing.
	Unresolved int
	// ClockBound is the largest clocks' bound of the kills counted (0 on
	// one host): each of Gaps is its kill's gap plus its bound, the
	// longest the gap can have been.
	ClockBound float64
}

// failoverEvidence collects the failover kills; nil without a verified
// kill with a standby.
func failoverEvidence(obs []Obs) *FailoverEvidence {
	ev := &FailoverEvidence{Takeovers: map[string]int{}}
	var det, without []float64
	for _, o := range obs {
		f := o.Restore.Failover
		if f == nil || len(f.Tasks) == 0 {
			continue
		}
		if !f.GapResolved() {
			ev.Unresolved++
			continue
		}
		// Across hosts a gap is known only to within the clocks' bound:
		// the evidence takes its longest possible value.
		gap := f.MaxGapSeconds + f.ClockBoundSeconds
		ev.ClockBound = max(ev.ClockBound, f.ClockBoundSeconds)
		if !f.Standby {
			ev.NoStandby = append(ev.NoStandby, o)
			without = append(without, gap)
			continue
		}
		ev.Kills = append(ev.Kills, o)
		ev.Gaps = append(ev.Gaps, gap)
		ev.Takeovers[f.Takeover]++
		ev.SessionTimeoutMs = max(ev.SessionTimeoutMs, f.SessionTimeoutMs)
		if f.DetectionSeconds > 0 {
			det = append(det, f.DetectionSeconds)
		}
	}
	if len(ev.Kills) == 0 {
		return nil
	}
	ev.Median, ev.Worst, ev.Detection = runs.Median(ev.Gaps), runs.Max(ev.Gaps), runs.Median(det)
	ev.NoStandbyMedian = runs.Median(without)
	return ev
}

// Summary is the gaps in one line: "median 7.9 s, worst 9.8 s over 5 kills".
func (ev *FailoverEvidence) Summary() string {
	s := fmt.Sprintf("processing gap median %s, worst %s over %s", FormatSeconds(ev.Median), FormatSeconds(ev.Worst), Plural(len(ev.Kills), "SIGKILL"))
	if ev.ClockBound > 0 {
		s += fmt.Sprintf(" (each gap plus the clocks' bound across hosts, up to %s)", FormatSeconds(ev.ClockBound))
	}
	if ev.Unresolved > 0 {
		s += fmt.Sprintf(" (%s left out: their gaps lay within the clocks' bound across hosts)", Plural(ev.Unresolved, "kill"))
	}
	return s
}

// TakeoverText lists how the survivors took over: "5 standby promoted".
func (ev *FailoverEvidence) TakeoverText() string {
	names := map[string]string{runs.TakeoverPromoted: "standby promoted", runs.TakeoverWarm: "warm restore", runs.TakeoverRestored: "restored from scratch",
		runs.TakeoverNone: "nothing to restore", runs.TakeoverMixed: "mixed"}
	var kinds []string
	for k := range ev.Takeovers {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		name := names[k]
		if name == "" {
			name = k
		}
		parts = append(parts, fmt.Sprintf("%d %s", ev.Takeovers[k], name))
	}
	return strings.Join(parts, ", ")
}

// KillRefs cites kill records by run, case and repeat with their kill
// numbers: "R5 eos-standby #1 kills 1-5".
func KillRefs(obs []Obs) string {
	type group struct {
		key   string
		kills []int
	}
	var groups []*group
	index := map[string]*group{}
	for _, o := range obs {
		k := fmt.Sprintf("%s %s #%d", o.Run.Label, o.Restore.Case, o.Restore.Repeat)
		g, ok := index[k]
		if !ok {
			g = &group{key: k}
			index[k] = g
			groups = append(groups, g)
		}
		g.kills = append(g.kills, o.Restore.Failover.Kill)
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%s kills %s", g.key, ranges(g.kills))
	}
	return strings.Join(parts, ", ")
}

// standbyFailoverRow: a survivor holding a caught-up standby promotes it
// and restores only its lag, so the recovery time does not grow with the
// state: each cell says whether the objective is met, and at what gap.
func standbyFailoverRow(a *Analysis) RTORow {
	row := RTORow{Scenario: RowStandbyFailover}
	f := a.Failover()
	if f == nil {
		row.Missing = failoverMissing(a)
		return row
	}
	row.Measured = true
	for _, rto := range a.Options.RTOs {
		c := RTOCell{RTO: rto, Meets: f.Worst <= rto.Seconds()}
		switch {
		case c.Meets:
			c.Text = "any size (gap ≤ " + FormatSeconds(f.Worst) + ")"
		case f.Median <= rto.Seconds():
			c.Text = fmt.Sprintf("not always: gap up to %s (median %s)", FormatSeconds(f.Worst), FormatSeconds(f.Median))
		default:
			c.Text = "missed: median gap " + FormatSeconds(f.Median)
		}
		row.Cells = append(row.Cells, c)
	}
	row.Basis = failoverBasis(a)
	row.Sources = KillRefs(f.Kills)
	return row
}

// failoverMissing says why the inputs give no standby failover: the
// standby row's and the failover answer's reason.
func failoverMissing(a *Analysis) string {
	if a.Standby() != nil {
		return "the inputs measure a standby keeping up (see the answers) but no failover: needs " + failoverRun
	}
	return "not measured in the inputs: needs " + failoverRun
}

// failoverBasis says what the standby row rests on and what it assumes.
func failoverBasis(a *Analysis) []string {
	f := a.Failover()
	out := []string{
		fmt.Sprintf("%s (last record the killed instance processed to the first its survivor processed, per task); takeovers: %s", f.Summary(), f.TakeoverText()),
		fmt.Sprintf("with a caught-up standby the survivor restores only the standby's lag, so the gap is failure "+
			"detection and a rebalance and does not grow with the state: detection took %s (median; "+
			"session.timeout.ms=%d in these runs, Kafka's default is %d)",
			FormatSeconds(f.Detection), f.SessionTimeoutMs, warmup.DefaultSessionTimeout.Milliseconds()),
		"the standby must keep up with the write rate for this to hold: " + standbyKeepUpText(a),
	}
	if len(f.NoStandby) > 0 {
		out = append(out, fmt.Sprintf("without a standby the same kills left a median gap of %s (%s)", FormatSeconds(f.NoStandbyMedian), KillRefs(f.NoStandby)))
	}
	return out
}

// standbyKeepUpText is the standby's measured limit, or its absence.
func standbyKeepUpText(a *Analysis) string {
	if ev := a.Standby(); ev != nil && len(ev.Steps) == 0 {
		return "the standby run in the inputs does not measure the rate it sustains: " + ev.SustainedBasis()
	}
	if ev := a.Standby(); ev != nil {
		return "it sustained " + ev.Sustained() + " here (" + Refs(ev.Steps) + ")"
	}
	return "no standby run in the inputs measures the rate it sustains (" + standbyRunText + ")"
}

func init() {
	registerAnswerer(answerer{order: 50, answer: standbyAnswers, scenarios: []config.Scenario{config.ScenarioStandby, config.ScenarioFailover}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 140, IDs: []string{"standby_sustained_write_rate"}, Unit: UnitBytesPerSecond,
		Meaning: "the highest write rate a standby kept up with (null when none was)"})
	declareAnswerID(AnswerID{Row: 150, IDs: []string{"standby_failover"}, Unit: UnitSeconds,
		Meaning: "`--standbys`: the worst processing gap of a failover to a standby, with `checks`"})
	declareAnswerID(AnswerID{Row: 160, IDs: []string{"standby_keeps_up"},
		Meaning: "`--write-rate`: whether a standby keeps up with it (`text`: yes, no or unknown)"})
	declareAnswerID(AnswerID{Row: 170, IDs: []string{"recovery_without_standby"}, Unit: UnitSeconds,
		Meaning: "the recovery after an instance fails without a standby (failure detection included), with `checks`"})
	declareAnswerID(AnswerID{Row: 180, IDs: []string{"standby_needed"},
		Meaning: "whether a standby is needed for each objective (`text`; the numbers are `recovery_without_standby`'s checks)"})
}

// standbyAnswers: the highest write rate a standby sustains, against the
// deployment's write rate; a failover with num.standby.replicas; and per
// RTO whether a standby is needed at all.
func standbyAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d := a.Options.Deployment
	var out []Answer
	var missing []Unanswered
	if ev := a.Standby(); ev != nil {
		out = append(out, sustainedAnswer(ev))
	}
	if d.Standbys > 0 {
		if ans, miss := failoverAnswer(a); miss != nil {
			missing = append(missing, *miss)
		} else {
			out = append(out, ans)
		}
	}
	if d.WriteRate > 0 {
		if ans, miss := keepUpAnswer(a); miss != nil {
			missing = append(missing, *miss)
		} else {
			out = append(out, ans)
		}
	}
	as, ms := standbyNeededAnswers(a)
	return append(out, as...), append(missing, ms...)
}

func sustainedAnswer(ev *StandbyEvidence) Answer {
	ans := Answer{
		ID:       "standby_sustained_write_rate",
		Question: "Highest write rate a standby sustained (measured)",
		Value:    ev.Sustained(),
		Inputs:   []string{ev.SustainedBasis()},
		Sources:  Refs(ev.Steps),
	}
	if ev.Best != nil {
		ans.Figure = measuredFigure(ev.BestBytes, UnitBytesPerSecond)
	}
	if len(ev.CatchUps) > 0 {
		ans.Inputs = append(ans.Inputs, fmt.Sprintf("catch-up to acceptable.recovery.lag %d after a pause: %s", ev.AcceptableRecoveryLag, ev.CatchUpText()))
	}
	return ans
}

func failoverAnswer(a *Analysis) (Answer, *Unanswered) {
	d, f := a.Options.Deployment, a.Failover()
	q := fmt.Sprintf("Failover with num.standby.replicas=%d (SIGKILL of an active instance)", d.Standbys)
	if f == nil {
		return Answer{}, &Unanswered{Question: fmt.Sprintf("failover with num.standby.replicas=%d", d.Standbys), Reason: failoverMissing(a)}
	}
	fig := measuredFigure(f.Worst, UnitSeconds)
	return Answer{
		ID:       "standby_failover",
		Figure:   fig,
		Question: q,
		Value:    fmt.Sprintf("%s processing gap (median %s), any state size", fig.Text(), FormatSeconds(f.Median)),
		Checks:   checks(measured(f.Worst, f.Worst, f.Worst), a.Options.RTOs),
		Inputs: []string{f.Summary(), "takeovers: " + f.TakeoverText(),
			fmt.Sprintf("session.timeout.ms=%d in the runs; failure detection took %s (median)", f.SessionTimeoutMs, FormatSeconds(f.Detection)),
			"holds while the standby keeps up: " + standbyKeepUpText(a)},
		Sources: KillRefs(f.Kills),
	}, nil
}

func keepUpAnswer(a *Analysis) (Answer, *Unanswered) {
	d, ev := a.Options.Deployment, a.Standby()
	q := fmt.Sprintf("Does a standby keep up with %s of writes?", FormatRate(d.WriteRate))
	if ev == nil || ev.Best == nil {
		reason := "the highest write rate a standby sustains is not measured in the inputs: needs " + standbyRunText
		switch {
		case ev != nil && len(ev.Steps) == 0:
			reason = "the standby run in the inputs has no rate step with a verdict: " + ev.SustainedBasis()
		case ev != nil:
			reason = "the standby run in the inputs sustained none of the rates it tried: lower standby.rates"
		}
		return Answer{}, &Unanswered{Question: fmt.Sprintf("whether a standby keeps up with %s of writes", FormatRate(d.WriteRate)), Reason: reason}
	}
	var v string
	switch {
	case d.WriteRate <= ev.BestBytes:
		v = fmt.Sprintf("yes: %s measured, %.1f× your rate", ev.Sustained(), ev.BestBytes/d.WriteRate)
	case ev.AtLeast:
		v = fmt.Sprintf("unknown: the standby kept up with all this machine could write, %s, below your rate", ev.Sustained())
	default:
		v = fmt.Sprintf("no: it sustained %s, below your rate; its lag grows and a failover becomes a restore of that lag", ev.Sustained())
	}
	return Answer{
		ID:       "standby_keeps_up",
		Question: q,
		Value:    v,
		Inputs:   []string{"write rate " + FormatRate(d.WriteRate), ev.SustainedBasis()},
		Sources:  Refs(ev.Steps),
	}, nil
}

// standbyNeededAnswers: without a standby a failed instance's tasks are
// restored cold by the survivors after failure detection; a standby is
// needed for an objective that this misses. They need the deployment's
// state and partitions.
func standbyNeededAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d, r := a.Options.Deployment, a.Rate
	state := a.ChangelogBytes()
	if r == nil || state <= 0 || d.Partitions <= 0 {
		return nil, nil
	}
	taskBytes := state / float64(d.Partitions)
	tasks, how := coldRecoveryShape(d, a.Options.Threads, taskBytes)
	restore := r.Seconds(float64(tasks) * taskBytes)
	basis, sources, spread := r.Summary(), r.Obs, ""
	if e, text, interval, obs, ok := a.sampledThreadRestore(tasks); ok {
		restore, basis, spread, sources = e, text, interval, obs
	}
	detect, detectText := DefaultFailureDetectionSeconds, fmt.Sprintf("plus failure detection, %s ASSUMED: Kafka's "+
		"default session timeout (session.timeout.ms, classic protocol; "+
		"group.streams.session.timeout.ms, streams protocol); no failover run in the inputs measured it",
		FormatSeconds(DefaultFailureDetectionSeconds))
	if f := a.Failover(); f != nil {
		detect = f.Detection
		detectText = fmt.Sprintf("plus failure detection, %s as measured in the failover runs (session.timeout.ms=%d "+
			"there; yours may differ)", FormatSeconds(f.Detection), f.SessionTimeoutMs)
	}
	total := restore.Plus(detect)
	inputs := []string{how, basis, detectText}
	switch {
	case total.HasInterval() && spread != "":
		inputs = append(inputs, fmt.Sprintf("interval %s–%s: %s", FormatSeconds(total.Lo), FormatSeconds(total.Hi), spread))
	case total.HasInterval():
		inputs = append(inputs, intervalText(total))
	}
	inputs = withFactor(inputs, total)
	recovery := Answer{
		ID:           "recovery_without_standby",
		RateBased:    true,
		Question:     "Recovery after an instance fails, without a standby",
		Value:        TimeValue(total),
		Figure:       figureOf(total, UnitSeconds),
		Checks:       checks(total, a.Options.RTOs),
		Extrapolated: restore.Extrapolated,
		Below:        restore.Below,
		Inputs:       inputs,
		Sources:      RunLabels(sources),
	}
	var verdicts []string
	for _, c := range recovery.Checks {
		var v string
		switch {
		case c.Inconclusive:
			v = "inconclusive for " + FormatRTO(c.RTO) + " (" + c.Why + ")"
		case c.Meets:
			v = fmt.Sprintf("no for %s (%s to spare)", FormatRTO(c.RTO), c.MarginText())
		default:
			v = fmt.Sprintf("yes for %s (without one it misses by %s)", FormatRTO(c.RTO), c.MarginText())
		}
		verdicts = append(verdicts, v)
	}
	needed := Answer{
		ID:           "standby_needed",
		RateBased:    true,
		Question:     "Is a standby needed for the RTO?",
		Value:        strings.Join(verdicts, "; "),
		Extrapolated: restore.Extrapolated,
		Below:        restore.Below,
		Inputs:       append([]string{"recovery without a standby " + TimeValue(total) + ", failure detection included"}, inputs...),
		Sources:      RunLabels(sources),
	}
	if f := a.Failover(); f != nil {
		needed.Inputs = append(needed.Inputs, "with a standby: "+f.Summary())
		needed.Sources += ", " + KillRefs(f.Kills)
	}
	return []Answer{recovery, needed}, nil
}

// calibrationSpreadText names the calibration factor's interval at the
// estimate's size when the estimate's interval includes it.
func calibrationSpreadText(e Estimate) string {
	if e.Factor == nil {
		return ""
	}
	return fmt.Sprintf(" and the calibration factor's interval %.3f–%.3f at that size", e.Factor.Lo, e.Factor.Hi)
}

// coldRecoveryShape is how many tasks of taskBytes one stream thread
// restores after an instance fails, and how that was derived: the failed
// instance's tasks spread over the survivors' threads, or with a single
// instance its own tasks over its threads after a restart.
func coldRecoveryShape(d Deployment, threads int, taskBytes float64) (int, string) {
	switch {
	case d.Instances > 1:
		perInstance := ceilDiv(d.Partitions, d.Instances)
		survivors := (d.Instances - 1) * threads
		n := ceilDiv(perInstance, survivors)
		by := fmt.Sprintf("the %d survivors'", d.Instances-1)
		if d.Instances == 2 {
			by = "the survivor's"
		}
		return n, fmt.Sprintf("the failed instance's %s of %s restored cold by %s %s: %s per thread",
			Plural(perInstance, "task"), FormatBytes(taskBytes), by, Plural(survivors, "thread"), Plural(n, "task"))
	case d.Instances == 1:
		n := ceilDiv(d.Partitions, threads)
		return n, fmt.Sprintf("the instance's %s of %s restored cold on its %s after a restart: %s per thread",
			Plural(d.Partitions, "task"), FormatBytes(taskBytes), Plural(threads, "thread"), Plural(n, "task"))
	}
	return 1, fmt.Sprintf("ASSUMED one task per survivor thread: one task of %s restored cold (give --instances for the "+
		"failed instance's tasks spread over the survivors)", FormatBytes(taskBytes))
}

// The standby failover's row; the standbys' advice after the partitions'.
// What the inputs cannot tell of standbys and failovers is the table's
// unmeasured row and the advice's "cannot be said".
func init() {
	registerRTORow(rtoRow{order: 40, scenarios: []config.Scenario{config.ScenarioFailover}, row: standbyFailoverRow})
	registerRecommendation(recommender{order: 20, scenarios: []config.Scenario{config.ScenarioStandby, config.ScenarioFailover},
		recommend: always(standbyRecommendation)})
	declareLacks(config.ScenarioStandby, contribRTORow, "a standby's sustained write rate decides whether a failover is a "+
		"promotion or a restore of its lag, not a recovery time: the standby failover row is the failover scenario's")
	const why = "the standby failover row says it is not measured, and the standbys' advice what would measure it"
	declareLacks(config.ScenarioStandby, contribUnknown, why)
	declareLacks(config.ScenarioFailover, contribUnknown, why)
}

// standbyRecommendation says when a standby is needed: when a task's cold
// restore misses the objective, since a promoted standby's gap does not
// grow with the state; and how fast a standby keeps up.
func standbyRecommendation(a *Analysis) Recommendation {
	rec := Recommendation{Title: "Standbys"}
	f, ev, cold := a.Failover(), a.Standby(), a.RTO.Row(RowColdRestore)
	if f == nil && ev == nil {
		rec.Text = "Whether a standby is needed, and the highest write rate one sustains, cannot be said from these " +
			"inputs: " + a.RTO.Row(RowStandbyFailover).Missing + "."
		return rec
	}
	var parts []string
	if f != nil && cold.Measured {
		var limits []string
		for _, c := range cold.Cells {
			limits = append(limits, fmt.Sprintf("%s per task for %s", FormatBytes(c.Task.Value), FormatRTO(c.RTO)))
		}
		parts = append(parts, fmt.Sprintf("Use num.standby.replicas=1 when a task's changelog exceeds what restores cold "+
			"within the objective (%s, before failure detection): a promoted standby brought the tasks back "+
			"within %s at worst, whatever their size.",
			strings.Join(limits, "; "), FormatSeconds(f.Worst)))
		rec.Evidence = append(rec.Evidence, f.Summary()+" ("+KillRefs(f.Kills)+")", "takeovers: "+f.TakeoverText())
	} else if f != nil {
		parts = append(parts, fmt.Sprintf("A promoted standby brought the tasks back within %s at worst, whatever their size.", FormatSeconds(f.Worst)))
		rec.Evidence = append(rec.Evidence, f.Summary()+" ("+KillRefs(f.Kills)+")")
	} else {
		parts = append(parts, "No failover run measured a standby taking over ("+failoverRun+").")
	}
	if ev != nil && ev.Best != nil {
		parts = append(parts, fmt.Sprintf("A standby kept up with %s of writes here; above that its lag grows and a "+
			"failover turns into a restore of the lag.", ev.Sustained()))
		rec.Evidence = append(rec.Evidence, ev.SustainedBasis()+" ("+Refs(ev.Steps)+")")
		if len(ev.CatchUps) > 0 {
			rec.Evidence = append(rec.Evidence, "catch-up after a pause: "+ev.CatchUpText())
		}
	}
	rec.Text = strings.Join(parts, " ")
	return rec
}
