package capacity

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/heapsearch"
	"github.com/restorebench/restorebench/topicshape"
)

// Deployment describes the application a plan is for. Zero fields are
// unknown: the answers that need them are skipped.
type Deployment struct {
	// StateBytes is the changelog bytes of one store across all its
	// partitions: what restoring every task would read.
	StateBytes float64
	// LiveBytes is the store's live state (key+value bytes of its current
	// records) when StateBytes is not known: the changelog is then
	// estimated from the restore amplification of the CleanerSettings.
	LiveBytes float64
	// CleanerSettings are the changelog topic's cleaner settings by Kafka's names
	// (min.cleanable.dirty.ratio, segment.bytes, ...); those left out are
	// Kafka's defaults.
	CleanerSettings map[string]string
	// Partitions is the changelog's partition count: one task each.
	Partitions int
	// Instances is the number of application instances sharing the tasks.
	Instances int
	// Standbys is num.standby.replicas.
	Standbys int
	// WriteRate is the bytes per second written to the changelog.
	WriteRate float64
	// RecordsPerKey is the changelog's records per live key (1 for a fully
	// compacted one, more where overwrites wait for the cleaner); 0 when
	// unknown. Restore rates depend on it: the answers warn when theirs was
	// measured far from it.
	RecordsPerKey float64
	// BytesPerRecord and TombstoneShare are the changelog's key+value bytes
	// per record and share of tombstones; 0 when unknown (set from
	// Changelog).
	BytesPerRecord, TombstoneShare float64
	// HotShare is the share of the changelog's records whose key is among
	// the loadgen.HotKeyWindow records of its partition before it (skewed
	// keys restore faster), known (HotKnown) only from a read of the
	// changelog.
	HotShare float64
	HotKnown bool
	// Changelog is what a read of the user's changelog topic found
	// (--from-topic), nil without one; Taken names the fields set from it
	// ("state", "partitions", "records per live key").
	Changelog *topicshape.Shape
	Taken     []string
	// DiskBytes and MemoryBytes are what one instance has for its stores
	// on disk and for RocksDB off-heap; 0 when not given. The footprint
	// answers say whether the deployment fits them.
	DiskBytes, MemoryBytes float64
	// Heap is a `restorebench heap` search (--heap), nil without one: the
	// footprint answers give its answer as the JVM heap an instance needs.
	Heap *heapsearch.Result
}

// topic is the user's changelog topic read for the deployment, "" without one.
func (d Deployment) topic() string {
	if d.Changelog == nil {
		return ""
	}
	return d.Changelog.Topic
}

// IsZero reports whether nothing about the deployment is known.
func (d Deployment) IsZero() bool {
	return d.StateBytes == 0 && d.LiveBytes == 0 && len(d.CleanerSettings) == 0 && d.Partitions == 0 &&
		d.Instances == 0 && d.Standbys == 0 && d.WriteRate == 0 && d.RecordsPerKey == 0
}

// Answer is one capacity answer with everything it rests on.
type Answer struct {
	// Question is what is answered, e.g. "Largest changelog per task within 5 min".
	Question string
	// Value is the answer, e.g. "31.2 GB".
	Value string
	// Checks compare the answer with each objective, for answers that are
	// restore times.
	Checks []Check
	// Extrapolated is true when the answer lies outside the measured
	// sizes: beyond the largest, or, with Below, under the smallest.
	Extrapolated bool
	Below        bool
	// RecordSizeOutside is "below" or "beyond" when the answer rests on a
	// restore cost evaluated at a record size outside those it was fitted
	// over, "" otherwise.
	RecordSizeOutside string
	// ShapeOutside says, when the answer rests on a restore cost evaluated
	// outside the changelog shapes it was fitted over, on which side of
	// what: "below the record sizes measured", "beyond the records per
	// live key measured"; "" inside them.
	ShapeOutside string
	// Inputs are the figures it was computed from; Sources cites restores.
	Inputs  []string
	Sources string
	// RateBased is set on answers computed from the cold-restore rate:
	// they carry the rate's warnings (a changelog shape far from the
	// deployment's).
	RateBased bool
	// Figure is the answer's one number (a restore time, a size, a count,
	// a rate, a ratio) with its unit, interval, extrapolation and
	// calibration factor; Value is written from it. nil for an answer
	// with no one figure (a yes or no, a verdict per objective).
	Figure *Figure
	// ID names the kind of answer for scripts (plan --format json), stable
	// across releases: "cold_restore_task", "partitions_needed", ...; the
	// answers a kind gives per objective share it and differ by RTO.
	ID string
	// RTO is the objective a per-objective answer is for; 0 for others.
	RTO time.Duration
}

// TimeValue is a restore time as an answer shows it: a calibrated
// prediction with its interval, "2.9 min (2.4–3.5 min)" (the factor's
// uncertainty is part of what it says); a measured or uncalibrated one as
// its value, its interval among the inputs.
func TimeValue(e Estimate) string { return Figure{Estimate: e, Unit: UnitSeconds}.Text() }

// SizeValue is a size as an answer shows it: a calibrated prediction with
// its interval, "4.80 GB (4.61–4.95 GB)", else its value.
func SizeValue(e Estimate) string { return Figure{Estimate: e, Unit: UnitBytes}.Text() }

// withInterval formats a calibrated estimate with its interval, the unit
// said once when both ends share it (one with no spread says so rather
// than show "2.03–2.03 min"); others as their value.
func withInterval(e Estimate, format func(float64) string) string {
	v := format(e.Value)
	if !e.Calibrated() || !e.HasInterval() {
		return v
	}
	if e.Hi <= e.Lo { // one restore and one repeat pair, or repeats that agree: no spread to show
		return v + " (no interval measured)"
	}
	lo, hi := format(e.Lo), format(e.Hi)
	if i, j := strings.LastIndexByte(lo, ' '), strings.LastIndexByte(hi, ' '); i > 0 && j > 0 && lo[i:] == hi[j:] {
		lo = lo[:i]
	}
	return fmt.Sprintf("%s (%s–%s)", v, lo, hi)
}

// withFactor adds the calibration factor an estimate was scaled by, with
// what it rests on, to an answer's inputs.
func withFactor(inputs []string, e Estimate) []string {
	if e.Factor == nil {
		return inputs
	}
	return append(inputs, e.Factor.Basis())
}

// Check is whether a restore time meets one recovery-time objective, by
// how much, and whether the inputs can decide it at all.
type Check struct {
	RTO   time.Duration
	Meets bool
	// Margin is the objective minus the time, in seconds: the time to
	// spare when positive, by how much it misses when negative. For an
	// estimate with an interval it is taken at the interval's end nearest
	// the objective (the slow end for a time that meets it, the fast end
	// for one that misses), so the margin holds over the whole interval;
	// for an inconclusive check it is the point estimate's, its sign
	// Meets' (positive when the point estimate meets the objective).
	Margin float64
	// AtLeast says Margin was taken at the interval's near end: the
	// verdict then reads "by at least".
	AtLeast bool
	// Inconclusive says the inputs cannot decide: the objective lies inside
	// the estimate's interval, or the estimate rests on a wide
	// extrapolation; Why says which. Meets is then the point estimate's
	// side, not a verdict.
	Inconclusive bool
	Why          string
}

// Verdict is the check in words: "meets the 2 min RTO by 20.0 s",
// "MISSES the 2 min RTO by 33.1 s" or "INCONCLUSIVE for the 2 min RTO: …".
func (c Check) Verdict() string {
	switch {
	case c.Inconclusive:
		return "INCONCLUSIVE for the " + FormatRTO(c.RTO) + " RTO: " + c.Why
	case c.Meets:
		return "meets the " + FormatRTO(c.RTO) + " RTO by " + c.MarginText()
	}
	return "MISSES the " + FormatRTO(c.RTO) + " RTO by " + c.MarginText()
}

// MarginText is the margin's size in words, "at least 20.0 s" when it was
// taken at an interval's near end.
func (c Check) MarginText() string {
	s := FormatSeconds(math.Abs(c.Margin))
	if c.AtLeast {
		return "at least " + s
	}
	return s
}

// Unanswered is a question the inputs cannot answer, and why.
type Unanswered struct {
	Question, Reason string
}

// answerer adds the answers of one kind, registered from the file that
// reads its scenario's records (registerAnswerer in its init: warm.go the
// warm restarts', standby.go the standbys' and failovers', ...).
type answerer struct {
	// order places the answers among the others: lower first, one answerer
	// an order (the registry is filled from the files' inits, in whatever
	// order they run).
	order  int
	answer func(a *Analysis) ([]Answer, []Unanswered)
	// needsRate is set for the answers that rest on the cold-restore rate:
	// without one they are not asked (the rate's absence is said once).
	needsRate bool
	// scenarios are the scenarios whose records the answers read.
	scenarios []config.Scenario
}

// answerers are asked in order: the one list of the planner's answers.
// Every scenario's records are read by at least one (a test holds that to
// config's registry).
var answerers = byScenario[answerer]("capacity: the answerer of")

func (a answerer) place() (int, []config.Scenario) { return a.order, a.scenarios }

// registerAnswerer adds a in its order. It panics, when the program
// starts, on an order another answerer has, and on an answerer reading
// no scenario or one config does not register.
func registerAnswerer(a answerer) { register(&answerers, "the answerer", a, false) }

// The cold restores' answers: the largest task and instance within each
// RTO, then the given deployment's restore times.
func init() {
	registerAnswerer(answerer{order: 20, answer: taskAnswers, needsRate: true, scenarios: []config.Scenario{config.ScenarioCold}})
	registerAnswerer(answerer{order: 30, answer: deploymentAnswers, needsRate: true, scenarios: []config.Scenario{config.ScenarioCold}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 10, IDs: []string{"your_changelog"}, Unit: UnitBytes,
		Meaning: "`--from-topic`: the key+value bytes of the changelog read"})
	declareAnswerID(AnswerID{Row: 50, IDs: []string{"cold_restore_rate"}, Unit: UnitBytesPerSecond,
		Meaning: "the rate the answers rest on, a stream thread (`rate` has it in numbers)"})
	declareAnswerID(AnswerID{Row: 60, IDs: []string{"largest_task_within_rto"}, Unit: UnitBytes, PerObjective: true,
		Meaning: "the largest changelog a task restores within the objective"})
	declareAnswerID(AnswerID{Row: 70, IDs: []string{"largest_instance_within_rto"}, Unit: UnitBytes, PerObjective: true,
		Meaning: "the same for an instance's threads (with `--threads` above 1)"})
	declareAnswerID(AnswerID{Row: 80, IDs: []string{"partitions_needed"}, Unit: UnitCount, PerObjective: true,
		Meaning: "the fewest partitions for each task to restore within the objective (a lower bound)"})
	declareAnswerID(AnswerID{Row: 90, IDs: []string{"cold_restore_task"}, Unit: UnitSeconds,
		Meaning: "one task's cold restore, with `checks`"})
	declareAnswerID(AnswerID{Row: 100, IDs: []string{"cold_restore_instance"}, Unit: UnitSeconds,
		Meaning: "one instance's cold restore, with `checks`"})
	declareAnswerID(AnswerID{Row: 110, IDs: []string{"instances_needed"}, Unit: UnitCount, PerObjective: true,
		Meaning: "the fewest instances for an instance's tasks to restore within the objective"})
}

// buildAnswers asks every answerer, after the rate answer. Without a
// cold-restore rate only the answers that do not rest on it are given.
func buildAnswers(a *Analysis) ([]Answer, []Unanswered) {
	var out []Answer
	var missing []Unanswered
	if c := a.Options.Deployment.Changelog; c != nil {
		out = append(out, changelogAnswer(c, a.Options.Deployment.Taken))
	}
	if r := a.Rate; r == nil {
		missing = append(missing, Unanswered{Question: "cold-restore rate", Reason: a.RateErr.Error()})
	} else {
		out = append(out, Answer{
			ID:        "cold_restore_rate",
			Figure:    measuredFigure(r.PerThread, UnitBytesPerSecond),
			Question:  "Cold-restore rate (" + r.Label() + ")",
			Value:     r.Summary(),
			Inputs:    []string{r.Basis()},
			Sources:   Refs(r.Obs),
			RateBased: true,
		})
	}
	for _, f := range answerers.All() {
		if f.needsRate && a.Rate == nil {
			continue
		}
		as, ms := f.answer(a)
		for i := range as {
			as[i].RateBased = as[i].RateBased || f.needsRate
		}
		out = append(out, as...)
		missing = appendNew(missing, ms...)
	}
	if a.Rate != nil {
		w := a.Rate.FarFrom(a.Options.Deployment)
		side, shape := a.Rate.recordSizeOutside(), a.Rate.shapeOutside()
		for i := range out {
			if !out[i].RateBased {
				continue
			}
			if w != "" {
				out[i].Inputs = append(out[i].Inputs, w)
			}
			out[i].RecordSizeOutside, out[i].ShapeOutside = side, shape
		}
	}
	return out, missing
}

// changelogAnswer is what the read of the user's changelog found, and
// which of the deployment's figures it gave.
func changelogAnswer(c *topicshape.Shape, taken []string) Answer {
	sample := "every key counted"
	if c.SampleShare < 1 {
		sample = fmt.Sprintf("keys counted over 1/%.0f of the key space (memory bound), live figures scaled up", 1/c.SampleShare)
	}
	over, read := Plural(c.Partitions, "partition"), "read from the log start to the end offsets"
	if n := len(c.ReadPartitions); n > 0 {
		// A sample: every figure here is those partitions' alone.
		ps := FormatPartitions(c.ReadPartitions)
		over = fmt.Sprintf("the %s sampled (%s) of its %d", Plural(n, "partition"), ps, c.Partitions)
		read = fmt.Sprintf("partitions %s read from the log start to the end offsets", ps)
	}
	read = fmt.Sprintf("%s in %s: %s records", read, FormatSeconds(c.Seconds), count(float64(c.Records)))
	if c.Offsets > c.Records {
		read += fmt.Sprintf(" of %s offsets (the rest compaction gaps or transaction markers)", count(float64(c.Offsets)))
		if c.AbortMarkers > 0 {
			read = strings.TrimSuffix(read, ")") + ", and aborted transactions' records)"
		}
	}
	in := []string{read}
	if c.Transactional() {
		in = append(in, transactionsRead(c))
	}
	in = append(in, fmt.Sprintf("live keys %s, live state %s (%s)", count(c.LiveKeys), FormatBytes(c.LiveBytes), sample))
	if c.NullKeys > 0 {
		in = append(in, fmt.Sprintf("%s records without a key (a store skips them)", count(float64(c.NullKeys))))
	}
	if len(taken) > 0 {
		in = append(in, "taken for this plan: "+strings.Join(taken, ", "))
	} else {
		in = append(in, "taken for this plan: nothing (the flags gave every figure)")
	}
	fig := measuredFigure(float64(c.Bytes), UnitBytes)
	return Answer{
		ID:       "your_changelog",
		Figure:   fig,
		Question: "Your changelog (topic " + c.Topic + ")",
		Value: fmt.Sprintf("%s of key+value in %s records over %s; %.2f records per live key, %s a record, %.1f%% tombstones",
			fig.Text(), count(float64(c.Records)), over,
			c.RecordsPerKey, FormatBytes(c.BytesPerRecord()), 100*c.TombstoneShare()),
		Inputs: in,
	}
}

// transactionsRead says how a changelog holding transactions was read:
// read_committed, as Kafka Streams restores it under exactly_once_v2, the
// application such a changelog comes from.
func transactionsRead(c *topicshape.Shape) string {
	iso := c.IsolationLevel
	if iso == "" {
		iso = "read_committed"
	}
	markers := count(float64(c.Markers)) + " transaction markers"
	if c.Markers == 1 {
		markers = "1 transaction marker"
	}
	t := fmt.Sprintf("the topic holds transactions (%s, %s of them aborting): read with %s, as Kafka Streams under "+
		"exactly_once_v2 restores it, so aborted transactions' records are not counted",
		markers, count(float64(c.AbortMarkers)), iso)
	if c.OpenOffsets > 0 {
		t += fmt.Sprintf("; %s offsets past the last stable offset (a transaction still open) not read, as such a restore ends there", count(float64(c.OpenOffsets)))
	}
	return t
}

func appendNew(xs []Unanswered, ys ...Unanswered) []Unanswered {
	for _, y := range ys {
		dup := false
		for _, x := range xs {
			dup = dup || x == y
		}
		if !dup {
			xs = append(xs, y)
		}
	}
	return xs
}

// taskAnswers: per RTO, the largest task and instance within it, and the
// partitions a given state needs. These are the cold-restore row's cells.
func taskAnswers(a *Analysis) ([]Answer, []Unanswered) {
	var out []Answer
	var missing []Unanswered
	for _, rto := range a.Options.RTOs {
		as, ms := taskAnswersFor(a, rto)
		out, missing = append(out, as...), append(missing, ms...)
	}
	return out, missing
}

func taskAnswersFor(a *Analysis, rto time.Duration) ([]Answer, []Unanswered) {
	r, t := a.Rate, a.Options.Threads
	task := r.BytesWithin(rto.Seconds())
	inst := task.Times(float64(t))
	rtoText := FormatRTO(rto)
	out := []Answer{
		{
			ID:           "largest_task_within_rto",
			RTO:          rto,
			Question:     "Largest changelog per task restored within " + rtoText,
			Value:        InconclusiveIfWide(SizeValue(task), task),
			Extrapolated: task.Extrapolated,
			Below:        task.Below,
			Inputs:       withFactor([]string{"RTO " + rtoText, r.Summary()}, task),
			Sources:      RunLabels(r.Obs),
			Figure:       figureOf(task, UnitBytes),
		},
	}
	if t > 1 { // with one thread an instance restores what a task does
		out = append(out, Answer{
			ID:           "largest_instance_within_rto",
			RTO:          rto,
			Question:     fmt.Sprintf("Largest changelog per instance (%s) restored within %s", Plural(t, "stream thread"), rtoText),
			Value:        InconclusiveIfWide(SizeValue(inst), task),
			Extrapolated: task.Extrapolated,
			Below:        task.Below,
			Inputs:       withFactor([]string{"RTO " + rtoText, r.Summary(), threadsBasis(r, t)}, task),
			Sources:      RunLabels(r.Obs),
			Figure:       figureOf(inst, UnitBytes),
		})
	}
	state := a.ChangelogBytes()
	if state <= 0 {
		return out, nil
	}
	q := "Partitions needed so each task restores within " + rtoText
	if task.Value <= 0 {
		return out, []Unanswered{{Question: q, Reason: fmt.Sprintf("no partition count helps: the fixed overhead of a "+
			"restore (%s) exceeds %s", FormatSeconds(factorValue(r.FactorAt(0))*r.Overhead), rtoText)}}
	}
	need := int(math.Ceil(state / task.Value))
	inputs := []string{a.stateText(), "largest changelog per task " + FormatBytes(task.Value),
		"a lower bound: the tasks one thread restores after a failure (see the recovery answers) and growth of the state need more"}
	if p := a.Options.Deployment.Partitions; p > 0 {
		verdict := "enough"
		if p < need {
			verdict = "too few"
		}
		inputs = append(inputs, fmt.Sprintf("your %d partitions: %s a task, %s", p, FormatBytes(state/float64(p)), verdict))
	}
	if w := wideText(task); w != "" {
		inputs = append(inputs, w)
	}
	fig := countFigure(need, task)
	return append(out, Answer{
		ID:           "partitions_needed",
		RTO:          rto,
		Figure:       fig,
		Question:     q,
		Value:        InconclusiveIfWide("at least "+fig.Text(), task),
		Extrapolated: task.Extrapolated,
		Below:        task.Below,
		Inputs:       inputs,
		Sources:      RunLabels(r.Obs),
	}), nil
}

// deploymentAnswers check a given deployment: how long one task's and one
// instance's cold restore take, against every RTO, and per RTO the
// instances it needs.
func deploymentAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d, r, t := a.Options.Deployment, a.Rate, a.Options.Threads
	state := a.ChangelogBytes()
	switch {
	case a.Options.Sample != nil:
		return nil, nil // its tasks were restored at their own sizes: sampleAnswers
	case d.Partitions > 0 && state <= 0 && d.LiveBytes > 0:
		return nil, nil // resolveState said why there is no changelog size
	case d.Partitions > 0 && state <= 0:
		return nil, []Unanswered{{Question: "per-task restore time", Reason: "--partitions needs --state (the changelog " +
			"bytes of the store) or --live-state to size a task"}}
	case d.Instances > 0 && d.Partitions <= 0:
		return nil, []Unanswered{{Question: "per-instance restore time", Reason: "--instances needs --partitions and --state (tasks per instance and their size)"}}
	case d.Partitions <= 0:
		return nil, nil
	}
	taskBytes := state / float64(d.Partitions)
	taskSecs := r.Seconds(taskBytes)
	out := []Answer{{
		ID:           "cold_restore_task",
		Question:     fmt.Sprintf("Cold restore of one task (%s of changelog)", FormatBytes(taskBytes)),
		Value:        TimeValue(taskSecs),
		Checks:       checks(taskSecs, a.Options.RTOs),
		Extrapolated: taskSecs.Extrapolated,
		Below:        taskSecs.Below,
		Inputs:       withFactor([]string{fmt.Sprintf("%s / %d partitions", a.stateText(), d.Partitions), r.Summary(), intervalText(taskSecs)}, taskSecs),
		Sources:      RunLabels(r.Obs),
		Figure:       figureOf(taskSecs, UnitSeconds),
	}}
	if d.Instances <= 0 {
		return out, nil
	}
	perInstance := ceilDiv(d.Partitions, d.Instances)
	perThread := ceilDiv(perInstance, t)
	instSecs := r.Seconds(float64(perThread) * taskBytes)
	out = append(out, Answer{
		ID: "cold_restore_instance",
		Question: fmt.Sprintf("Cold restore of one instance (%s on %s: %s per thread)", Plural(perInstance, "task"),
			Plural(t, "thread"), Plural(perThread, "task")),
		Value:        TimeValue(instSecs),
		Checks:       checks(instSecs, a.Options.RTOs),
		Extrapolated: instSecs.Extrapolated,
		Below:        instSecs.Below,
		Inputs: withFactor([]string{fmt.Sprintf("%d partitions over %s", d.Partitions, Plural(d.Instances, "instance")), "task " + FormatBytes(taskBytes),
			r.Summary(), threadsBasis(r, t), intervalText(instSecs)}, instSecs),
		Sources: RunLabels(r.Obs),
		Figure:  figureOf(instSecs, UnitSeconds),
	})
	var missing []Unanswered
	for _, rto := range a.Options.RTOs {
		ans, miss := instancesNeeded(a, rto, taskBytes, taskSecs.Value)
		if miss != nil {
			missing = append(missing, *miss)
			continue
		}
		out = append(out, ans)
	}
	return out, missing
}

// instancesNeeded is the fewest instances whose tasks each restore within
// rto: a thread restores as many whole tasks as fit in the RTO.
func instancesNeeded(a *Analysis, rto time.Duration, taskBytes, taskSecs float64) (Answer, *Unanswered) {
	d, r, t := a.Options.Deployment, a.Rate, a.Options.Threads
	rtoText := FormatRTO(rto)
	q := "Instances needed for an instance's tasks to restore within " + rtoText
	within := r.BytesWithin(rto.Seconds())
	tasksPerThread := int(math.Floor(within.Value / taskBytes))
	if tasksPerThread < 1 {
		return Answer{}, &Unanswered{Question: q, Reason: fmt.Sprintf("no instance count helps: one task (%s) alone takes %s; more partitions are needed",
			FormatBytes(taskBytes), FormatSeconds(taskSecs))}
	}
	inputs := []string{fmt.Sprintf("%d partitions of %s", d.Partitions, FormatBytes(taskBytes)),
		fmt.Sprintf("a thread restores %s of that size within %s", Plural(tasksPerThread, "task"), rtoText), Plural(t, "thread") + " per instance"}
	if w := wideText(within); w != "" {
		inputs = append(inputs, w)
	}
	fig := countFigure(ceilDiv(d.Partitions, tasksPerThread*t), within)
	return Answer{
		ID:           "instances_needed",
		RTO:          rto,
		Figure:       fig,
		Question:     q,
		Value:        InconclusiveIfWide(fig.Text(), within),
		Extrapolated: within.Extrapolated,
		Below:        within.Below,
		Inputs:       inputs,
		Sources:      RunLabels(r.Obs),
	}, nil
}

// ChangelogBytes is the deployment's changelog across all partitions: as
// given (--state), or estimated from its live state and cleaner settings;
// 0 when unknown.
func (a *Analysis) ChangelogBytes() float64 {
	if d := a.Options.Deployment; d.StateBytes > 0 {
		return d.StateBytes
	}
	if a.State != nil {
		return a.State.Changelog
	}
	return 0
}

// stateText says where the changelog size comes from.
func (a *Analysis) stateText() string {
	if a.State != nil {
		return fmt.Sprintf("changelog %s (estimated from %s of live state)", FormatBytes(a.State.Changelog), FormatBytes(a.State.Live))
	}
	return "state " + FormatBytes(a.ChangelogBytes()) + a.kindStateText()
}

// kindStateText says, for a rate measured on a window or session store,
// what the size must be for the answer to hold: such a store's cold restore
// reads only its changelog's records within the retention of the last one
// (Kafka Streams 4.4 seeks past the rest), so the size asked about is that
// part, not the whole changelog.
func (a *Analysis) kindStateText() string {
	if a.Rate == nil || !a.Rate.Setup.Params.StoreKind.Segmented() {
		return ""
	}
	return fmt.Sprintf(" (the rate is a %s store's: the size is its changelog within the retention of its last record, "+
		"what a cold restore reads, not the whole changelog)", a.Rate.Setup.Params.StoreKind)
}

// checks compares an estimated time with each objective: inconclusive when
// the objective lies within the estimate's interval or the estimate rests
// on a wide extrapolation.
func checks(e Estimate, rtos []time.Duration) []Check {
	out := make([]Check, len(rtos))
	for i, rto := range rtos {
		obj := rto.Seconds()
		c := Check{RTO: rto, Meets: e.Value <= obj, Margin: obj - e.Value}
		switch {
		case e.Wide():
			c.Inconclusive = true
			c.Why = fmt.Sprintf("%s estimated %s the sizes measured, where nothing bounds its error", FormatSeconds(e.Value), beyondText(e))
		case e.WideShape():
			c.Inconclusive = true
			c.Why = fmt.Sprintf("%s estimated at %s, where nothing bounds the restore cost's error", FormatSeconds(e.Value), shapeBeyondText(e))
		case e.Factor != nil && e.Factor.Wide():
			c.Inconclusive = true
			c.Why = fmt.Sprintf("%s calibrated with a factor taken %s beyond the sizes it was measured at (%s a thread), where nothing bounds how it moves",
				FormatSeconds(e.Value), beyondFactor(e.Factor.Beyond), FormatBytes(e.Factor.Bytes))
		case e.HasInterval() && e.Lo <= obj && obj <= e.Hi:
			c.Inconclusive = true
			c.Why = fmt.Sprintf("the estimate %s ranges %s–%s over the measurements, which straddles it",
				FormatSeconds(e.Value), FormatSeconds(e.Lo), FormatSeconds(e.Hi))
		case !e.HasInterval() || e.Hi <= e.Lo:
			// No spread measured: the point alone, with no "at least".
		case c.Meets && e.Hi <= obj:
			c.Margin, c.AtLeast = obj-e.Hi, true
		case !c.Meets && obj < e.Lo:
			c.Margin, c.AtLeast = obj-e.Lo, true
		}
		// Inconclusive, or an interval not on the point's side of the
		// objective: the margin stays the point estimate's, so that its
		// sign is Meets' and "at least" is said only where it holds.
		out[i] = c
	}
	return out
}

// intervalText says what bounds an estimate: its interval and where it
// comes from, and how far beyond the measured sizes it lies.
func intervalText(e Estimate) string {
	s := fmt.Sprintf("interval %s–%s: the spread of the restores the rate rests on%s", FormatSeconds(e.Lo), FormatSeconds(e.Hi), calibrationSpreadText(e))
	if e.Hi <= e.Lo {
		s = fmt.Sprintf("no interval: the restores the rate rests on show no spread (one restore, or repeats that agree), "+
			"so nothing bounds its error%s", calibrationSpreadText(e))
	}
	if e.ShapeBeyond > 1.05 {
		s += "; at " + shapeBeyondText(e)
		if e.WideShape() {
			s += fmt.Sprintf(" (past %.0f×: the interval does not bound it)", WideExtrapolation)
		}
	}
	if e.Beyond > 1.05 {
		s += "; " + beyondText(e) + " the sizes measured"
		if e.Wide() {
			s += fmt.Sprintf(" (past %.0f×: the interval does not bound it)", WideExtrapolation)
		}
	}
	return s
}

// InconclusiveIfWide is an answer's value v as it reads when the estimate
// e it rests on lies past WideExtrapolation from the sizes measured:
// "INCONCLUSIVE (v)", so the headline says what the inputs line under it
// (wideText) explains; v otherwise. The report's recovery-time table says
// its cells so too.
func InconclusiveIfWide(v string, e Estimate) string {
	if !e.Wide() {
		return v
	}
	return "INCONCLUSIVE (" + v + ")"
}

// wideText warns, for a count derived from what one thread restores within
// an objective, when that lies past WideExtrapolation: the count then has
// no more footing than the inconclusive restore times beside it.
func wideText(within Estimate) string {
	if !within.Wide() {
		return ""
	}
	return fmt.Sprintf("INCONCLUSIVE: it rests on %s a thread within the objective, %s the sizes measured, where "+
		"nothing bounds the estimate's error", FormatBytes(within.Value), beyondText(within))
}

// beyondText is how far beyond the measured sizes an estimate lies, said
// the same way in every line that names it: "1.6×" near them, "13×" past
// WideExtrapolation, where a tenth means nothing.
// beyondText is how far outside the measured sizes an estimate lies, and
// on which side: "56× beyond", "4.0× below".
func beyondText(e Estimate) string {
	side := "beyond"
	if e.Below {
		side = "below"
	}
	if e.Wide() {
		return fmt.Sprintf("%.0f× %s", e.Beyond, side)
	}
	return fmt.Sprintf("%.1f× %s", e.Beyond, side)
}

// shapeBeyondText is how far outside the changelog shapes measured an
// estimate's shape lies: "a record size 1.9× below the record sizes
// measured", "records per live key 4.5× beyond those measured".
func shapeBeyondText(e Estimate) string {
	side := "beyond"
	if e.ShapeBelow {
		side = "below"
	}
	if e.ShapeWhat == shapeRecordsPerKey {
		return fmt.Sprintf("records per live key %.1f× %s those measured", e.ShapeBeyond, side)
	}
	return fmt.Sprintf("a record size %.1f× %s the record sizes measured", e.ShapeBeyond, side)
}

// measured is an estimate that is a measurement: a median with its
// range, no extrapolation.
func measured(median, lo, hi float64) Estimate {
	return Estimate{Value: median, Lo: lo, Hi: hi, Beyond: 1}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
