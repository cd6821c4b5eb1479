package audit

import (
	"fmt"
	"slices"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/warmup"
)

// ScaleOut is what adding one instance to the application now costs: the
// warmup model (package warmup: KIP-441's warm-ups and probing rebalances
// on the classic protocol, tasks moving at once on the streams protocol)
// run over the application's own tasks, their sizes, the instances' and
// group's settings and the write rate seen.
type ScaleOut struct {
	// Prediction is the model's answer, nil when it could not be given
	// (Missing says why).
	Prediction *warmup.Prediction `json:"prediction"`
	Missing    string             `json:"missing,omitempty"`
	// Assumed lists the inputs not read from the application.
	Assumed []string `json:"assumed"`
}

// scaleOut predicts adding one instance to ins, its warm-ups restoring at
// rate (nil: none in the runs).
func scaleOut(r *Report, ins []*Instance, o Options, rate *capacity.Rate) *ScaleOut {
	if len(ins) == 0 {
		return nil
	}
	so := &ScaleOut{Assumed: []string{}}
	tasks := statefulTasks(r.Changelogs, ins)
	so.Assumed = append(so.Assumed, "stateless tasks are left out: they move at once and restore nothing")
	if len(tasks) == 0 {
		so.Missing = "no stateful task could be told from the group and the changelogs"
		return so
	}
	in := warmupInputs(r, ins, tasks)
	so.setSettings(&in, r, ins, o)
	so.predict(in, r, o, rate)
	return so
}

// statefulTask is a task with state, with its active instance's index and
// its changelog partitions' records, log start offsets and bytes.
type statefulTask struct {
	task              TaskID
	owner             int
	records, logStart int64
	bytes             float64
}

// statefulTasks are the instances' active tasks whose changelogs are
// known, in task order, each with its active instance.
func statefulTasks(cls []Changelog, ins []*Instance) []statefulTask {
	var tasks []statefulTask
	for i, in := range ins {
		for _, t := range in.active {
			if records, bytes, end, known := taskState(cls, t); known {
				tasks = append(tasks, statefulTask{t, i, records, end - records, bytes})
			}
		}
	}
	slices.SortFunc(tasks, func(a, b statefulTask) int { return cmpTask(a.task, b.task) })
	return tasks
}

// warmupInputs are the model's inputs read from the application: the
// instances before and after, the group's protocol, the stateful tasks
// with their owners and sizes, the standbys and acceptable.recovery.lag;
// the model's defaults for the rest.
func warmupInputs(r *Report, ins []*Instance, tasks []statefulTask) warmup.Inputs {
	in := warmup.Defaults()
	in.Before, in.After = len(ins), len(ins)+1
	in.Protocol = warmup.ProtocolClassic
	if r.OnStreamsProtocol() {
		in.Protocol = warmup.ProtocolStreams
	}
	var bytes float64
	var records int64
	for _, t := range tasks {
		in.TaskOffsets = append(in.TaskOffsets, t.records)
		in.TaskLogStart = append(in.TaskLogStart, t.logStart)
		in.Initial = append(in.Initial, t.owner)
		bytes, records = bytes+t.bytes, records+t.records
	}
	if records > 0 {
		in.BytesPerOffset = bytes / float64(records)
	}
	in.Standbys = standbys(ins)
	in.AcceptableRecoveryLag = r.AcceptableRecoveryLag
	return in
}

// setSettings sets the model's stream threads, warm-up settings and write
// rate from what the instances, the options and the write-rate read give,
// and says which it assumed, the model's own timings among them.
func (so *ScaleOut) setSettings(in *warmup.Inputs, r *Report, ins []*Instance, o Options) {
	threads := ins[0].Threads
	for _, x := range ins {
		threads = min(threads, max(x.Threads, 1))
	}
	in.Threads = max(threads, 1)
	if slices.ContainsFunc(ins, func(x *Instance) bool { return x.Threads != in.Threads }) {
		so.Assumed = append(so.Assumed, fmt.Sprintf("every instance runs %d stream thread(s), the fewest any runs now "+
			"(the model takes one count for all)", in.Threads))
	}
	switch {
	case o.MaxWarmupReplicas > 0:
		in.MaxWarmupReplicas = o.MaxWarmupReplicas
	case in.Protocol == warmup.ProtocolClassic:
		so.Assumed = append(so.Assumed, fmt.Sprintf("max.warmup.replicas %d, Kafka Streams' default", in.MaxWarmupReplicas))
	}
	switch {
	case o.ProbingInterval > 0:
		in.ProbingIntervalSeconds = o.ProbingInterval.Seconds()
	case in.Protocol == warmup.ProtocolClassic:
		so.Assumed = append(so.Assumed, fmt.Sprintf("probing.rebalance.interval.ms %.0f, Kafka Streams' default", in.ProbingIntervalSeconds*1000))
	}
	if r.WriteRecordsPerSecond != nil {
		in.WriteRate = *r.WriteRecordsPerSecond
	} else {
		so.Assumed = append(so.Assumed, "no writes while the warm-ups catch up (the write rate could not be measured)")
	}
	so.Assumed = append(so.Assumed, fmt.Sprintf("the new instance starts and joins in %.0f s, a rebalance takes effect in %.0f s, "+
		"a follow-up comes %.0f s after: the model's defaults", in.StartupSeconds, in.RebalanceSeconds, in.FollowUpSeconds))
}

// predict runs the model over in with the warm-ups restoring at rate,
// setting so's prediction, or its Missing when there is no rate or the
// model cannot answer.
func (so *ScaleOut) predict(in warmup.Inputs, r *Report, o Options, rate *capacity.Rate) {
	if len(o.Runs) == 0 {
		so.Missing = "the warm-ups' restore rate needs --from RUN"
		return
	}
	if rate == nil || in.BytesPerOffset <= 0 {
		so.Missing = "no restore rate in the --from runs at this shape"
		return
	}
	in.RestoreRate = rate.PerThread / in.BytesPerOffset
	in.RestoreRateFrom = rateText(rate) + ", its fixed start not counted"
	in.Source = "restorebench audit of " + r.Application
	if err := in.Validate(); err != nil {
		so.Missing = "the warmup model cannot take these inputs: " + err.Error()
		return
	}
	p, err := warmup.Predict(in)
	if err != nil {
		so.Missing = "the warmup model: " + err.Error()
		return
	}
	so.Prediction = &p
}
