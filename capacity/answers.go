package capacity

import (
	"fmt"
	"math"
	"time"
)

// Deployment describes the application a plan is for. Zero fields are
// unknown: the answers that need them are skipped.
type Deployment struct {
	// StateBytes is the changelog bytes of one store across all its
	// partitions: what restoring every task would read.
	StateBytes float64
	// Partitions is the changelog's partition count: one task each.
	Partitions int
	// Instances is the number of application instances sharing the tasks.
	Instances int
	// Standbys is num.standby.replicas.
	Standbys int
	// WriteRate is the bytes per second written to the changelog.
	WriteRate float64
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
	// Extrapolated is true when the answer lies beyond the measured sizes.
	Extrapolated bool
	// Inputs are the figures it was computed from; Sources cites restores.
	Inputs  []string
	Sources string
}

// Check is whether a restore time meets one recovery-time objective.
type Check struct {
	RTO   time.Duration
	Meets bool
}

// Unanswered is a question the inputs cannot answer, and why.
type Unanswered struct {
	Question, Reason string
}

// answerer adds the answers of one kind; a later scenario adds its own.
type answerer func(a *Analysis) ([]Answer, []Unanswered)

// answerers are asked in order.
var answerers = []answerer{taskAnswers, deploymentAnswers, standbyAnswers}

// buildAnswers asks every answerer, after the rate answer.
func buildAnswers(a *Analysis) ([]Answer, []Unanswered) {
	if a.Rate == nil {
		return nil, []Unanswered{{Question: "cold-restore rate", Reason: a.RateErr.Error()}}
	}
	r := a.Rate
	out := []Answer{{
		Question: "Cold-restore rate (" + r.Label() + ")",
		Value:    r.Summary(),
		Inputs:   []string{r.Basis()},
		Sources:  Refs(r.Obs),
	}}
	var missing []Unanswered
	for _, f := range answerers {
		as, ms := f(a)
		out = append(out, as...)
		missing = appendNew(missing, ms...)
	}
	return out, missing
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
	rtoText := FormatRTO(rto)
	out := []Answer{
		{
			Question:     "Largest changelog per task restored within " + rtoText,
			Value:        FormatBytes(task.Value),
			Extrapolated: task.Extrapolated,
			Inputs:       []string{"RTO " + rtoText, r.Summary()},
			Sources:      RunLabels(r.Obs),
		},
		{
			Question:     fmt.Sprintf("Largest changelog per instance (%s) restored within %s", Plural(t, "stream thread"), rtoText),
			Value:        FormatBytes(task.Value * float64(t)),
			Extrapolated: task.Extrapolated,
			Inputs:       []string{"RTO " + rtoText, r.Summary(), threadsBasis(r, t)},
			Sources:      RunLabels(r.Obs),
		},
	}
	d := a.Options.Deployment
	if d.StateBytes <= 0 {
		return out, nil
	}
	q := "Partitions needed so each task restores within " + rtoText
	if task.Value <= 0 {
		return out, []Unanswered{{Question: q, Reason: fmt.Sprintf("no partition count helps: the fixed overhead of a restore (%s) exceeds %s", FormatSeconds(r.Factor()*r.Overhead), rtoText)}}
	}
	return append(out, Answer{
		Question:     q,
		Value:        fmt.Sprint(int(math.Ceil(d.StateBytes / task.Value))),
		Extrapolated: task.Extrapolated,
		Inputs:       []string{"state " + FormatBytes(d.StateBytes), "largest changelog per task " + FormatBytes(task.Value)},
		Sources:      RunLabels(r.Obs),
	}), nil
}

// deploymentAnswers check a given deployment: how long one task's and one
// instance's cold restore take, against every RTO, and per RTO the
// instances it needs.
func deploymentAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d, r, t := a.Options.Deployment, a.Rate, a.Options.Threads
	switch {
	case d.Partitions > 0 && d.StateBytes <= 0:
		return nil, []Unanswered{{Question: "per-task restore time", Reason: "--partitions needs --state (the changelog bytes of the store) to size a task"}}
	case d.Instances > 0 && d.Partitions <= 0:
		return nil, []Unanswered{{Question: "per-instance restore time", Reason: "--instances needs --partitions and --state (tasks per instance and their size)"}}
	case d.Partitions <= 0:
		return nil, nil
	}
	taskBytes := d.StateBytes / float64(d.Partitions)
	taskSecs := r.Seconds(taskBytes)
	out := []Answer{{
		Question:     fmt.Sprintf("Cold restore of one task (%s of changelog)", FormatBytes(taskBytes)),
		Value:        FormatSeconds(taskSecs.Value),
		Checks:       checks(taskSecs.Value, a.Options.RTOs),
		Extrapolated: taskSecs.Extrapolated,
		Inputs:       []string{fmt.Sprintf("state %s / %d partitions", FormatBytes(d.StateBytes), d.Partitions), r.Summary()},
		Sources:      RunLabels(r.Obs),
	}}
	if d.Instances <= 0 {
		return out, nil
	}
	perInstance := ceilDiv(d.Partitions, d.Instances)
	perThread := ceilDiv(perInstance, t)
	instSecs := r.Seconds(float64(perThread) * taskBytes)
	out = append(out, Answer{
		Question:     fmt.Sprintf("Cold restore of one instance (%s on %s: %s per thread)", Plural(perInstance, "task"), Plural(t, "thread"), Plural(perThread, "task")),
		Value:        FormatSeconds(instSecs.Value),
		Checks:       checks(instSecs.Value, a.Options.RTOs),
		Extrapolated: instSecs.Extrapolated,
		Inputs: []string{fmt.Sprintf("%d partitions over %s", d.Partitions, Plural(d.Instances, "instance")), "task " + FormatBytes(taskBytes),
			r.Summary(), threadsBasis(r, t)},
		Sources: RunLabels(r.Obs),
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
	return Answer{
		Question:     q,
		Value:        fmt.Sprint(ceilDiv(d.Partitions, tasksPerThread*t)),
		Extrapolated: within.Extrapolated,
		Inputs: []string{fmt.Sprintf("%d partitions of %s", d.Partitions, FormatBytes(taskBytes)),
			fmt.Sprintf("a thread restores %s of that size within %s", Plural(tasksPerThread, "task"), rtoText), Plural(t, "thread") + " per instance"},
		Sources: RunLabels(r.Obs),
	}, nil
}

// standbyAnswers: questions about standbys need a standby run, which the
// inputs cannot have yet; they say so.
func standbyAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d := a.Options.Deployment
	var missing []Unanswered
	if d.Standbys > 0 {
		row := a.RTO.Row("standby failover")
		missing = append(missing, Unanswered{Question: fmt.Sprintf("failover with num.standby.replicas=%d", d.Standbys), Reason: row.Missing})
	}
	if d.WriteRate > 0 {
		missing = append(missing, Unanswered{Question: fmt.Sprintf("whether a standby keeps up with %s of writes", FormatRate(d.WriteRate)),
			Reason: "the highest write rate a standby sustains is not measured in the inputs: needs a standby run (`restorebench run standby`, issue 10)"})
	}
	return nil, missing
}

// checks compares a restore time with each objective.
func checks(seconds float64, rtos []time.Duration) []Check {
	out := make([]Check, len(rtos))
	for i, rto := range rtos {
		out[i] = Check{RTO: rto, Meets: seconds <= rto.Seconds()}
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
