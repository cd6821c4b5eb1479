package report

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/plots"
)

// Build lays out the report of an analysis: the key answers first, then
// the advice and the recovery-time table, what the inputs cannot tell, and
// the evidence (fits, throughput, scenarios, Kafka Streams' own metrics,
// environments, fills, method).
func Build(a *capacity.Analysis) (*Document, error) {
	d := &Document{Title: "Kafka Streams restore capacity report", Subtitle: subtitle(a), Facts: facts(a)}
	sections := []func(*capacity.Analysis) (Section, error){
		deploymentSection, recommendationsSection, rtoSection, unknownsSection, fitsSection, throughputSection,
	}
	for _, ss := range allSections() {
		sections = append(sections, ss.Build)
	}
	sections = append(sections, storeKindsSection, queriesSection, kafkaStreamsVersionsSection,
		kafkaStreamsMetricsSection, environmentSection, fillsSection, methodSection)
	for _, f := range sections {
		s, err := f(a)
		if err != nil {
			return nil, err
		}
		if len(s.Blocks) > 0 {
			d.Sections = append(d.Sections, s)
		}
	}
	return d, nil
}

// subtitle says what the report was made from: runs, hosts, dates, tool.
func subtitle(a *capacity.Analysis) string {
	var first, last time.Time
	var hosts, tools []string
	for _, r := range a.Runs {
		res := r.Results
		if first.IsZero() || res.StartedAt.Before(first) {
			first = res.StartedAt
		}
		if res.FinishedAt.After(last) {
			last = res.FinishedAt
		}
		hosts = appendUnique(hosts, res.Host.Hostname)
		tools = appendUnique(tools, res.ToolVersion)
	}
	return fmt.Sprintf("From %s (%s) measured on %s between %s and %s, with restorebench %s. Every figure below is derived from those results files.",
		capacity.Plural(len(a.Runs), "run"), runRange(a.Runs), strings.Join(hosts, ", "), day(first), day(last), strings.Join(tools, ", "))
}

func runRange(rs []*capacity.Run) string {
	switch len(rs) {
	case 0:
		return "none"
	case 1:
		return rs[0].Label
	}
	return rs[0].Label + "–" + rs[len(rs)-1].Label
}

func day(t time.Time) string {
	if t.IsZero() {
		return "an unrecorded time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if x == y {
			return xs
		}
	}
	return append(xs, x)
}

// facts are the summary's key answers.
func facts(a *capacity.Analysis) []Fact {
	var out []Fact
	for _, p := range a.Incomplete {
		out = append(out, Fact{Label: "Incomplete input", Value: p.Run.Label + " is partial",
			Detail: p.Reason + "; every answer rests only on what it finished", Warn: true})
	}
	out = append(out, deploymentFacts(a)...)
	r := a.Rate
	if r == nil {
		out = append(out, Fact{Label: "Cold-restore rate", Value: "not available", Detail: a.RateErr.Error(), Warn: true})
	} else {
		detail := r.Label()
		if r.Fit != nil {
			detail += fmt.Sprintf("; fit over %d sizes, R² %.3f", len(r.Fit.Sizes), r.Fit.R2)
		}
		out = append(out, Fact{Label: "Cold-restore rate", Value: capacity.FormatRate(r.PerThread) + " per thread", Detail: detail})
		out = append(out, limitsFact(a))
	}
	if len(a.Recommendations) > 0 && a.Recommendations[0].Short != "" {
		r := a.Recommendations[0]
		out = append(out, Fact{Label: "Fastest you can set in Kafka Streams", Value: r.Short, Detail: r.ShortDetail})
	}
	if h := holdoutOf(a); h != nil {
		out = append(out, Fact{Label: "Prediction check", Value: fmt.Sprintf("%+.1f%% at %s", h.ErrorPercent(), capacity.FormatBytes(h.Size)),
			Detail: fmt.Sprintf("a fit without the largest size predicted %s, measured %s",
				capacity.FormatSeconds(h.Predicted.Value), capacity.FormatSeconds(h.Measured))})
	}
	out = append(out, scenarioFacts(a)...)
	var missing []string
	for _, row := range a.RTO.Rows {
		if !row.Measured && row.Scenario != capacity.RowColdRestore {
			missing = append(missing, row.Scenario)
		}
	}
	if len(missing) > 0 {
		out = append(out, Fact{Label: "Not measured", Value: strings.Join(missing, ", "), Detail: "see the recovery-time table", Warn: true})
	}
	if r != nil && r.Setup.Params.Engine == config.EngineModel {
		f := Fact{Label: "Engine", Value: "model engine, not calibrated", Detail: "no setting measured on both engines", Warn: true}
		if r.Calibration != nil {
			f = Fact{Label: "Engine", Value: "model engine, calibrated",
				Detail: "times scaled to Kafka Streams' by " + r.CalibrationText() + ", at each prediction's own size"}
		}
		out = append(out, f)
	}
	return out
}

// deploymentFacts are the answers about the user's own deployment that
// decide it, first on the cards: how long an instance's cold restore and a
// failover take against the objectives, and whether a standby is needed,
// each with its margin (and inconclusive where the inputs cannot decide).
func deploymentFacts(a *capacity.Analysis) []Fact {
	if a.Options.Deployment.IsZero() {
		return nil
	}
	var out []Fact
	for _, ans := range a.Answers {
		var label string
		switch {
		case strings.HasPrefix(ans.Question, "Cold restore of one instance"):
			label = "Your instance restores cold in"
		case strings.HasPrefix(ans.Question, "Recovery after an instance fails"):
			label = "Your recovery without a standby"
		case strings.HasPrefix(ans.Question, "Is a standby needed"):
			label = "Standby needed?"
		case strings.HasPrefix(ans.Question, "Failover with num.standby.replicas"):
			label = "Your failover with a standby"
		default:
			continue
		}
		var verdicts []string
		warn := false
		for _, c := range ans.Checks {
			verdicts = append(verdicts, c.Verdict())
			warn = warn || c.Inconclusive || !c.Meets
		}
		if strings.Contains(ans.Value, "inconclusive") || strings.Contains(ans.Value, "yes for") {
			warn = true
		}
		detail := strings.Join(verdicts, "; ")
		if detail == "" {
			detail = "see Your deployment"
		}
		out = append(out, Fact{Label: label, Value: answerValue(ans), Detail: detail, Warn: warn})
	}
	return out
}

// scenarioFacts are the headline facts every scenario's file registered
// (registerFact), in their order, then the default fact of each scenario
// that declares its figure instead (allFacts).
func scenarioFacts(a *capacity.Analysis) []Fact {
	var out []Fact
	for _, f := range allFacts() {
		out = append(out, f.facts(a)...)
	}
	return out
}

// limitsFact is the per-task limit for each RTO in one line, each past
// capacity.WideExtrapolation INCONCLUSIVE as plan says it (all of them
// under one INCONCLUSIVE when none is within it).
func limitsFact(a *capacity.Analysis) Fact {
	row := a.RTO.Row(capacity.RowColdRestore)
	var rtos, vals, sizes []string
	extrap, wide, allWide := false, false, len(row.Cells) > 0
	for _, c := range row.Cells {
		rtos = append(rtos, capacity.FormatRTO(c.RTO))
		size := capacity.FormatBytes(c.Task.Value)
		sizes, vals = append(sizes, size), append(vals, capacity.InconclusiveIfWide(size, c.Task.Estimate))
		extrap = extrap || c.Task.Extrapolated
		wide, allWide = wide || c.Task.Wide(), allWide && c.Task.Wide()
	}
	value := strings.Join(vals, " / ")
	if allWide {
		value = "INCONCLUSIVE (" + strings.Join(sizes, " / ") + ")"
	}
	detail := "cold restore, largest changelog per task"
	if extrap {
		detail += fmt.Sprintf("; beyond %s per thread is extrapolated", capacity.FormatBytes(a.Rate.Hi))
	}
	if wide {
		// As the verdicts do: past 4x the measured size nothing bounds it.
		detail += fmt.Sprintf("; past %.0f× that, nothing measured bounds the figure", capacity.WideExtrapolation)
	}
	return Fact{Label: "Per task within " + strings.Join(rtos, " / "), Value: value, Detail: detail, Warn: wide}
}

// holdoutOf is the hold-out check of the rate's setup, if any.
func holdoutOf(a *capacity.Analysis) *capacity.SizeHoldOut {
	if a.Rate == nil {
		return nil
	}
	for _, h := range a.SizeHoldOuts {
		if h.Fit.Setup == a.Rate.Setup {
			return h
		}
	}
	return nil
}

func recommendationsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "recommendations", Title: "Recommendations"}
	for _, r := range a.Recommendations {
		s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("**%s.** %s", r.Title, r.Text)})
		if len(r.Evidence) > 0 {
			items := make([]string, len(r.Evidence))
			for i, e := range r.Evidence {
				items[i] = "Evidence: " + e
			}
			s.Blocks = append(s.Blocks, &List{Items: items})
		}
	}
	return s, nil
}

func rtoSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "rto", Title: "Recovery-time table"}
	t := a.RTO
	s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("The largest state per task (partition) and per instance "+
		"(num.stream.threads=%d) that comes back within each recovery-time objective, by how it comes "+
		"back. "+
		"A cold restore reads a task's whole changelog into an empty state directory; an instance's threads restore their tasks in parallel. "+
		"A warm restart replays only the changes written while the instance was down, so its sizes are that backlog, whatever the state. "+
		"A promoted standby restores only its lag, so its recovery does not depend on the state's size. "+
		"Lookups answered again: without stale reads Kafka Streams answers a key only once its store has restored, so the "+
		"state whose lookups come back within an objective is the cold restore's within it, less the "+
		"longest measured wait from a restore's end to the first answer after it.", t.Threads)})
	s.Blocks = append(s.Blocks, rtoTable(t))
	if notes := rtoNotes(a); len(notes) > 0 {
		s.Blocks = append(s.Blocks, &Para{Text: strings.Join(notes, " "), Note: true})
	}
	if f, err := analysisFigure("rto", a); err != nil {
		return s, err
	} else if f != nil {
		s.Blocks = append(s.Blocks, f)
	}
	var basis []string
	for _, row := range t.Rows {
		if row.Measured {
			for _, b := range row.Basis {
				basis = append(basis, row.Scenario+": "+b)
			}
			basis = append(basis, fmt.Sprintf("%s, records used: %s", row.Scenario, row.Sources))
		} else {
			basis = append(basis, fmt.Sprintf("%s: %s", row.Scenario, row.Missing))
		}
	}
	s.Blocks = append(s.Blocks, &Para{Text: "What each row rests on:"}, &List{Items: basis})
	return s, nil
}

// wideTimes is capacity.WideExtrapolation as the legends say it.
var wideTimes = fmt.Sprintf("%.0f×", capacity.WideExtrapolation)

// rtoTableLegend says what the RTO table's cells and marks mean.
var rtoTableLegend = "Per task: the largest changelog one task's store (one stream thread) restores within the objective; " +
	"per instance: what one instance's threads restore together. † " +
	"extrapolated beyond the sizes measured; INCONCLUSIVE (with the size taken) past " + wideTimes +
	" the sizes measured, where nothing bounds its error, as plan says it; " +
	"sizes in decimal units (1 GB = 10^9 bytes)."

// rtoTable is the table itself: two columns per objective.
// When every row's instance equals its task (one stream thread, one task
// each), the instance columns would repeat the task ones: one column per
// objective then says both.
func rtoTable(t capacity.RTOTable) *Table {
	same := true
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			same = same && (c.Text != "" || c.Instance.Value == c.Task.Value)
		}
	}
	head := []string{"scenario"}
	right := []bool{false}
	for _, rto := range t.RTOs {
		if same {
			head = append(head, capacity.FormatRTO(rto)+" per task (and instance)")
			right = append(right, true)
			continue
		}
		head = append(head, capacity.FormatRTO(rto)+" per task", capacity.FormatRTO(rto)+" per instance")
		right = append(right, true, true)
	}
	tab := &Table{Head: head, Right: right,
		Legend: rtoTableLegend}
	for _, row := range t.Rows {
		cells := []string{rowName(row)}
		for i := range t.RTOs {
			var pair []string
			if !row.Measured {
				pair = []string{"not measured", "not measured"}
			} else {
				pair = rtoCells(row, row.Cells[i])
			}
			if same {
				pair = pair[:1]
			}
			cells = append(cells, pair...)
		}
		tab.Rows = append(tab.Rows, cells)
	}
	return tab
}

// rowName names a row, saying what its sizes are when not a changelog.
func rowName(row capacity.RTORow) string {
	if row.Quantity == capacity.QuantityChanges {
		return row.Scenario + " (changes while down) §"
	}
	return row.Scenario
}

// rtoCells are one objective's task and instance cells: sizes, or the
// cell's answer in words (in both columns), with the row's marks.
func rtoCells(row capacity.RTORow, c capacity.RTOCell) []string {
	if c.Text != "" {
		text := c.Text
		if !c.Meets && !row.Predicted {
			text = "**" + text + "**"
		}
		return []string{text, text}
	}
	task, inst := estimate(c.Task), estimate(c.Instance)
	if row.Predicted {
		task, inst = task+" ‡", inst+" ‡"
	}
	return []string{task, inst}
}

// rtoNotes explain the table's marks for the rows that use them.
func rtoNotes(a *capacity.Analysis) []string {
	var notes []string
	if a.Rate != nil {
		notes = append(notes, extrapolationNote(a.Rate))
	}
	for _, row := range a.RTO.Rows {
		switch {
		case !row.Measured:
		case row.Quantity == capacity.QuantityChanges:
			notes = append(notes, "§ "+row.Scenario+": bytes of changes written while the instance was down (what a warm restart replays), not the state's size.")
		case row.Predicted:
			notes = append(notes, "‡ "+row.Scenario+": predicted by the warmup model for the measured scale-out's shape "+
				"(not measured at these sizes); † beyond the measured task size.")
		}
	}
	return notes
}

// estimate formats an RTO cell's figure as its answer says it (a
// calibrated one with its interval; INCONCLUSIVE past
// capacity.WideExtrapolation, where nothing bounds its error), marking
// extrapolations with a dagger.
func estimate(f capacity.Figure) string {
	text := capacity.InconclusiveIfWide(f.Text(), f.Estimate)
	if f.Extrapolated {
		text += " †"
	}
	return text
}

// extrapolationNote explains the dagger: the range the rate was measured over.
func extrapolationNote(r *capacity.Rate) string {
	if r.Lo == r.Hi {
		return fmt.Sprintf("† extrapolated: the rate was measured at %s per thread only.", capacity.FormatBytes(r.Hi))
	}
	return fmt.Sprintf("† extrapolated: outside the %s – %s per thread measured.", capacity.FormatBytes(r.Lo), capacity.FormatBytes(r.Hi))
}

// deploymentTableLegend says what the columns of the deployment table mean.
const deploymentTableLegend = "check: the answer against each objective, with its margin (time to spare, or by how " +
	"much it misses), INCONCLUSIVE when the inputs cannot decide; " +
	"computed from: every input and assumption; " +
	"runs: the restores it rests on (R1 = the first input run). † " +
	"extrapolated beyond the sizes measured."

func deploymentSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "deployment", Title: "Your deployment"}
	if a.Options.Deployment.IsZero() {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "The same answers `restorebench plan` prints for these settings."})
	tab := &Table{Head: []string{"question", "answer", "check", "computed from", "runs"},
		Legend: deploymentTableLegend}
	for _, ans := range a.Answers {
		tab.Rows = append(tab.Rows, []string{ans.Question, answerValue(ans), check(ans), strings.Join(ans.Inputs, "; "), ans.Sources})
	}
	s.Blocks = append(s.Blocks, tab)
	if a.Rate != nil { // no rate (no default case verified): no dagger to explain
		note := extrapolationNote(a.Rate)
		if shape := shapeOutside(a.Answers); shape != "" {
			note += " Also extrapolated (†): the restore cost was taken at your changelog's shape, " + shape + "."
		}
		s.Blocks = append(s.Blocks, &Para{Text: note, Note: true})
	}
	if len(a.Unanswered) > 0 {
		var items []string
		for _, u := range a.Unanswered {
			items = append(items, fmt.Sprintf("**%s:** %s", u.Question, u.Reason))
		}
		s.Blocks = append(s.Blocks, &Para{Text: "Cannot be answered from the inputs:"}, &List{Items: items})
	}
	return s, nil
}

// shapeOutside is the side of the changelog shapes measured the answers'
// restore cost was taken at ("below the record sizes measured"), "" when
// none was taken outside them.
func shapeOutside(answers []capacity.Answer) string {
	for _, a := range answers {
		if a.ShapeOutside != "" {
			return a.ShapeOutside
		}
	}
	return ""
}

func answerValue(a capacity.Answer) string {
	if a.Extrapolated || a.ShapeOutside != "" {
		return a.Value + " †"
	}
	return a.Value
}

// check says which objectives a restore time meets: "meets 5 min; **misses 1 min**".
func check(a capacity.Answer) string {
	var parts []string
	for _, c := range a.Checks {
		switch {
		case c.Inconclusive:
			parts = append(parts, "**inconclusive for "+capacity.FormatRTO(c.RTO)+"** ("+c.Why+")")
		case c.Meets:
			parts = append(parts, "meets "+capacity.FormatRTO(c.RTO)+" by "+c.MarginText())
		default:
			parts = append(parts, "**misses "+capacity.FormatRTO(c.RTO)+"** by "+c.MarginText())
		}
	}
	return strings.Join(parts, "; ")
}

func unknownsSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "unknowns", Title: "What this report does not know"}
	if len(a.Unknowns) > 0 {
		s.Blocks = append(s.Blocks, &List{Items: a.Unknowns})
	}
	return s, nil
}

// analysisFigure draws package plots' chart of the analysis called name
// and wraps it as a Figure with the chart's title and caption; nil when
// the analysis has nothing for it.
func analysisFigure(name string, a *capacity.Analysis) (*Figure, error) {
	c, ok := plots.ChartNamed(name)
	if !ok || c.Analysis == nil {
		return nil, fmt.Errorf("report: no chart of the analysis %s in package plots", name)
	}
	p, err := c.Analysis(a)
	if err != nil {
		return nil, fmt.Errorf("report: chart %s: %w", name, err)
	}
	if p == nil {
		return nil, nil
	}
	svg, err := svgOf(p)
	if err != nil {
		return nil, fmt.Errorf("report: chart %s: %w", name, err)
	}
	return &Figure{Name: name, Title: c.Title, Caption: c.Caption, SVG: svg}, nil
}

// svgOf renders p as SVG at the size package plots draws its charts.
func svgOf(p *plot.Plot) ([]byte, error) {
	w, err := p.WriterTo(plots.Width, plots.Height, "svg")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
