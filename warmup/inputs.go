package warmup

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Group protocols the model knows.
const (
	ProtocolClassic = "classic"
	ProtocolStreams = "streams"
)

// Kafka Streams 4.4 defaults and limits the model applies (StreamsConfig).
const (
	// DefaultMaxWarmupReplicas is max.warmup.replicas' default.
	DefaultMaxWarmupReplicas = 2
	// DefaultAcceptableRecoveryLag is acceptable.recovery.lag's default.
	DefaultAcceptableRecoveryLag = 10_000
	// DefaultProbingIntervalSeconds is probing.rebalance.interval.ms'
	// default (10 minutes).
	DefaultProbingIntervalSeconds = 600
	// MinProbingIntervalSeconds is the least probing.rebalance.interval.ms
	// Kafka Streams accepts (its validator is atLeast(60000)).
	MinProbingIntervalSeconds = 60
	// DefaultStartupSeconds is the assumed time from starting the new
	// instances to the first rebalance that includes them (JVM start,
	// group join), when not measured.
	DefaultStartupSeconds = 10
	// DefaultRebalanceSeconds is the assumed time a rebalance takes to
	// take effect (join, sync, and under cooperative rebalancing the
	// follow-up rebalance that hands over revoked tasks), when not measured.
	DefaultRebalanceSeconds = 3
	// DefaultFollowUpSeconds is the assumed delay of the cooperative
	// follow-up rebalance after one that revokes active tasks: the other
	// members hear of it at their next heartbeat (heartbeat.interval.ms,
	// DefaultHeartbeatIntervalSeconds under the classic protocol).
	DefaultFollowUpSeconds = DefaultHeartbeatIntervalSeconds
	// DefaultSamples is how many random process-id orders are simulated
	// when the order is not known.
	DefaultSamples = 200
)

// Kafka's defaults for how a group notices a dead member and how often its
// members hear of a rebalance: the one home of them for the warmup model,
// the planner's and the audit's failure detection (capacity.FailureDetection)
// and the fleet scenarios. This package is the lowest all of them import.
const (
	// DefaultSessionTimeout is the consumer's session.timeout.ms default
	// (ConsumerConfig, 45000; Kafka Streams keeps it), and
	// group.streams.session.timeout.ms's (the broker's default for a group
	// on the streams protocol): how long the group takes to notice an
	// instance that died without leaving.
	DefaultSessionTimeout = 45 * time.Second
	// DefaultHeartbeatIntervalSeconds is the consumer's
	// heartbeat.interval.ms default (ConsumerConfig, 3000; Kafka Streams
	// keeps it), in seconds.
	DefaultHeartbeatIntervalSeconds = 3
	// DefaultHeartbeatInterval is DefaultHeartbeatIntervalSeconds as a
	// duration.
	DefaultHeartbeatInterval = DefaultHeartbeatIntervalSeconds * time.Second
	// DefaultStreamsGroupHeartbeatInterval is
	// group.streams.heartbeat.interval.ms's default (the broker's, 5000),
	// the interval a streams-protocol group gives its members.
	DefaultStreamsGroupHeartbeatInterval = 5 * time.Second
)

// Bounds on what one prediction may simulate: past them a simulation takes
// hours or more memory than a host has, and no deployment is that size.
const (
	// MaxTasks bounds the tasks (changelog partitions).
	MaxTasks = 100_000
	// MaxClients bounds the instances after the scale-out.
	MaxClients = 1000
	// MaxCells bounds clients × tasks: the simulation keeps several
	// [client][task] grids (about 40 bytes a cell in all).
	MaxCells = 10_000_000
	// MaxSamples bounds the sampled process-id orders.
	MaxSamples = 10_000
	// MaxThreads bounds num.stream.threads per instance.
	MaxThreads = 1024
)

// Inputs are everything a prediction is made from; a Prediction carries
// them. Offsets are Kafka offsets, the unit of lag and of
// acceptable.recovery.lag: a task's size is the offsets a restore from
// scratch reads (end minus start of its changelog partitions).
type Inputs struct {
	// Protocol is "classic" (HighAvailabilityTaskAssignor, warmups) or
	// "streams" (KIP-1071's sticky assignor in 4.4: no warmups).
	Protocol string `json:"protocol"`
	// TaskOffsets are the tasks' sizes, one entry per task, in task order
	// (0_0, 0_1, ...).
	TaskOffsets []int64 `json:"task_offsets"`
	// TaskLogStart are the tasks' changelog log start offsets (summed over
	// a task's changelog partitions), in task order; empty: all 0. A client
	// with no state for a task reports an offset sum of 0, so the assignor
	// sees its lag as the absolute end offset sum, log start plus size
	// (ClientState.computeTaskLags), not the records a restore reads: a
	// changelog whose head was deleted or compacted away looks further
	// behind than it is.
	TaskLogStart []int64 `json:"task_log_start,omitempty"`
	// BytesPerOffset converts offsets into bytes for the report (the
	// changelog's key+value bytes per record); 0 when unknown.
	BytesPerOffset float64 `json:"bytes_per_offset,omitempty"`
	// Before and After are the instance counts.
	Before int `json:"before"`
	After  int `json:"after"`
	// Threads is num.stream.threads on every instance.
	Threads int `json:"threads"`
	// RestoreRate is the offsets one stream thread restores a second
	// (measured from a cold restore, a calibrate run or a scale-out's
	// setup), shared by the tasks that thread restores at once.
	RestoreRate float64 `json:"restore_offsets_per_sec_per_thread"`
	// RestoreRateFrom says where RestoreRate came from.
	RestoreRateFrom string `json:"restore_rate_from,omitempty"`
	// WriteRate is the records a second the application writes to its
	// changelogs in all, spread evenly over the tasks.
	WriteRate float64 `json:"write_records_per_sec"`
	// MaxWarmupReplicas is max.warmup.replicas: warmups per rebalance,
	// group-wide.
	MaxWarmupReplicas int `json:"max_warmup_replicas"`
	// AcceptableRecoveryLag is acceptable.recovery.lag: a client within it
	// counts as caught up. math.MaxInt64 makes every client caught up.
	AcceptableRecoveryLag int64 `json:"acceptable_recovery_lag"`
	// ProbingIntervalSeconds is probing.rebalance.interval.ms in seconds.
	ProbingIntervalSeconds float64 `json:"probing_interval_seconds"`
	// Standbys is num.standby.replicas.
	Standbys int `json:"standbys"`
	// StartupSeconds runs from starting the new instances to the first
	// rebalance that includes them all.
	StartupSeconds float64 `json:"startup_seconds"`
	// RebalanceSeconds is how long a rebalance takes to take effect.
	RebalanceSeconds float64 `json:"rebalance_seconds"`
	// FollowUpSeconds is how long after a rebalance that revokes active
	// tasks (a probing rebalance that moves some) the follow-up rebalance
	// comes, which hands them to their new owners: under cooperative
	// rebalancing about a heartbeat interval. The next probing rebalance
	// counts from the follow-up, which sets a new deadline.
	FollowUpSeconds float64 `json:"follow_up_seconds"`
	// Order lists the clients (0..Before-1 the instances that ran before,
	// Before..After-1 the new ones) in process-id order, the order the
	// assignor's round-robin target follows. Empty: unknown, sampled.
	Order []int `json:"process_order,omitempty"`
	// Initial is each task's active client before the scale-out; empty:
	// round-robin over the Before clients in their process-id order (what
	// the assignor converges to).
	Initial []int `json:"initial_active,omitempty"`
	// Samples is how many random orders are simulated when Order is
	// empty; Seed makes them reproducible.
	Samples int    `json:"samples,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	// Source says where the inputs came from (flags, a results file).
	Source string `json:"source,omitempty"`
}

// Uniform returns n task sizes of offsets each.
func Uniform(n int, offsets int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = offsets
	}
	return out
}

// Defaults returns inputs with Kafka Streams' defaults for the settings
// the caller does not know: classic protocol, 1 thread, no standbys,
// max.warmup.replicas 2, acceptable.recovery.lag 10000, a 10-minute
// probing interval, and the assumed startup, rebalance and follow-up times.
func Defaults() Inputs {
	return Inputs{
		Protocol: ProtocolClassic, Threads: 1, MaxWarmupReplicas: DefaultMaxWarmupReplicas,
		AcceptableRecoveryLag: DefaultAcceptableRecoveryLag, ProbingIntervalSeconds: DefaultProbingIntervalSeconds,
		StartupSeconds: DefaultStartupSeconds, RebalanceSeconds: DefaultRebalanceSeconds, FollowUpSeconds: DefaultFollowUpSeconds,
	}
}

// Settings are the Kafka Streams settings a scale-out runs with and the
// instance counts it goes between: the part of the inputs that a measured
// scale-out (runs.ScaleOutRecord.ModelInputs) and predict's flags both
// give, by Kafka Streams' names where they have one.
type Settings struct {
	// Protocol is group.protocol: classic or streams.
	Protocol      string
	Before, After int
	// Threads is num.stream.threads, Standbys num.standby.replicas.
	Threads, Standbys int
	// MaxWarmupReplicas is max.warmup.replicas, AcceptableRecoveryLag
	// acceptable.recovery.lag, ProbingIntervalSeconds
	// probing.rebalance.interval.ms in seconds.
	MaxWarmupReplicas      int
	AcceptableRecoveryLag  int64
	ProbingIntervalSeconds float64
}

// Inputs are Defaults with the settings applied: a scale-out's inputs
// before its task sizes, rates and times are filled in.
func (s Settings) Inputs() Inputs {
	in := Defaults()
	in.Protocol, in.Before, in.After, in.Threads, in.Standbys = s.Protocol, s.Before, s.After, s.Threads, s.Standbys
	in.MaxWarmupReplicas, in.AcceptableRecoveryLag, in.ProbingIntervalSeconds = s.MaxWarmupReplicas, s.AcceptableRecoveryLag, s.ProbingIntervalSeconds
	return in
}

// Validate names the first input that cannot be simulated.
// SetupBytesPerThread is what each stream thread of a scale-out's setup
// restored: the changelog's offsets as bytes, over the Before instances'
// threads. A rate measured on little of it is mostly fixed cost.
func SetupBytesPerThread(offsets int64, bytesPerOffset float64, before, threads int) float64 {
	return float64(offsets) * bytesPerOffset / float64(max(1, before*max(1, threads)))
}

func (in Inputs) Validate() error {
	switch {
	case in.Protocol != ProtocolClassic && in.Protocol != ProtocolStreams:
		return fmt.Errorf("protocol %q is not classic or streams", in.Protocol)
	case len(in.TaskOffsets) == 0:
		return errors.New("tasks: want at least one")
	case len(in.TaskOffsets) > MaxTasks:
		return fmt.Errorf("tasks: %d is over %d", len(in.TaskOffsets), MaxTasks)
	case in.After > MaxClients:
		return fmt.Errorf("after: %d is over %d", in.After, MaxClients)
	case in.After*len(in.TaskOffsets) > MaxCells:
		return fmt.Errorf("after × tasks: %d × %d is over %d (the simulation's state)", in.After, len(in.TaskOffsets), MaxCells)
	case in.Threads > MaxThreads:
		return fmt.Errorf("threads: %d is over %d", in.Threads, MaxThreads)
	case in.Samples < 0 || in.Samples > MaxSamples:
		return fmt.Errorf("samples: %d must be between 1 and %d (0: the default, %d)", in.Samples, MaxSamples, DefaultSamples)
	case in.Before <= 0:
		return fmt.Errorf("before: %d must be positive", in.Before)
	case in.After <= in.Before:
		return fmt.Errorf("after: %d must be more than before (%d)", in.After, in.Before)
	case in.Threads <= 0:
		return fmt.Errorf("threads: %d must be positive", in.Threads)
	case !(in.RestoreRate > 0) || math.IsInf(in.RestoreRate, 0):
		return fmt.Errorf("restore rate: %v offsets/s must be positive", in.RestoreRate)
	case !(in.WriteRate >= 0) || math.IsInf(in.WriteRate, 0):
		return fmt.Errorf("write rate: %v records/s must be a finite number, 0 or more", in.WriteRate)
	case in.MaxWarmupReplicas < 1:
		return fmt.Errorf("max.warmup.replicas: %d must be at least 1 (Kafka Streams' validator)", in.MaxWarmupReplicas)
	case in.AcceptableRecoveryLag < 0:
		return fmt.Errorf("acceptable.recovery.lag: %d is negative", in.AcceptableRecoveryLag)
	case in.Protocol == ProtocolClassic && in.ProbingIntervalSeconds < MinProbingIntervalSeconds:
		return fmt.Errorf("probing.rebalance.interval.ms: %gs is under Kafka Streams' minimum of 60s", in.ProbingIntervalSeconds)
	case in.Standbys < 0 || in.Standbys >= in.After:
		return fmt.Errorf("num.standby.replicas: %d must be between 0 and after-1 (%d)", in.Standbys, in.After-1)
	case in.StartupSeconds < 0 || in.RebalanceSeconds < 0 || in.FollowUpSeconds < 0:
		return errors.New("startup, rebalance and follow-up seconds must not be negative")
	}
	for i, n := range in.TaskOffsets {
		if n < 0 {
			return fmt.Errorf("task %d: size %d is negative", i, n)
		}
	}
	if err := in.checkOrder(); err != nil {
		return err
	}
	for t, c := range in.Initial {
		if c < 0 || c >= in.Before {
			return fmt.Errorf("initial owner of task %d: client %d is not one of the %d before", t, c, in.Before)
		}
	}
	if len(in.TaskLogStart) != 0 && len(in.TaskLogStart) != len(in.TaskOffsets) {
		return fmt.Errorf("log start offsets: %d for %d tasks", len(in.TaskLogStart), len(in.TaskOffsets))
	}
	for i, n := range in.TaskLogStart {
		if n < 0 {
			return fmt.Errorf("task %d: log start %d is negative", i, n)
		}
	}
	if len(in.Initial) != 0 && len(in.Initial) != len(in.TaskOffsets) {
		return fmt.Errorf("initial owners: %d for %d tasks", len(in.Initial), len(in.TaskOffsets))
	}
	return nil
}

// checkOrder accepts an empty order or a permutation of 0..After-1.
func (in Inputs) checkOrder() error {
	if len(in.Order) == 0 {
		return nil
	}
	if len(in.Order) != in.After {
		return fmt.Errorf("process order: %d clients, want %d", len(in.Order), in.After)
	}
	seen := make([]bool, in.After)
	for _, c := range in.Order {
		if c < 0 || c >= in.After || seen[c] {
			return fmt.Errorf("process order %v is not a permutation of 0..%d", in.Order, in.After-1)
		}
		seen[c] = true
	}
	return nil
}

// writePerTask is the records a second each task's changelog grows by.
func (in Inputs) writePerTask() float64 {
	return in.WriteRate / float64(len(in.TaskOffsets))
}
