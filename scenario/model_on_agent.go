package scenario

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/runs"
)

// RestoreOnAgent is an agent's side of a model restore a coordinator asks
// for (cold, or a warm restart on the stores the last one left) (agent.OpModelRestore; `restorebench agent` wires it in as
// agent.Config.ModelRestore): the same restore and measurement ColdModel
// makes locally, into the job's state directory, with the agent's own
// connection to the brokers. It digests the restored stores (a streaming
// scan: memory stays that of the restore) and returns the digest with the
// unverified record; the coordinator verifies it, holding the fill's
// expected state.
func RestoreOnAgent(ctx context.Context, job agent.ModelJob) (*agent.ModelRestored, error) {
	m := job.Restore
	logf := job.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	env := &fleet.Env{Cluster: job.Cluster, Offsets: offsetsOn(job.Cluster), Logf: logf, Progress: progress.New(io.Discard, true),
		StallTimeout: time.Duration(m.StallTimeoutMs) * time.Millisecond}
	if env.StallTimeout <= 0 {
		env.StallTimeout = engine.DefaultStallTimeout
	}
	t := fleet.Target{Topic: m.Topic, AppID: m.AppID, StoreName: m.StoreName}
	req := fleet.Request{Case: m.Case.Case(), Repeat: m.Repeat, StateDir: job.StateDir, KeepState: m.KeepState, Ready: m.Ready}
	rec := newRecord(t, req, req.Step(runs.StepRestore))
	rec.Partitions = len(m.End)
	in := modelInstance(env, t, req)
	restore := func() (*engine.Restored, error) { return in.ColdRestore(ctx, m.Offsets()) }
	kind := runs.StepCold
	if m.Warm {
		restore = func() (*engine.Restored, error) { return in.WarmRestore(ctx, m.Offsets()) }
		kind = runs.StepWarm
	}
	restored, err := measureModel(ctx, env, req, in, &rec, restore)
	if err != nil {
		return nil, fmt.Errorf("case %s #%d: %w", m.Case.Name, m.Repeat, err)
	}
	defer cleanupState(in, req)
	defer restored.Close() // a clean stop: the stores flush, offsets committed
	rec.Warm = warmRecord(kind, 0, restored, 0)
	states, err := engine.ScanAll(restored.Stores)
	if err != nil {
		return nil, fmt.Errorf("case %s #%d: digesting the restored stores: %w", m.Case.Name, m.Repeat, err)
	}
	return &agent.ModelRestored{Figures: agent.ModelFiguresOf(rec), States: states}, nil
}

// offsetsOn lists a topic's offsets with a short-lived admin client of cfg.
func offsetsOn(cfg cluster.Config) func(ctx context.Context, topic string) (cluster.TopicOffsets, error) {
	return func(ctx context.Context, topic string) (cluster.TopicOffsets, error) {
		cl, err := cluster.NewClient(cfg)
		if err != nil {
			return cluster.TopicOffsets{}, err
		}
		defer cl.Close()
		return cluster.Offsets(ctx, kadm.NewClient(cl), topic)
	}
}
