package report

import (
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/internal/units"
)

// AuditSection renders an audit of a running application (`restorebench
// audit --format json`) as a section: every instance's tasks and state,
// what its loss would cost with the terms of the time, adding one
// instance, and what the audit assumed or could not see. It computes
// nothing: the figures are the audit's.
func AuditSection(r *audit.Report) Section {
	s := Section{ID: "audit", Title: "Your running application: what each instance's loss would cost now"}
	s.Blocks = append(s.Blocks, &Para{Text: auditHead(r) + ". Read-only: no group joined or committed, no topic or configuration changed."})
	if r.Inconclusive != "" {
		s.Blocks = append(s.Blocks, &Para{Text: "**Inconclusive:** " + r.Inconclusive})
	}
	if len(r.Changelogs) > 0 {
		s.Blocks = append(s.Blocks, auditChangelogTable(r.Changelogs))
	}
	if len(r.Instances) > 0 {
		s.Blocks = append(s.Blocks, auditFailureBlocks(r)...)
		s.Blocks = append(s.Blocks, restartBlocks(r)...)
	}
	s.Blocks = append(s.Blocks, &Para{Text: auditTimeTerms(r)})
	if so := r.IfOneAdded; so != nil {
		s.Blocks = append(s.Blocks, oneAddedBlocks(so)...)
	}
	if len(r.Assumptions) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "What the audit assumed"}, &List{Items: r.Assumptions})
	}
	if len(r.Unseen) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "What it could not see"}, &List{Items: r.Unseen})
	}
	return s
}

// auditHead names the application audited and its group as described.
func auditHead(r *audit.Report) string {
	head := fmt.Sprintf("Audit of `%s`", r.Application)
	if g := r.Group; g != nil {
		head += fmt.Sprintf(": group %s", g.State)
		if g.Type != "" {
			head += fmt.Sprintf(" on the %s protocol", g.Type)
		}
		head += fmt.Sprintf(", %d instance(s) of %d member(s)", len(r.Instances), len(g.Members))
	}
	return head
}

// auditChangelogLegend says what the columns of the audit's changelog
// table mean.
const auditChangelogLegend = "records: end − start offsets over the partitions; on disk: the log segments' bytes, one replica; " +
	"bytes/record: key + value bytes of the records read; subtopology: the one whose tasks write it (assumed: inferred, see the note)."

// auditChangelogTable is the changelogs the audit read: their sizes, shape
// and the subtopology writing each.
func auditChangelogTable(cls []audit.Changelog) *Table {
	t := &Table{Head: []string{"changelog", "partitions", "records", "on disk", "bytes/record", "records/live key", "subtopology"},
		Right:  []bool{false, true, true, true, true, true, false},
		Legend: auditChangelogLegend}
	for _, c := range cls {
		disk, bpr, rpk, sub := "not reported", "–", "–", "?"
		if c.DiskBytes != nil {
			disk = units.Bytes(float64(*c.DiskBytes))
		}
		if c.Shape != nil {
			bpr, rpk = fmt.Sprintf("%.1f", c.Shape.BytesPerRecord()), fmt.Sprintf("%.2f", c.Shape.RecordsPerKey)
		}
		if c.Subtopology != nil {
			sub = fmt.Sprint(*c.Subtopology)
			if strings.HasPrefix(c.MappingNote, "ASSUMED") {
				sub += " (assumed)"
			}
		}
		t.Rows = append(t.Rows, []string{"`" + c.Topic + "`", fmt.Sprint(c.Partitions), fmt.Sprint(c.Records), disk, bpr, rpk, sub})
	}
	return t
}

// auditFailureLegend says what the columns of the audit's instance table
// mean.
const auditFailureLegend = "active, standby: the tasks Kafka Streams assigned it; state: key + value bytes of those tasks' changelog partitions; " +
	"restored: its active tasks no caught-up copy elsewhere holds, with their bytes; time: failure detection and rejoin + handover + " +
	"the largest surviving thread's restore, in seconds, with the interval of the three (– without a restore rate); * the instance whose loss costs most."

// auditFailureBlocks are the instances' table, each one's tasks, state and
// what its loss costs (the most costly marked), and the notes of those
// answers.
func auditFailureBlocks(r *audit.Report) []Block {
	t := &Table{Head: []string{"instance (process id)", "threads", "active", "standby", "active state", "standby state",
		"if it fails: restored", "taken over warm", "time (interval)"},
		Right:  []bool{false, true, false, false, true, true, false, false, true},
		Legend: auditFailureLegend}
	for _, in := range r.Instances {
		f := in.IfItFails
		name := "`" + in.ProcessID + "`"
		if in.ProcessID == r.MostCostly {
			name += " *"
		}
		restored, warm, when := restoredText(f), dash(strings.Join(f.TakenOverWarm, " ")), spanText(f)
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(in.Threads), dash(strings.Join(in.Active, " ")), dash(strings.Join(in.Standby, " ")),
			in.ActiveStateText(), units.Bytes(in.StandbyStateBytes), restored, warm, when})
	}
	blocks := []Block{t}
	var notes []string
	for _, in := range r.Instances {
		if n := in.IfItFails.Note; n != "" {
			notes = append(notes, fmt.Sprintf("if `%s` fails: %s", in.ProcessID, n))
		}
	}
	if len(notes) > 0 {
		blocks = append(blocks, &List{Items: notes})
	}
	return blocks
}

// auditTimeTerms says what a loss's time is made of: detection and
// rejoin, the handover and the restore at the audit's rate, or why there
// is none.
func auditTimeTerms(r *audit.Report) string {
	terms := fmt.Sprintf("The time is failure detection and rejoin (session timeout %s%s, less up to one heartbeat interval of %s%s "+
		"before the death, plus up to one after), a handover of %s (%s–%s, ASSUMED) and the largest surviving thread's restore",
		units.Seconds(r.DetectionSeconds), assumedMark(r.DetectionAssumed), units.Seconds(r.HeartbeatSeconds), assumedMark(r.HeartbeatAssumed),
		units.Seconds(r.Handover.Value), units.Seconds(r.Handover.Lo), units.Seconds(r.Handover.Hi))
	switch {
	case r.Rate != "":
		terms += " at " + r.Rate + ", its fixed start not counted."
	case r.RateMissing != "":
		terms += ": none here (" + r.RateMissing + ")."
	default:
		terms += "."
	}
	return terms
}

// oneAddedBlocks are the answer to adding one instance, the warmup
// model's prediction or why there is none, and what it assumed.
func oneAddedBlocks(so *audit.ScaleOut) []Block {
	text := "**If one instance is added**: no time (" + so.Missing + ")."
	if p := so.Prediction; p != nil {
		text = fmt.Sprintf("**If one instance is added** (%d → %d), PREDICTION (warmup model, not measured): balanced and every task running after %s",
			p.Inputs.Before, p.Inputs.After, units.Seconds(p.TotalSeconds))
		if sp := p.Spread; sp != nil {
			text += fmt.Sprintf(" (median over %d orders of the new instance's process id; %s–%s)",
				sp.Samples, units.Seconds(sp.MinSeconds), units.Seconds(sp.MaxSeconds))
		}
		if !p.Converged {
			text += ", NEVER CONVERGES: a warm-up's share of its thread's restore rate does not exceed its task's write rate"
		}
		text += fmt.Sprintf("; %d probing rebalance(s), %d task(s) moved.", p.ProbingRounds, p.Movements)
	}
	blocks := []Block{&Para{Text: text}}
	if len(so.Assumed) > 0 {
		blocks = append(blocks, &List{Items: prefixed("assumed: ", so.Assumed)})
	}
	return blocks
}

// auditRestartLegend says what the columns of the audit's restart table
// mean.
const auditRestartLegend = "a clean restart (SIGTERM, then a start) on its own state dir, and one on an empty state dir; " +
	"times in seconds with their interval (– when audit gives none); " +
	"restored: its active tasks no caught-up copy elsewhere holds, with their bytes."

// restartBlocks are each instance's restart answers, on its state dir
// and on an empty disk, with their notes; none when audit gave none.
func restartBlocks(r *audit.Report) []Block {
	t := &Table{Head: []string{"instance (process id)", "restart on its state dir: time (interval)", "on an empty disk: restored",
		"taken over warm", "time (interval)"},
		Right:  []bool{false, true, false, false, true},
		Legend: auditRestartLegend}
	var notes []string
	once := map[string]bool{}
	for _, in := range r.Instances {
		kept, empty := in.IfRestartedWithState, in.IfRestartedEmpty
		if kept == nil || empty == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{"`" + in.ProcessID + "`", spanText(kept), restoredText(empty),
			dash(strings.Join(empty.TakenOverWarm, " ")), spanText(empty)})
		if kept.Note != "" && !once[kept.Note] {
			once[kept.Note] = true
			notes = append(notes, "restarts on its state dir: "+kept.Note)
		}
		if empty.Note != "" {
			notes = append(notes, fmt.Sprintf("if `%s` restarts on an empty disk: %s", in.ProcessID, empty.Note))
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	blocks := []Block{t}
	if len(notes) > 0 {
		blocks = append(blocks, &List{Items: notes})
	}
	blocks = append(blocks, &Para{Text: "A restart's time: " + r.RestartTerms() + "."})
	return blocks
}

// spanText is a failure's total time with its interval, – without one.
func spanText(f *audit.Failure) string {
	if f.Total == nil {
		return "–"
	}
	return fmt.Sprintf("%s (%s–%s)", units.Seconds(f.Total.Value), units.Seconds(f.Total.Lo), units.Seconds(f.Total.Hi))
}

// restoredText is what a failure restores: "nothing" only when every
// moved task's state was seen (audit.Failure.RestoredText).
func restoredText(f *audit.Failure) string { return f.RestoredText() }

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func assumedMark(assumed bool) string {
	if assumed {
		return " ASSUMED"
	}
	return ""
}

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}
