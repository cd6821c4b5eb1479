package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/runs"
)

// scenarioSection is the report's section for scenarios' measurements:
// Scenarios names every scenario it shows (a standby section also shows
// failovers; a scale-out section rolling restarts), and a scenario's section
// is found here, not by name in Build.
type scenarioSection struct {
	Scenarios []config.Scenario
	Build     func(*capacity.Analysis) (Section, error)
}

// scenarioSections are the report's scenario sections, in report order.
// Every scenario but cold (whose evidence is the fits and throughput
// sections) appears in exactly one; a test holds that to config's registry.
var scenarioSections = []scenarioSection{
	{Scenarios: []config.Scenario{config.ScenarioWarm}, Build: warmSection},
	{Scenarios: []config.Scenario{config.ScenarioStandby, config.ScenarioFailover}, Build: standbySection},
	{Scenarios: []config.Scenario{config.ScenarioScaleOut, config.ScenarioRolling}, Build: scaleOutSection},
	{Scenarios: []config.Scenario{config.ScenarioCompaction}, Build: compactionSection},
}

// scenarioCharts are the charts of package plots' registry that the
// report shows for scenario s, in registry order.
func scenarioCharts(s config.Scenario) []plots.Chart {
	var out []plots.Chart
	for _, c := range plots.ChartsOf(s) {
		if c.Report {
			out = append(out, c)
		}
	}
	return out
}

// runFigures draws each chart for every run that has data for it, named
// "<chart>-<run label>" so figures of several runs stay apart.
func runFigures(a *capacity.Analysis, charts ...plots.Chart) ([]Block, error) {
	var out []Block
	for _, c := range charts {
		for _, run := range a.Runs {
			f, err := runFigure(run, c)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// runFigure draws one chart of one run; nil when the run has nothing for it.
func runFigure(run *capacity.Run, c plots.Chart) (*Figure, error) {
	p, err := c.Draw(run.Results)
	if errors.Is(err, plots.ErrNotApplicable) || errors.Is(err, plots.ErrNoRestores) || (err == nil && p == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: chart %s of %s: %w", c.Name, run.Label, err)
	}
	svg, err := svgOf(p)
	if err != nil {
		return nil, fmt.Errorf("report: chart %s of %s: %w", c.Name, run.Label, err)
	}
	name := c.Name + "-" + strings.ToLower(run.Label)
	return &Figure{Name: name, Title: c.Title + ", " + run.Label, Caption: c.Caption + " (package plots, " + run.Label + ")", SVG: svg}, nil
}

// restoresWhere lists the restores of every run that keep accepts, with
// their run, in input order.
func restoresWhere(a *capacity.Analysis, keep func(runs.Restore) bool) []runRestore {
	var out []runRestore
	for _, run := range a.Runs {
		for _, r := range run.Results.Restores {
			if keep(r) {
				out = append(out, runRestore{run, r})
			}
		}
	}
	return out
}

// runRestore is a restore and the run it is from.
type runRestore struct {
	run *capacity.Run
	r   runs.Restore
}

// ref cites the restore: "R1 warm@256MiB/changed=0 #2".
func (x runRestore) ref() string { return fmt.Sprintf("%s %s #%d", x.run.Label, x.r.Case, x.r.Repeat) }

// warmSection: the warm restarts, step by step, against the cold restore
// of the same state, and the rate the recovery-time table uses.
func warmSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "warm", Title: "Warm restarts"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Warm != nil })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "An instance restarted with its state directory kept (a persistent volume) reopens its stores and replays only the records written to its changelogs while it was down, from the offsets its stores committed. " +
		"Its time depends on that backlog of changes, not on the state's size."})
	if w := a.Warm; w != nil {
		s.Blocks = append(s.Blocks, &Para{Text: fmt.Sprintf("**Warm-restart rate (%s):** %s. A restart with nothing changed took %s; the cold restore of the same state %s.",
			w.Setup.ScenarioLabel(), w.Summary(), capacity.FormatSeconds(w.ZeroSeconds), capacity.FormatSeconds(w.ColdSeconds))})
	} else {
		s.Blocks = append(s.Blocks, &Para{Text: "No warm-restart rate: " + a.WarmErr.Error() + "."})
	}
	s.Blocks = append(s.Blocks, warmTable(recs))
	err := s.addFigures(a, config.ScenarioWarm)
	return s, err
}

// warmTable is one row per step and case: the medians over repeats.
func warmTable(recs []runRestore) *Table {
	t := &Table{Caption: "Warm restarts, medians over verified repeats",
		Legend: "records changed: written while the instance was down; records read, bytes read: what the restart restored; time to ready: median, range min–max; of cold: against the same repeats' cold restore; tasks warm / from log start: tasks resumed from their checkpoint, and those whose checkpoint lay below the log start (restored cold).",
		Head:   []string{"step", "records changed", "records read", "bytes read", "time to ready", "range", "of cold", "tasks warm / from log start"},
		Right:  []bool{false, true, true, true, true, true, true, true}}
	for _, g := range groupRecords(recs) {
		v := verifiedOf(g)
		step := fmt.Sprintf("%s %s %s", g[0].run.Label, g[0].r.Case, refsOf(g))
		if len(v) == 0 {
			t.Rows = append(t.Rows, []string{step, "", "", "", "not verified", "", "", ""})
			continue
		}
		w := v[0].r.Warm
		tot := totals(v)
		ofCold := ""
		if v[0].r.StepKind() != runs.StepCold && w.ColdSeconds > 0 {
			ofCold = fmt.Sprintf("%.1f%%", 100*runs.Median(durations(v))/w.ColdSeconds)
		}
		t.Rows = append(t.Rows, []string{step, thousands(w.Changed), thousands(v[0].r.Records), capacity.FormatBytes(float64(v[0].r.Bytes)),
			capacity.FormatSeconds(runs.Median(tot)), secondsRange(tot), ofCold, fmt.Sprintf("%d / %d", w.WarmTasks, w.FallbackTasks)})
	}
	return t
}

// standbySection: a standby following the changelog at each rate, its
// catch-up after pauses, and the failovers with and without one.
func standbySection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "standby", Title: "Standbys and failover"}
	steps := restoresWhere(a, func(r runs.Restore) bool { return r.Standby != nil && r.StepKind() != runs.StepInitial })
	kills := restoresWhere(a, func(r runs.Restore) bool { return r.Failover != nil })
	if len(steps) == 0 && len(kills) == 0 {
		return s, nil
	}
	if len(steps) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "A standby keeping up"},
			&Para{Text: "A standby replica (num.standby.replicas) applies the changelog as it is written. A step writes at a set rate while the standby's lag is sampled; it kept up when its lag stayed bounded and it caught up within a second of the writes stopping. " +
				"A pause stops the standby while writes go on, then times its catch-up to acceptable.recovery.lag."})
		if ev := a.Standby; ev != nil {
			s.Blocks = append(s.Blocks, &Para{Text: "**Highest write rate sustained:** " + ev.Sustained() + ": " + ev.SustainedBasis() + "."})
		}
		s.Blocks = append(s.Blocks, standbyTable(steps))
		if err := s.addFigures(a, config.ScenarioStandby); err != nil {
			return s, err
		}
	}
	if len(kills) > 0 {
		blocks, err := failoverBlocks(a)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, blocks...)
	}
	return s, nil
}

// standbyTable lists every rate and pause step.
func standbyTable(steps []runRestore) *Table {
	t := &Table{Caption: "Standby steps (rates in records/s, lag in records)",
		Legend: "target: the write rate asked; written: what the producer reached; applied: what the standby applied; lag: records written but not yet applied, over the step's samples; kept up: the lag stayed bounded and caught up within a second of the writes stopping; catch-up: after a pause, until the lag was within acceptable.recovery.lag.",
		Head:   []string{"restore", "target", "written", "applied", "lag p50", "lag p99", "lag max", "kept up", "catch-up", "verified"},
		Right:  []bool{false, true, true, true, true, true, true, false, true, false}}
	unjudged := 0
	for _, x := range steps {
		sb := x.r.Standby
		if !sb.Judged() {
			// Too few lag samples: no verdict, and no lag figures.
			unjudged++
			t.Rows = append(t.Rows, []string{x.ref(), perSec(sb.TargetRate), perSec(sb.WrittenRate), perSec(sb.AppliedRate),
				noFigure, noFigure, noFigure, noFigure, "", yesNo(x.r.Counts())})
			continue
		}
		kept := yesNo(sb.Sustained)
		if sb.ProducerLimited {
			kept += " (producer-limited)"
		}
		catch := ""
		if x.r.StepKind() == runs.StepPause && sb.CatchUpSeconds > 0 {
			catch = capacity.FormatSeconds(sb.CatchUpSeconds)
		}
		t.Rows = append(t.Rows, []string{x.ref(), perSec(sb.TargetRate), perSec(sb.WrittenRate), perSec(sb.AppliedRate),
			thousands(sb.LagP50), thousands(sb.LagP99), thousands(sb.LagMax), kept, catch, yesNo(x.r.Counts())})
	}
	if unjudged > 0 {
		t.Caption += fmt.Sprintf("; %s: the step took fewer than %d lag samples while it wrote, so it has no verdict", noFigure, runs.MinLagSamples)
	}
	return t
}

// noFigure stands in for a figure a step did not measure.
const noFigure = "–"

// failoverBlocks: per case the processing gaps of its kills, how the
// survivors took over and what the ledger check found.
func failoverBlocks(a *capacity.Analysis) ([]Block, error) {
	out := []Block{&Heading{Text: "Failover (SIGKILL)"},
		&Para{Text: "Two Kafka Streams instances run the ledger while a producer writes; the instance holding most tasks is killed with SIGKILL and the other takes over. " +
			"The gap is, per task, from the last record the killed instance processed to the first its survivor processed; a kill's gap is its longest task's. The ledger's balances are then checked against the acknowledged transactions."}}
	if f := a.Failover; f != nil {
		out = append(out, &Para{Text: fmt.Sprintf("**With a standby:** %s; takeovers: %s. Failure detection took %s (median; session.timeout.ms=%d).",
			f.Summary(), f.TakeoverText(), capacity.FormatSeconds(f.Detection), f.SessionTimeoutMs)})
	}
	t := &Table{Caption: "Failover cases: gaps over kills (median, min–max)",
		Legend: "gap: per kill the longest a victim task processed nothing (last record by the killed instance to first by the survivor); detection: from the kill to the survivor's rebalance (session.timeout.ms); back to RUNNING: until the survivor runs again, restores done; takeovers: promoted standby, warm from a checkpoint, or restored; ledger: the stores' accounts against the acknowledged transactions.",
		Head:   []string{"run", "case", "guarantee", "standby", "state kept", "kills", "gap median", "gap range", "detection", "back to RUNNING", "takeovers", "ledger"},
		Right:  []bool{false, false, false, false, false, true, true, true, true, true, false, false}}
	for _, run := range a.Runs {
		for _, fs := range runs.SummarizeFailover(run.Results.Restores) {
			row := []string{run.Label, fs.Case, fs.Guarantee, yesNo(fs.Standby), yesNo(fs.Persistent), fmt.Sprint(fs.Kills)}
			if fs.Kills > 0 {
				row = append(row, capacity.FormatSeconds(fs.MedianGap), secondsRange(fs.Gaps), capacity.FormatSeconds(fs.MedianDetection), capacity.FormatSeconds(fs.MedianRunning))
			} else {
				row = append(row, "", "", "", "")
			}
			t.Rows = append(t.Rows, append(row, takeovers(fs.Takeovers), fs.Verdict()))
		}
	}
	out = append(out, t)
	figs, err := runFigures(a, scenarioCharts(config.ScenarioFailover)...)
	return append(out, figs...), err
}

// takeovers writes the takeover counts: "5 promoted".
func takeovers(m map[string]int) string {
	var kinds []string
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

// scaleOutSection: measured scale-outs and rolling restarts, beside the
// warmup model's predictions.
func scaleOutSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "scaleout", Title: "Scale-out and rolling restarts"}
	outs := restoresWhere(a, func(r runs.Restore) bool { return r.ScaleOut != nil })
	rolls := restoresWhere(a, func(r runs.Restore) bool { return r.Rolling != nil })
	if len(outs) == 0 && len(rolls) == 0 {
		return s, nil
	}
	if len(outs) > 0 {
		s.Blocks = append(s.Blocks, &Para{Text: "Instances are added to a running application under a write load. Under the classic protocol (KIP-441) a task moves to a new instance only once a warmup replica there is within acceptable.recovery.lag, at a probing rebalance. " +
			"The warmup-assignment time runs from the new instances' start until the assignment is balanced and every task runs on its final owner. The warmup model's prediction from the same run's inputs is shown beside it."},
			scaleOutTable(outs))
		if err := s.addFigures(a, config.ScenarioScaleOut); err != nil {
			return s, err
		}
	}
	if len(rolls) > 0 {
		s.Blocks = append(s.Blocks, &Heading{Text: "Rolling restarts"}, rollingTable(rolls))
		if err := s.addFigures(a, config.ScenarioRolling); err != nil {
			return s, err
		}
	}
	return s, nil
}

func scaleOutTable(outs []runRestore) *Table {
	t := &Table{Caption: "Scale-outs",
		Legend: "probing rounds: KIP-441 probing rebalances; warmups: warmup replicas seen (task × instance); moved: tasks whose active instance changed; longest not processing: the longest one task processed nothing; warmup-assignment: from the new instances' start until balanced with every task running; model: the warmup model's prediction from the same run's inputs, not a measurement.",
		Head:   []string{"restore", "instances", "tasks", "protocol", "probing rounds", "rebalances", "warmups", "moved", "longest not processing", "warmup-assignment", "model (prediction)", "verified"},
		Right:  []bool{false, true, true, false, true, true, true, true, true, true, true, false}}
	for _, x := range outs {
		so := x.r.ScaleOut
		model := ""
		if p := so.Prediction; p != nil {
			model = fmt.Sprintf("%s (%+.1f%%)", capacity.FormatSeconds(p.TotalSeconds), so.PredictionErrorPct)
		}
		t.Rows = append(t.Rows, []string{x.ref(), fmt.Sprintf("%d → %d", so.Before, so.After), fmt.Sprint(so.Tasks), so.Protocol, fmt.Sprint(so.ProbingRounds),
			fmt.Sprint(so.Rebalances), fmt.Sprint(so.Warmups), fmt.Sprint(so.Moved), capacity.FormatSeconds(so.MaxNotProcessingSeconds),
			capacity.FormatSeconds(so.WarmupAssignmentSeconds), model, yesNo(x.r.Counts())})
	}
	return t
}

func rollingTable(rolls []runRestore) *Table {
	t := &Table{Caption: "Rolling restarts",
		Legend: "state kept: the state directory survived each restart (else wiped); static membership: group.instance.id set; downtime: per restart the longest any task processed nothing, summed over the restarts.",
		Head:   []string{"restore", "instances", "state kept", "static membership", "standbys", "restarts", "rebalances", "downtime (sum of restarts)", "verified"},
		Right:  []bool{false, true, false, false, true, true, true, true, false}}
	for _, x := range rolls {
		ro := x.r.Rolling
		t.Rows = append(t.Rows, []string{x.ref(), fmt.Sprint(ro.Instances), yesNo(ro.Persistent), yesNo(ro.StaticMembership), fmt.Sprint(ro.Standbys),
			fmt.Sprint(len(ro.Restarts)), fmt.Sprint(ro.Rebalances), capacity.FormatSeconds(ro.DowntimeSeconds), yesNo(x.r.Counts())})
	}
	return t
}

// compactionSection: what the log cleaner left for a restore to read
// under each cleaner setting.
func compactionSection(a *capacity.Analysis) (Section, error) {
	s := Section{ID: "compaction", Title: "Changelog compaction"}
	recs := restoresWhere(a, func(r runs.Restore) bool { return r.Compaction != nil })
	if len(recs) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, &Para{Text: "A restore reads the changelog as the log cleaner left it, not the live state. Each case wrote the fill to a changelog of its own with the case's cleaner settings, gave the cleaner its settle time, and restored it cold: " +
		"the **restore amplification** is the records read per live key (1 is a fully compacted log). The **bound** is the most the settings allow: the cleaner waits until the dirty part is min.cleanable.dirty.ratio of the log, and never cleans the active segment (segment.bytes per partition)."})
	t := &Table{Caption: "Compaction cases",
		Legend: "cleaned by: Kafka's log cleaner, or the embedded broker's compaction (a floor, not Kafka's cleaner); written, read at restore: records; amplification: read over live keys (1 = fully compacted); bound: the most those settings allow; log after write, before restore: the log's size on the broker.",
		Head:   []string{"restore", "cleaner settings", "cleaned by", "written", "read at restore", "live keys", "amplification", "bound", "log after write", "log before restore", "time to ready"},
		Right:  []bool{false, false, false, true, true, true, true, true, true, true, true}}
	for _, x := range recs {
		cr := x.r.Compaction
		t.Rows = append(t.Rows, []string{x.ref(), capacity.NewCleanerSettings(cr.TopicConfigs).String(), cr.CleanedBy, thousands(cr.Written), thousands(cr.Read), thousands(cr.LiveKeys),
			fmt.Sprintf("×%.2f", cr.Amplification), fmt.Sprintf("×%.2f", cr.Bound), capacity.FormatBytes(float64(cr.LogBytesAfterWrite)),
			capacity.FormatBytes(float64(cr.LogBytesBeforeRestore)), capacity.FormatSeconds(x.r.TotalSeconds)})
	}
	s.Blocks = append(s.Blocks, t)
	err := s.addFigures(a, config.ScenarioCompaction)
	return s, err
}

// addFigures adds the figures of every run for the charts of scenario sc
// (runFigures of scenarioCharts) to the section.
func (s *Section) addFigures(a *capacity.Analysis, sc config.Scenario) error {
	figs, err := runFigures(a, scenarioCharts(sc)...)
	s.Blocks = append(s.Blocks, figs...)
	return err
}

// groupRecords groups restores by run and record name, in first-seen order.
func groupRecords(recs []runRestore) [][]runRestore {
	var out [][]runRestore
	index := map[string]int{}
	for _, x := range recs {
		k := x.run.Label + "\x00" + x.r.Case
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], x)
	}
	return out
}

func verifiedOf(g []runRestore) []runRestore {
	var out []runRestore
	for _, x := range g {
		if x.r.Counts() {
			out = append(out, x)
		}
	}
	return out
}

func totals(g []runRestore) []float64 {
	out := make([]float64, len(g))
	for i, x := range g {
		out[i] = x.r.TotalSeconds
	}
	return out
}

func durations(g []runRestore) []float64 {
	out := make([]float64, len(g))
	for i, x := range g {
		out[i] = x.r.DurationSeconds
	}
	return out
}

// refsOf cites a group of repeats: "#1,2,3".
func refsOf(g []runRestore) string {
	reps := make([]string, len(g))
	for i, x := range g {
		reps[i] = fmt.Sprint(x.r.Repeat)
	}
	return "#" + strings.Join(reps, ",")
}

// perSec writes a rate in records a second with separators: "80,000".
func perSec(x float64) string { return thousands(int64(x + 0.5)) }

// secondsRange is "min–max" of xs in seconds.
func secondsRange(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f–%.2f", runs.Min(xs), runs.Max(xs))
}
