package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/internal/units"
)

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as tables a person reads in a minute.
func WriteText(w io.Writer, r *Report) error {
	b := &strings.Builder{}
	writeHead(b, r)
	if len(r.Changelogs) > 0 {
		writeChangelogs(b, r.Changelogs)
	}
	if len(r.Instances) > 0 {
		writeFailures(b, r)
		writeRestarts(b, r)
		if r.MostCostly != "" {
			fmt.Fprintf(b, "* costs most to lose: %s (%s)\n", r.MostCostly, strings.Join(instanceByID(r, r.MostCostly).ClientIDs, ", "))
		}
		b.WriteString("\n")
	}
	writeTimeTerms(b, r)
	if so := r.IfOneAdded; so != nil {
		writeScaleOut(b, r, so)
	}
	writeList(b, "assumed:", r.Assumptions)
	writeList(b, "could not be seen:", r.Unseen)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes the report's first line, the application and its
// group as described, and a blank line.
func writeHead(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "application %s", r.Application)
	if g := r.Group; g != nil {
		fmt.Fprintf(b, ": group %s", g.State)
		if g.Type != "" {
			fmt.Fprintf(b, " (%s protocol)", g.Type)
		}
		fmt.Fprintf(b, ", %d instance(s) of %d member(s)", len(r.Instances), len(g.Members))
		if len(g.AssignmentVersions) > 0 {
			fmt.Fprintf(b, ", AssignmentInfo v%s, SubscriptionInfo v%s", joinInts(g.AssignmentVersions), joinInts(g.SubscriptionVersions))
		}
	}
	b.WriteString("\n")
	if r.Inconclusive != "" {
		fmt.Fprintf(b, "INCONCLUSIVE: %s\n", r.Inconclusive)
	}
	b.WriteString("\n")
}

// writeChangelogs writes the changelogs' table (sizes, shapes and the
// subtopology writing each) and their shape notes.
func writeChangelogs(b *strings.Builder, cls []Changelog) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "changelog\tpartitions\trecords\ton disk\tbytes/record\trecords/live key\ttombstones\tsubtopology\t")
	for _, c := range cls {
		disk := "not reported"
		if c.DiskBytes != nil {
			disk = units.Bytes(float64(*c.DiskBytes))
		}
		bpr, rpk, tomb := "-", "-", "-"
		if c.Shape != nil {
			bpr = fmt.Sprintf("%.1f", c.Shape.BytesPerRecord())
			rpk = fmt.Sprintf("%.2f", c.Shape.RecordsPerKey)
			tomb = fmt.Sprintf("%.1f%%", 100*c.Shape.TombstoneShare())
			if c.Shape.PrefixOf > 0 {
				rpk += " (prefix)"
			}
		}
		sub := "?"
		if c.Subtopology != nil {
			sub = fmt.Sprintf("%d (topology)", *c.Subtopology)
			if strings.HasPrefix(c.MappingNote, "ASSUMED") {
				sub = fmt.Sprintf("%d (assumed)", *c.Subtopology)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", c.Topic, c.Partitions, c.Records, disk, bpr, rpk, tomb, sub)
	}
	tw.Flush()
	for _, c := range cls {
		if c.ShapeNote != "" {
			fmt.Fprintf(b, "  %s: %s\n", c.Topic, c.ShapeNote)
		}
	}
	b.WriteString("\n")
}

// failuresHead is the head of the instances' table: each one's tasks and
// state, and what its loss costs.
const failuresHead = "instance (process id)\thost\tthreads\tactive tasks\tstandby tasks (lag records)\tactive state\tstandby state\t" +
	"if it fails: restored\ttaken over warm\tlargest thread\ttime (interval)\t"

// writeFailures writes the instances' table, each one's tasks, state and
// what its loss costs (the most costly marked), then the notes of those
// answers and a blank line.
func writeFailures(b *strings.Builder, r *Report) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, failuresHead)
	for _, in := range r.Instances {
		f := in.IfItFails
		mark := ""
		if in.ProcessID == r.MostCostly {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", in.ProcessID, mark, strings.Join(in.Hosts, ","), in.Threads,
			list(in.Active), standbyText(in), in.ActiveStateText(), units.Bytes(in.StandbyStateBytes),
			f.RestoredText(), list(f.TakenOverWarm), units.Bytes(f.ThreadBytes), timeText(f))
	}
	tw.Flush()
	for _, in := range r.Instances {
		if n := in.IfItFails.Note; n != "" {
			fmt.Fprintf(b, "  if %s fails: %s\n", in.ProcessID, n)
		}
	}
	b.WriteString("\n")
}

// writeRestarts writes the restarts' table, on the instance's state dir
// and on an empty disk, their notes (a note on its state dir said once
// for all the instances it is about) and what a restart's time is made
// of.
func writeRestarts(b *strings.Builder, r *Report) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "instance (process id)\tif it restarts on its state dir: time (interval)\ton an empty disk: restored\ttaken over warm\ttime (interval)\t")
	for _, in := range r.Instances {
		kept, empty := in.IfRestartedWithState, in.IfRestartedEmpty
		if kept == nil || empty == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", in.ProcessID, timeText(kept), empty.RestoredText(), list(empty.TakenOverWarm), timeText(empty))
	}
	tw.Flush()
	once := map[string]bool{}
	for _, in := range r.Instances {
		if f := in.IfRestartedWithState; f != nil && f.Note != "" && !once[f.Note] {
			once[f.Note] = true
			fmt.Fprintf(b, "  restarts on its state dir: %s\n", f.Note)
		}
	}
	for _, in := range r.Instances {
		if f := in.IfRestartedEmpty; f != nil && f.Note != "" {
			fmt.Fprintf(b, "  if %s restarts on an empty disk: %s\n", in.ProcessID, f.Note)
		}
	}
	fmt.Fprintf(b, "  restarts: %s\n", r.RestartTerms())
}

// writeTimeTerms writes what a loss's time is made of: detection, the
// handover and, with a rate, the largest surviving thread's restore.
func writeTimeTerms(b *strings.Builder, r *Report) {
	detect := detectionTerms(r)
	switch {
	case r.Rate != "":
		fmt.Fprintf(b, "time = %s + the largest surviving thread's restore at %s, its fixed start not counted; "+
			"a task moves to the most caught-up copy (within acceptable.recovery.lag %d it is warm)\n",
			detect, r.Rate, r.AcceptableRecoveryLag)
	case r.RateMissing != "":
		fmt.Fprintf(b, "time = %s, without restores; %s\n", detect, r.RateMissing)
	default:
		fmt.Fprintf(b, "time = %s\n", detect)
	}
}

// detectionTerms is the time before a restore: failure detection and
// rejoin on the group's protocol's settings, then the handover, each said
// ASSUMED where it is.
func detectionTerms(r *Report) string {
	session, heartbeat := "session.timeout.ms", "heartbeat.interval.ms"
	if r.OnStreamsProtocol() {
		session, heartbeat = "the group's streams.session.timeout.ms", "streams.heartbeat.interval.ms"
	}
	detect := fmt.Sprintf("failure detection and rejoin (%s %s", session, units.Seconds(r.DetectionSeconds))
	if r.DetectionAssumed {
		detect += " ASSUMED"
	}
	detect += fmt.Sprintf(", less up to one %s %s before the death, plus up to one after", heartbeat, units.Seconds(r.HeartbeatSeconds))
	if r.HeartbeatAssumed {
		detect += " ASSUMED"
	}
	detect += fmt.Sprintf(") + handover %s (%s-%s, ASSUMED)", units.Seconds(r.Handover.Value), units.Seconds(r.Handover.Lo), units.Seconds(r.Handover.Hi))
	return detect
}

// writeScaleOut writes the answer to adding one instance: the warmup
// model's prediction and what it was run on, or why there is none, then
// what it assumed.
func writeScaleOut(b *strings.Builder, r *Report, so *ScaleOut) {
	b.WriteString("\n")
	switch p := so.Prediction; {
	case p == nil:
		fmt.Fprintf(b, "if one instance is added: no time (%s)\n", so.Missing)
	default:
		in := p.Inputs
		fmt.Fprintf(b, "if one instance is added (%d -> %d), PREDICTION (warmup model, not measured): balanced and every task running after %s",
			in.Before, in.After, units.Seconds(p.TotalSeconds))
		if s := p.Spread; s != nil {
			fmt.Fprintf(b, " (median over %d orders of the new instance's process id; %s-%s)", s.Samples, units.Seconds(s.MinSeconds), units.Seconds(s.MaxSeconds))
		}
		if !p.Converged {
			b.WriteString(": NEVER CONVERGES (a warm-up's share of its thread's restore rate does not exceed its task's write rate)")
		}
		fmt.Fprintf(b, "; %d probing rebalance(s), %d task(s) moved, the longest a moved task waits %s\n",
			p.ProbingRounds, p.Movements, units.Seconds(p.MaxDownSeconds))
		fmt.Fprintf(b, "  from: %d stateful tasks, restore %.0f records/s a thread (%s), writes %.0f records/s",
			len(in.TaskOffsets), in.RestoreRate, in.RestoreRateFrom, in.WriteRate)
		if r.WriteRecordsPerSecond != nil {
			fmt.Fprintf(b, " (measured over %s while audit read)", units.Seconds(r.WriteWindowSeconds))
		}
		b.WriteString("\n")
	}
	for _, a := range so.Assumed {
		fmt.Fprintf(b, "  assumed: %s\n", a)
	}
	b.WriteString("\n")
}

// writeList writes items under title, one "  - " line each; nothing
// without items.
func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, it := range items {
		fmt.Fprintf(b, "  - %s\n", it)
	}
}

func instanceByID(r *Report, id string) *Instance {
	for _, in := range r.Instances {
		if in.ProcessID == id {
			return in
		}
	}
	return &Instance{}
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " ")
}

func joinInts(v []int32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

// standbyText is its standby tasks, each with its lag when known.
func standbyText(in *Instance) string {
	var parts []string
	for _, c := range in.Copies {
		if !c.Standby {
			continue
		}
		lag := "?"
		if c.LagRecords != nil {
			lag = fmt.Sprintf("≤%d", *c.LagRecords)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Task, lag))
	}
	return list(parts)
}

// RestoredText is what f restores: its tasks and bytes, "nothing" only
// when every moved task's state was seen, else what is unknown.
func (f *Failure) RestoredText() string {
	unknown := ""
	if len(f.Unknown) > 0 {
		unknown = "unknown (state not seen: " + list(f.Unknown) + ")"
	}
	switch {
	case len(f.Restored) == 0 && unknown != "":
		return unknown
	case len(f.Restored) == 0:
		return "nothing"
	case unknown != "":
		return fmt.Sprintf("%s: %s + %s", list(f.Restored), units.Bytes(f.RestoreBytes), unknown)
	}
	return fmt.Sprintf("%s: %s", list(f.Restored), units.Bytes(f.RestoreBytes))
}

// ActiveStateText is in's active state bytes, with what is unknown when
// some of its tasks' state was not seen.
func (in *Instance) ActiveStateText() string {
	if len(in.UnseenStateTasks) > 0 {
		return units.Bytes(in.ActiveStateBytes) + " + unknown (" + list(in.UnseenStateTasks) + ")"
	}
	return units.Bytes(in.ActiveStateBytes)
}

func timeText(f *Failure) string {
	if f.Total == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s-%s)", units.Seconds(f.Total.Value), units.Seconds(f.Total.Lo), units.Seconds(f.Total.Hi))
}

// Load reads an audit written by `restorebench audit --format json`,
// refusing a file that is not one (another schema, or none).
func Load(path string) (*Report, error) {
	data, err := boundedread.ReadFile(path, boundedread.Audit)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not an audit's JSON: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, want %q (the output of restorebench audit --format json)", path, r.Schema, Schema)
	}
	if err := checkFigures(reflect.ValueOf(r), ""); err != nil {
		return nil, fmt.Errorf("%s: %w (an edited or corrupt audit)", path, err)
	}
	return &r, nil
}

// checkFigures refuses a negative or non-finite number anywhere in v
// (sizes, counts, durations, rates: an audit writes none), naming its
// field by its JSON path under at.
func checkFigures(v reflect.Value, at string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkFigures(v.Elem(), at)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if err := checkFigures(v.Field(i), joinPath(at, name)); err != nil {
				return err
			}
		}
		// Figures the JSON writes in other fields than the Go ones
		// (figures_json.go) are checked as the file names them.
		if !v.CanInterface() {
			return nil
		}
		if w, ok := v.Interface().(interface{ figuresJSON() any }); ok {
			return checkFigures(reflect.ValueOf(w.figuresJSON()), at)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFigures(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkFigures(it.Value(), fmt.Sprintf("%s[%v]", at, it.Key())); err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) || x < 0 && !(x == -1 && strings.Contains(at, predictionTasks)) {
			return fmt.Errorf("%s is %v: a figure of an audit is finite and not negative", at, x)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 && !(v.Int() == -1 && strings.Contains(at, predictionTasks)) {
			return fmt.Errorf("%s is %d: a figure of an audit is not negative", at, v.Int())
		}
	}
	return nil
}

// predictionTasks is the path of the scale-out prediction's task
// timelines, whose times are -1 where they do not apply
// (warmup.TaskPlan).
const predictionTasks = "if_one_instance_added.prediction.tasks["

func joinPath(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}
