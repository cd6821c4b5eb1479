package runs

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/warmup"
)

// StepScaleOut is the scale-out scenario's one step: a scale-out.
const StepScaleOut StepKind = "scaleout"

func init() {
	registerRecord(recordDef{
		scenario: config.ScenarioScaleOut,
		kinds:    []StepKind{StepScaleOut},
		holds:    func(r *Restore) bool { return r.ScaleOut != nil },
		example:  scaleOutExample,
		headline: &Headline{Label: "assignment s", seconds: func(r *Restore) float64 { return r.ScaleOut.WarmupAssignmentSeconds }},
	})
}

// Task roles a timeline segment can have on an instance.
const (
	// RoleActive: the instance runs the task (it is processed there).
	RoleActive = "active"
	// RoleRestoring: the instance owns the task as active and restores its
	// store before it can process.
	RoleRestoring = "restoring"
	// RoleWarmup: a KIP-441 warmup replica, a standby the assignor added
	// beyond num.standby.replicas so the instance can catch up first.
	RoleWarmup = "warmup"
	// RoleStandby: one of the num.standby.replicas standbys.
	RoleStandby = "standby"
)

// TaskSegment is a span of time a task had one role on one instance;
// times are seconds from the record's origin (ScaleOutRecord: the new
// instances' start; RollingRecord: the first stop).
type TaskSegment struct {
	Instance string  `json:"instance"`
	Role     string  `json:"role"`
	Start    float64 `json:"start"`
	End      float64 `json:"end"`
}

// Gap is a span in which a task processed nothing although its input had
// records (longer than the record's gap threshold).
type Gap struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// TaskTimeline is one task's history in a scale-out or rolling restart,
// built from every instance's events. Times are seconds from the record's
// origin; -1 means it did not happen.
type TaskTimeline struct {
	// Task is Kafka Streams' task id (0_3); Partition its changelog and
	// input partition.
	Task      string `json:"task"`
	Partition int32  `json:"partition"`
	// Offsets is its changelog's size when the measurement started (end
	// minus start offset): what a restore from scratch reads.
	Offsets int64 `json:"offsets"`
	// From and To are the instance running it at the origin and at the end.
	From string `json:"from"`
	To   string `json:"to"`
	// WarmupStart is when a warmup (or standby) of it started updating on
	// To; CaughtUp when that replica's lag was first within
	// acceptable.recovery.lag.
	WarmupStart float64 `json:"warmup_start"`
	CaughtUp    float64 `json:"caught_up"`
	// Moved is when To became its active owner (the rebalance that moved
	// it); Running when To had restored it and ran it.
	Moved   float64 `json:"moved"`
	Running float64 `json:"running"`
	// AssignmentSeconds is Running for a moved task (0 for one that stayed).
	AssignmentSeconds float64 `json:"assignment_seconds"`
	// NotProcessingSeconds is the sum of its Gaps; MaxGapSeconds the longest.
	NotProcessingSeconds float64 `json:"not_processing_seconds"`
	MaxGapSeconds        float64 `json:"max_gap_seconds"`
	Gaps                 []Gap   `json:"gaps,omitempty"`
	// Segments are its roles on every instance over time.
	Segments []TaskSegment `json:"segments"`
}

// LagSeries is a replica's lag over time: a warmup, standby or restoring
// active of Task on Instance, from the instance's lags events (1 s).
type LagSeries struct {
	Task     string     `json:"task"`
	Instance string     `json:"instance"`
	Role     string     `json:"role"`
	Points   []LagPoint `json:"points"`
}

// ScaleInstance is one instance process of a scale-out or rolling restart.
type ScaleInstance struct {
	ID string `json:"id"`
	// ProcessID is Kafka Streams' process id (a UUID kept in the state
	// directory), whose order the classic assignor's target follows.
	ProcessID string `json:"process_id,omitempty"`
	// New is true for the instances the scale-out added.
	New bool `json:"new"`
	// Started and Stopped are seconds from the origin (Stopped -1 while
	// it ran to the end).
	Started float64 `json:"started"`
	Stopped float64 `json:"stopped"`
	// Agent is the agent the instance ran on; empty on this machine.
	Agent string `json:"agent,omitempty"`
}

// WriteLoad is the write load that ran during a measurement: records of the
// fill's generator written to the kv topology's input topic, which Kafka
// Streams puts into the store and so appends to the changelog.
type WriteLoad struct {
	Topic      string  `json:"topic"`
	TargetRate float64 `json:"target_rate"`
	Records    int64   `json:"records"`
	Seconds    float64 `json:"seconds"`
	// Rate is Records over Seconds: what the producer reached.
	Rate float64 `json:"rate"`
}

// ScaleOutRecord is what a scale-out measurement adds to its record: Before
// instances ran with their state restored and a write load, After-Before
// were started at the origin, and the timeline of every task follows.
//
// The record is measured by its headline, WarmupAssignmentSeconds
// (Restore.Headline): it carries no restore figures. Records is the
// records restored and applied by restores and warmups after the origin,
// and Verified says every task's
// store (active stores, digested across the instances at the end)
// matched the state the changelog must hold.
type ScaleOutRecord struct {
	// Protocol is group.protocol: classic or streams.
	Protocol string `json:"protocol"`
	Before   int    `json:"before"`
	After    int    `json:"after"`
	Tasks    int    `json:"tasks"`
	// Threads, Standbys, MaxWarmupReplicas, AcceptableRecoveryLag and
	// ProbingIntervalSeconds are the Kafka Streams settings in effect
	// (num.stream.threads, num.standby.replicas, max.warmup.replicas,
	// acceptable.recovery.lag, probing.rebalance.interval.ms); under the
	// streams protocol the last four are ignored by Kafka Streams 4.4.
	Threads                int     `json:"threads"`
	Standbys               int     `json:"standbys"`
	MaxWarmupReplicas      int     `json:"max_warmup_replicas"`
	AcceptableRecoveryLag  int64   `json:"acceptable_recovery_lag"`
	ProbingIntervalSeconds float64 `json:"probing_interval_seconds"`
	// SetupSeconds is how long the Before instances took to restore and
	// settle; RestoreRate the offsets a second one of their stream threads
	// restored then (the model's input), BytesPerOffset the changelog's
	// key+value bytes per offset.
	SetupSeconds   float64    `json:"setup_seconds"`
	RestoreRate    float64    `json:"restore_offsets_per_sec_per_thread"`
	BytesPerOffset float64    `json:"bytes_per_offset"`
	Load           *WriteLoad `json:"load,omitempty"`
	// Balanced is true when the assignment was balanced and every task
	// running before the timeout; BalancedRule says what that means.
	Balanced     bool   `json:"balanced"`
	BalancedRule string `json:"balanced_rule"`
	// WarmupAssignmentSeconds runs from the new instances' start until
	// the assignment was balanced and every task ran (the first moment of
	// a state that then held for the settle time).
	WarmupAssignmentSeconds float64 `json:"warmup_assignment_seconds"`
	// StartupSeconds runs from the new instances' start to the start of
	// the rebalance that gave the last of them its first assignment.
	StartupSeconds float64 `json:"startup_seconds"`
	// Rebalances counts group rebalances after the origin (transitions to
	// REBALANCING on any instance, those within a second counted once);
	// ProbingRounds those that came a probing interval after the one
	// before (KIP-441's probing rebalances).
	Rebalances     int       `json:"rebalances"`
	ProbingRounds  int       `json:"probing_rounds"`
	RebalanceTimes []float64 `json:"rebalance_times"`
	ProbingTimes   []float64 `json:"probing_times,omitempty"`
	// Warmups counts the warmup replicas seen (task x instance); Moved the
	// tasks whose active instance changed.
	Warmups int `json:"warmups"`
	Moved   int `json:"moved"`
	// NotProcessingSeconds sums every task's gaps in processing after the
	// origin, MaxNotProcessingSeconds is the longest one task had;
	// GapThresholdSeconds the shortest pause that counts as a gap.
	NotProcessingSeconds    float64 `json:"not_processing_seconds"`
	MaxNotProcessingSeconds float64 `json:"max_not_processing_seconds"`
	GapThresholdSeconds     float64 `json:"gap_threshold_seconds"`
	// RestoredRecords were restored by actives after the origin;
	// WarmupRecords applied by warmups and standbys.
	RestoredRecords int64           `json:"restored_records"`
	WarmupRecords   int64           `json:"warmup_records"`
	Instances       []ScaleInstance `json:"instances"`
	TaskTimelines   []TaskTimeline  `json:"task_timelines"`
	Lags            []LagSeries     `json:"lags,omitempty"`
	// Prediction is the warmup model's for this scale-out, from the inputs
	// measured here (sizes, restore rate in the setup, process ids, write
	// rate, startup and rebalance times); PredictionErrorPct is
	// (predicted - measured) / measured in percent.
	Prediction         *warmup.Prediction `json:"prediction,omitempty"`
	PredictionErrorPct float64            `json:"prediction_error_pct"`
	// Notes say what the protocol did that the figures do not (for the
	// streams protocol: no warmups; moved tasks restored from scratch).
	Notes []string `json:"notes,omitempty"`
	// MovedReads (with a query load) is, per task that moved, what the
	// lookups of its keys met from the scale-out's start (new instances
	// launched) on; the record's Queries.Outage is them merged
	// (MergeOutages). Empty without a query load.
	MovedReads []ReadOutage `json:"moved_reads,omitempty"`
}

// ThreadRate is how fast one stream thread restores, as a run measured it:
// the warmup model's restore rate.
type ThreadRate struct {
	// OffsetsPerSec are changelog offsets restored a second per thread;
	// BytesPerOffset the key+value bytes per offset (0 when unknown).
	OffsetsPerSec  float64
	BytesPerOffset float64
	// From says which records it came from.
	From string
}

// RestoreRateOf finds a run's restore rate per stream thread, the warmup
// model's input. Its sources are a scale-out's setup (the Before instances
// restoring the changelog) and the verified cold restores (kafka-streams
// engine first, else the model's; the median per restoring thread). A rate
// measured on little work is mostly fixed cost (JVM start, group join,
// store open), so of the two the one measured on more bytes per thread is
// used; when they disagree by more than DisagreeFactor, From says so and
// names the other.
func RestoreRateOf(res *Results) (ThreadRate, bool) {
	setup, setupWork, okSetup := setupRateOf(res)
	cold, coldWork, okCold := coldRateOf(res)
	switch {
	case okSetup && okCold:
		use, other, useWork, otherWork := setup, cold, setupWork, coldWork
		if coldWork > setupWork {
			use, other, useWork, otherWork = cold, setup, coldWork, setupWork
		}
		if Disagree(use.OffsetsPerSec, other.OffsetsPerSec) {
			use.From += fmt.Sprintf(" (measured on %.1f MB a thread; %s gave %.0f offsets/s, ×%.2f of it, on %.1f MB a "+
				"thread: a rate from less work is mostly fixed cost, not used)",
				useWork/1e6, other.From, other.OffsetsPerSec, other.OffsetsPerSec/use.OffsetsPerSec, otherWork/1e6)
		}
		return use, true
	case okSetup:
		return setup, true
	case okCold:
		return cold, true
	}
	return ThreadRate{}, false
}

// DisagreeFactor is how far apart two measured rates of one run may be
// before a prediction says they disagree: twice.
const DisagreeFactor = 2.0

// Disagree reports whether a and b (positive) are more than DisagreeFactor
// apart, either way.
func Disagree(a, b float64) bool {
	r := a / b
	return r > DisagreeFactor || r < 1/DisagreeFactor
}

// setupRateOf is the first scale-out's setup rate and the bytes each of
// its threads restored (the changelog over Before × threads).
func setupRateOf(res *Results) (ThreadRate, float64, bool) {
	for _, r := range res.Restores {
		so := r.ScaleOut
		if so == nil || so.RestoreRate <= 0 {
			continue
		}
		var offsets int64
		for _, t := range so.TaskTimelines {
			offsets += t.Offsets
		}
		work := warmup.SetupBytesPerThread(offsets, so.BytesPerOffset, so.Before, so.Threads)
		return ThreadRate{so.RestoreRate, so.BytesPerOffset, "the setup of scale-out case " + r.Case}, work, true
	}
	return ThreadRate{}, 0, false
}

// coldRateOf is the median cold-restore rate per restoring thread, on the
// kafka-streams engine if any ran, else the model's, and the median bytes
// each thread restored.
func coldRateOf(res *Results) (ThreadRate, float64, bool) {
	for _, engine := range []config.Engine{config.EngineKafkaStreams, config.EngineModel} {
		var rates, sizes, work []float64
		for _, r := range res.Restores {
			if r.Params.Engine == engine && r.Params.Scenario == config.ScenarioCold && r.Counts() && r.Records > 0 && r.Phase != nil {
				rates = append(rates, r.PerThread(r.Phase.RecordsPerSec))
				sizes = append(sizes, float64(r.Bytes)/float64(r.Records))
				work = append(work, float64(r.Bytes)/float64(r.RestoringThreads()))
			}
		}
		if len(rates) > 0 {
			return ThreadRate{Median(rates), Median(sizes), fmt.Sprintf("%d verified cold restores on the %s engine (median "+
				"per thread)", len(rates), engine)}, Median(work), true
		}
	}
	return ThreadRate{}, 0, false
}

// ModelInputs are the warmup model's inputs for the scale-out the record
// measured, from what it measured: its Kafka Streams settings and
// instance counts, the restore rate of its setup, the bytes per offset,
// the write load's rate, the startup time and, when it saw any, the
// follow-up delay (FollowUpSeconds; else the model's default). The task
// sizes, the rebalance time, the process-id order and where the figures
// came from are the caller's to add.
func (so *ScaleOutRecord) ModelInputs() warmup.Inputs {
	in := warmup.Settings{Protocol: so.Protocol, Before: so.Before, After: so.After, Threads: so.Threads, Standbys: so.Standbys,
		MaxWarmupReplicas: so.MaxWarmupReplicas, AcceptableRecoveryLag: so.AcceptableRecoveryLag, ProbingIntervalSeconds: so.ProbingIntervalSeconds}.Inputs()
	in.RestoreRate, in.BytesPerOffset = so.RestoreRate, so.BytesPerOffset
	if so.Load != nil {
		in.WriteRate = so.Load.Rate
	}
	in.StartupSeconds = so.StartupSeconds
	if f := so.FollowUpSeconds(); f > 0 {
		in.FollowUpSeconds = f
	}
	return in
}

// followUpWindow bounds the delay between two rebalances that counts as a
// follow-up (s).
const followUpWindow = 10

// FollowUpSeconds is the median delay between consecutive rebalances less
// than 10 s apart: the cooperative follow-up rebalance that hands revoked
// tasks over, or a second member's join, both of which wait for a
// heartbeat. 0 when the record has none.
func (so *ScaleOutRecord) FollowUpSeconds() float64 {
	var ds []float64
	for i := 1; i < len(so.RebalanceTimes); i++ {
		if d := so.RebalanceTimes[i] - so.RebalanceTimes[i-1]; d < followUpWindow {
			ds = append(ds, d)
		}
	}
	return Median(ds)
}

// exampleScaleOutSeconds is the example scale-out's measured
// warmup-assignment time.
const exampleScaleOutSeconds = 62.8

// scaleOutExample is a scale-out from 1 to 2 instances of 4 tasks, with
// the warmup model's prediction from its inputs.
func scaleOutExample(kit ExampleKit) []Restore {
	fill := kit.Fill()
	p := kit.Case("scaleout", config.ScenarioScaleOut, config.EngineKafkaStreams)
	p.ScaleOut.Before, p.ScaleOut.After = 1, 2
	offsets := fill.Records / 4
	in := warmup.Defaults()
	in.Before, in.After, in.TaskOffsets, in.BytesPerOffset = 1, 2, warmup.Uniform(4, offsets), float64(kit.RecordBytes())
	in.RestoreRate, in.WriteRate, in.ProbingIntervalSeconds, in.Order = 84000, 500, 60, []int{0, 1}
	in.StartupSeconds, in.RebalanceSeconds = 2, 1
	pred, err := warmup.Predict(in)
	if err != nil {
		panic(err)
	}
	so := &ScaleOutRecord{Protocol: "classic", Before: 1, After: 2, Tasks: 4, Threads: 1, MaxWarmupReplicas: 2, AcceptableRecoveryLag: 10000,
		ProbingIntervalSeconds: 60, RestoreRate: 84000, BytesPerOffset: float64(kit.RecordBytes()), Balanced: true, WarmupAssignmentSeconds: exampleScaleOutSeconds,
		StartupSeconds: 2, Rebalances: 3, ProbingRounds: 1, RebalanceTimes: []float64{2, 5, 62}, ProbingTimes: []float64{62},
		Warmups: 2, Moved: 2, GapThresholdSeconds: 1, Prediction: &pred,
		Instances: []ScaleInstance{{ID: "i0", Started: -30, Stopped: -1}, {ID: "i1", New: true, Stopped: -1}}}
	so.PredictionErrorPct = (pred.TotalSeconds - exampleScaleOutSeconds) / exampleScaleOutSeconds * 100
	for t := int32(0); t < 4; t++ {
		tl := TaskTimeline{Task: fmt.Sprintf("0_%d", t), Partition: t, Offsets: offsets, From: "i0", To: "i0",
			WarmupStart: -1, CaughtUp: -1, Moved: -1, Running: 0,
			Segments: []TaskSegment{{Instance: "i0", Role: RoleActive, Start: 0, End: exampleScaleOutSeconds}}}
		if t%2 == 1 {
			tl.To, tl.WarmupStart, tl.CaughtUp, tl.Moved, tl.Running, tl.AssignmentSeconds = "i1", 3, 9, 62, 62.5, 62.5
			tl.Segments = []TaskSegment{{Instance: "i0", Role: RoleActive, Start: 0, End: 62}, {Instance: "i1", Role: RoleWarmup, Start: 3, End: 62},
				{Instance: "i1", Role: RoleActive, Start: 62, End: exampleScaleOutSeconds}}
			so.Lags = append(so.Lags, LagSeries{Task: tl.Task, Instance: "i1", Role: RoleWarmup,
				Points: []LagPoint{{T: 3, Lag: offsets}, {T: 6, Lag: offsets / 2}, {T: 9, Lag: 500}, {T: 60, Lag: 300}}})
		}
		so.TaskTimelines = append(so.TaskTimelines, tl)
	}
	rec := kit.Record(exampleStep(p, StepScaleOut), 1, p, exampleScaleOutSeconds, 2*offsets, 2*offsets*kit.RecordBytes())
	// A scale-out is measured by its assignment time, not a restore's figures.
	rec.Phase, rec.Model = nil, nil
	rec.ScaleOut = so
	return []Restore{rec}
}
