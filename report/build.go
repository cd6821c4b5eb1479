package report

import (
	"fmt"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
)

// Build lays out the report of an analysis: the key answers first, then
// the advice and the recovery-time table, what the inputs cannot tell, and
// the evidence (fits, throughput, environments, fills, method).
func Build(a *capacity.Analysis) (*Document, error) {
	d := &Document{Title: "Kafka Streams restore capacity report", Subtitle: subtitle(a), Facts: facts(a)}
	sections := []func(*capacity.Analysis) (Section, error){
		recommendationsSection, rtoSection, deploymentSection, unknownsSection,
		fitsSection, throughputSection, environmentSection, fillsSection, methodSection,
	}
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
			Detail: fmt.Sprintf("a fit without the largest size predicted %s, measured %s", capacity.FormatSeconds(h.Predicted.Value), capacity.FormatSeconds(h.Measured))})
	}
	var missing []string
	for _, row := range a.RTO.Rows {
		if !row.Measured && row.Scenario != capacity.ScenarioCold {
			missing = append(missing, row.Scenario)
		}
	}
	if len(missing) > 0 {
		out = append(out, Fact{Label: "Not measured", Value: strings.Join(missing, ", "), Detail: "see the recovery-time table", Warn: true})
	}
	if r != nil && r.Setup.Params.Engine == config.EngineModel {
		f := Fact{Label: "Engine", Value: "model engine, not calibrated", Detail: "no setting measured on both engines", Warn: true}
		if r.Calibration != nil {
			f = Fact{Label: "Engine", Value: "model engine, calibrated", Detail: "times scaled to Kafka Streams' by " + r.Calibration.String()}
		}
		out = append(out, f)
	}
	return out
}

// limitsFact is the per-task limit for each RTO in one line.
func limitsFact(a *capacity.Analysis) Fact {
	row := a.RTO.Row(capacity.ScenarioCold)
	var rtos, vals []string
	extrap := false
	for _, c := range row.Cells {
		rtos = append(rtos, capacity.FormatRTO(c.RTO))
		vals = append(vals, capacity.FormatBytes(c.Task.Value))
		extrap = extrap || c.Task.Extrapolated
	}
	detail := "cold restore, largest changelog per task"
	if extrap {
		detail += fmt.Sprintf("; beyond %s per thread is extrapolated", capacity.FormatBytes(a.Rate.Hi))
	}
	return Fact{Label: "Per task within " + strings.Join(rtos, " / "), Value: strings.Join(vals, " / "), Detail: detail}
}

// holdoutOf is the hold-out check of the rate's setup, if any.
func holdoutOf(a *capacity.Analysis) *capacity.Holdout {
	if a.Rate == nil {
		return nil
	}
	for _, h := range a.Holdouts {
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
	s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("The largest changelog per task (partition) and per instance (num.stream.threads=%d) that comes back within each recovery-time objective. "+
		"A cold restore reads a task's whole changelog into an empty state directory; an instance's threads restore their tasks in parallel.", t.Threads)})
	head := []string{"scenario"}
	right := []bool{false}
	for _, rto := range t.RTOs {
		head = append(head, capacity.FormatRTO(rto)+" per task", capacity.FormatRTO(rto)+" per instance")
		right = append(right, true, true)
	}
	tab := &Table{Head: head, Right: right}
	for _, row := range t.Rows {
		cells := []string{row.Scenario}
		for i := range t.RTOs {
			if !row.Measured {
				cells = append(cells, "not measured", "not measured")
				continue
			}
			c := row.Cells[i]
			cells = append(cells, estimate(c.Task), estimate(c.Instance))
		}
		tab.Rows = append(tab.Rows, cells)
	}
	s.Blocks = append(s.Blocks, tab)
	if a.Rate != nil {
		s.Blocks = append(s.Blocks, &Para{Text: extrapolationNote(a.Rate), Note: true})
	}
	if f, err := figure("rto", "Largest changelog per task within a time", rtoChart, a,
		"Solid: within the measured sizes; dashed: extrapolated from the fit."); err != nil {
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
			basis = append(basis, fmt.Sprintf("%s, restores used: %s", row.Scenario, row.Sources))
		} else {
			basis = append(basis, fmt.Sprintf("%s: %s", row.Scenario, row.Missing))
		}
	}
	s.Blocks = append(s.Blocks, &Para{Text: "What each row rests on:"}, &List{Items: basis})
	return s, nil
}

// estimate formats an estimated size, marking extrapolations with a dagger.
func estimate(e capacity.Estimate) string {
	if e.Extrapolated {
		return capacity.FormatBytes(e.Value) + " †"
	}
	return capacity.FormatBytes(e.Value)
}

// extrapolationNote explains the dagger: the range the rate was measured over.
func extrapolationNote(r *capacity.Rate) string {
	if r.Lo == r.Hi {
		return fmt.Sprintf("† extrapolated: the rate was measured at %s per thread only.", capacity.FormatBytes(r.Hi))
	}
	return fmt.Sprintf("† extrapolated: outside the %s – %s per thread measured.", capacity.FormatBytes(r.Lo), capacity.FormatBytes(r.Hi))
}

func deploymentSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "deployment", Title: "Your deployment"}
	if a.Options.Deployment == (capacity.Deployment{}) {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "The same answers `restorebench plan` prints for these settings."})
	tab := &Table{Head: []string{"question", "answer", "check", "computed from", "runs"}}
	for _, ans := range a.Answers {
		tab.Rows = append(tab.Rows, []string{ans.Question, answerValue(ans), check(ans), strings.Join(ans.Inputs, "; "), ans.Sources})
	}
	s.Blocks = append(s.Blocks, tab, &Para{Text: extrapolationNote(a.Rate), Note: true})
	if len(a.Unanswered) > 0 {
		var items []string
		for _, u := range a.Unanswered {
			items = append(items, fmt.Sprintf("**%s:** %s", u.Question, u.Reason))
		}
		s.Blocks = append(s.Blocks, &Para{Text: "Cannot be answered from the inputs:"}, &List{Items: items})
	}
	return s, nil
}

func answerValue(a capacity.Answer) string {
	if a.Extrapolated {
		return a.Value + " †"
	}
	return a.Value
}

// check says which objectives a restore time meets: "meets 5 min; **misses 1 min**".
func check(a capacity.Answer) string {
	var parts []string
	for _, c := range a.Checks {
		if c.Meets {
			parts = append(parts, "meets "+capacity.FormatRTO(c.RTO))
		} else {
			parts = append(parts, "**misses "+capacity.FormatRTO(c.RTO)+"**")
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

// figure draws a chart with draw and wraps it as a Figure; nil when draw
// has nothing to show.
func figure(name, title string, draw func(*capacity.Analysis) (*plot.Plot, error), a *capacity.Analysis, caption string) (*Figure, error) {
	p, err := draw(a)
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
	return &Figure{Name: name, Title: title, Caption: caption, SVG: svg}, nil
}
