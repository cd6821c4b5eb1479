package agent

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

func init() { opModelRestore.register() }

// opModelRestore runs a model-engine restore into an instance's state
// directory.
var opModelRestore = op[ModelRestore, ModelRestored]{name: OpModelRestore, scope: scopeInstance,
	check: validateModel,
	run: func(a *Agent, m *Message, r *ModelRestore, _ *agentProc) (*ModelRestored, error) {
		return a.modelRestore(m, r)
	}}

// validateModel checks a model restore: a valid case, names that are path
// elements (its store directories are named by them), a legal topic and
// offsets that make a range.
func validateModel(_ *Message, r *ModelRestore) error {
	if err := checkName("application id", r.AppID); err != nil {
		return err
	}
	if err := checkName("store name", r.StoreName); err != nil {
		return err
	}
	if err := config.CheckNames(r.AppID, r.StoreName, r.Topic); err != nil {
		return fmt.Errorf("model_restore: %w", err)
	}
	if err := r.Case.Case().Validate(); err != nil {
		return fmt.Errorf("model_restore: case: %w", err)
	}
	if len(r.Start) > maxOffsetPartitions || len(r.End) > maxOffsetPartitions {
		return fmt.Errorf("model_restore: offsets of more than %d partitions", maxOffsetPartitions)
	}
	for p, end := range r.End {
		if start := r.Start[p]; p < 0 || start < 0 || end < start {
			return fmt.Errorf("model_restore: partition %d's offsets %d to %d are not a range", p, start, end)
		}
	}
	if r.StallTimeoutMs < 0 || r.Repeat < 0 {
		return errors.New("model_restore: a negative stall timeout or repeat")
	}
	return nil
}

// ModelRestore is what an OpModelRestore command asks: a model-engine cold
// restore of Topic, as application AppID's store StoreName, with the case's
// settings, from the Start offsets to the End offsets the coordinator
// captured (Kafka Streams, too, restores to the end offsets it captures as
// the restore begins).
type ModelRestore struct {
	// Case is the settings of the case the model engine reads, and its
	// name (ModelCaseOf).
	Case      ModelCase       `json:"case"`
	Repeat    int             `json:"repeat"`
	Topic     string          `json:"topic"`
	AppID     string          `json:"app_id"`
	StoreName string          `json:"store_name"`
	Start     map[int32]int64 `json:"start"`
	End       map[int32]int64 `json:"end"`
	// Ready also measures the phase after the restore until the store can
	// serve (run's ready).
	Ready bool `json:"ready,omitempty"`
	// KeepState leaves the restored stores on the agent's disk (run
	// --keep-state, and every step of a warm-restart sequence); by
	// default they are deleted once digested.
	KeepState bool `json:"keep_state,omitempty"`
	// Warm restarts the instance on the stores its last restore left in
	// its state directory, restoring from the offsets they committed (a
	// warm restart); false empties the directory and restores cold.
	Warm bool `json:"warm,omitempty"`
	// StallTimeoutMs fails the restore when no record arrives for this long
	// while records are still owed; 0 is the engine's default (60 s).
	StallTimeoutMs int64 `json:"stall_timeout_ms,omitempty"`
}

// Offsets are the restore's start and end offsets.
func (m *ModelRestore) Offsets() cluster.TopicOffsets {
	return cluster.TopicOffsets{Topic: m.Topic, Start: m.Start, End: m.End}
}

// ModelRestored is the reply to an OpModelRestore: what the restore
// measured (times, CPU and peak RSS of the agent's process, RocksDB
// figures), and what the restored stores hold per partition (keys, live
// bytes, digest) for the coordinator to verify against the fill's
// expected state: the agent is never told what to expect, so it cannot
// report a verified restore of data it did not hold.
type ModelRestored struct {
	Figures ModelFigures             `json:"figures"`
	States  []loadgen.PartitionState `json:"states"`
	// StateDir is the state.dir the stores were restored into, on the
	// agent's host.
	StateDir string `json:"state_dir"`
}

// ModelJob is one model restore an agent runs for a coordinator.
type ModelJob struct {
	// Cluster is the agent's own connection to the brokers.
	Cluster cluster.Config
	// StateDir is the instance's state.dir on the agent, emptied before a
	// cold restore.
	StateDir string
	Restore  ModelRestore
	Logf     func(format string, args ...any)
}

// ModelRestorer runs a model job (the model engine lives outside this
// package: Config.ModelRestore wires it in).
type ModelRestorer func(ctx context.Context, job ModelJob) (*ModelRestored, error)

// errNoModelEngine: the agent was built without the model engine wired in.
var errNoModelEngine = errors.New("this agent runs no model-engine restores (its Config has no ModelRestore)")

// modelRestore runs the model restore r of command m in the instance's state directory,
// emptied first for a cold restore (an earlier repeat's stores), while the
// run's lease holds: an expired lease or the agent's shutdown cancels it.
func (a *Agent) modelRestore(m *Message, r *ModelRestore) (*ModelRestored, error) {
	if a.cfg.ModelRestore == nil {
		return nil, errNoModelEngine
	}
	if !r.Warm {
		if err := a.wipe(m); err != nil {
			return nil, err
		}
	}
	ctx, cancel := a.leaseContext(m.Run, "its model restore")
	defer cancel()
	job := ModelJob{Cluster: a.cfg.Cluster, StateDir: a.stateDir(m.Run, m.Fleet, m.Instance), Restore: *r, Logf: a.cfg.Logf}
	a.cfg.Logf("agent %s: run %s: model restore of %s (case %s #%d) into %s", a.cfg.Name, m.Run, r.Topic, r.Case.Name, r.Repeat, job.StateDir)
	out, err := a.cfg.ModelRestore(ctx, job)
	if err != nil {
		if !r.KeepState {
			os.RemoveAll(job.StateDir)
		}
		return nil, a.leaseErr(ctx, "the restore", err)
	}
	out.StateDir = job.StateDir
	return out, nil
}

// leaseContext is a context that ends, with its cause, when run's lease
// expires (watchLeases cancels it as it stops the run's processes) or the
// agent shuts down; what names the work for the cause ("its fill").
func (a *Agent) leaseContext(run, what string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(a.procCtx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.leases[run].expired {
		cancel(leaseExpired(run, what))
		return ctx, func() {}
	}
	a.boundN++
	id := a.boundN
	if a.bound[run] == nil {
		a.bound[run] = map[uint64]context.CancelCauseFunc{}
	}
	a.bound[run][id] = func(error) { cancel(leaseExpired(run, what)) }
	return ctx, func() {
		a.mu.Lock()
		delete(a.bound[run], id)
		a.mu.Unlock()
		cancel(nil)
	}
}

// leaseExpired is why lease-bound work of run was stopped.
func leaseExpired(run, what string) error {
	return fmt.Errorf("run %s's lease expired: %s was stopped", run, what)
}

// leaseErr is what a lease-bound command (a model restore, a fill) that
// failed with err under ctx says: the agent's shutdown or the lease's
// expiry when either stopped it.
func (a *Agent) leaseErr(ctx context.Context, what string, err error) error {
	if a.procCtx.Err() != nil {
		return fmt.Errorf("agent %s shut down during %s, which it stopped (%v)", a.cfg.Name, what, err)
	}
	if cerr := context.Cause(ctx); cerr != nil {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// ModelRestore has agent run a model-engine cold restore for instance
// instance of fleet (the application.id) and returns its reply; the
// restore takes as long as it takes, so only ctx, the agent's loss (a
// LostError) or the agent's own error end the wait.
func (c *Coordinator) ModelRestore(ctx context.Context, agent, fleet, instance string, req ModelRestore) (*ModelRestored, error) {
	return opModelRestore.call(ctx, c, agent, &Message{Fleet: fleet, Instance: instance}, req)
}
