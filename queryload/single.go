package queryload

import (
	"context"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// SingleQueries is the query load of a cold restore's or warm restart's
// one instance: sent from this machine (*ksQueryLoad) to a local
// instance, or from the agent's host (remoteQueries) to an instance on an
// agent, whose API port is on that host and reached from nowhere else.
type SingleQueries interface {
	// markRestored marks CLOCK_MONOTONIC endNs, on this machine's clock,
	// as when every store was restored.
	markRestored(endNs int64)
	// finishAfter lets the lookups go on for the load's After (ctx ending
	// cuts it short), stops them and returns the record.
	finishAfter(ctx context.Context) (*runs.QueryFigures, error)
	// Abort stops the lookups of a restore that failed.
	Abort()
	after() config.Duration
}

func (l *KSQueryLoad) markRestored(endNs int64) { l.Restored(endNs) }

func (l *KSQueryLoad) finishAfter(ctx context.Context) (*runs.QueryFigures, error) {
	return l.Finish(ctx), nil
}

func (l *KSQueryLoad) Abort() { l.Stop() }

func (l *KSQueryLoad) after() config.Duration { return l.Settings.After }

// remoteQueries is a query load the agent hosting the instance runs
// (agent.OpQueries): this side only marks when the restore ended and
// collects the record, which names the agent.
type remoteQueries struct {
	p          *agent.Process
	Settings   config.QueryLoad
	restoredNs int64
	stopped    bool
}

func (r *remoteQueries) markRestored(endNs int64) {
	if r.restoredNs == 0 {
		r.restoredNs = endNs
	}
}

func (r *remoteQueries) finishAfter(ctx context.Context) (*runs.QueryFigures, error) {
	r.stopped = true
	rec, err := r.p.StopQueries(ctx, r.restoredNs, r.Settings.After.D())
	if err != nil {
		return nil, fmt.Errorf("the query load on agent %s: %w", r.p.Agent(), err)
	}
	return rec, nil
}

// Abort stops the agent's load and drops its record; a lost agent or an
// expired lease has stopped it already.
func (r *remoteQueries) Abort() {
	if r.stopped {
		return
	}
	r.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), agentAbortTimeout)
	defer cancel()
	r.p.StopQueries(ctx, 0, 0)
}

func (r *remoteQueries) after() config.Duration { return r.Settings.After }

// agentAbortTimeout bounds the stop of a failed restore's load on its
// agent.
const agentAbortTimeout = 30 * time.Second

// StartSingleQueries starts the request's query load, checked against
// what spec writes, against instance inst's API layer once it listens:
// from this machine for a local instance, from its agent's host for one
// on an agent; nil when the case has none.
func StartSingleQueries(ctx context.Context, req fleet.Request, spec *loadgen.Spec, inst fleet.KSInstance) (SingleQueries, error) {
	if req.Case.Queries == nil {
		return nil, nil
	}
	r, ok := fleet.AgentProcessOf(inst)
	if !ok {
		local, ok := inst.(apiInstance)
		if !ok {
			return nil, fmt.Errorf("case %s #%d: instance %s has no API layer this machine reaches", req.Case.Name, req.Repeat, inst.ID())
		}
		l, err := startKSQueries(ctx, req, spec, local)
		if l == nil {
			return nil, err // no typed nil in the interface
		}
		return l, err
	}
	if spec == nil {
		_, err := NewReadChecker(nil) // the same refusal as a local load's
		return nil, err
	}
	job := agent.QueryJob{Load: *req.Case.Queries, Spec: *spec, Repeat: req.Repeat}
	if err := r.StartQueries(ctx, job); err != nil {
		return nil, fmt.Errorf("case %s #%d: starting the query load on agent %s: %w", req.Case.Name, req.Repeat, r.Agent(), err)
	}
	return &remoteQueries{p: r, Settings: *req.Case.Queries}, nil
}

// QueriesOnAgent is an agent's side of a query load a coordinator asks
// for (agent.OpQueries; `restorebench agent` wires it in as
// agent.Config.Queries): the kafka-streams query load a local cold
// restore or warm restart runs, from the agent's host to the API layer at
// addr, its checker built from the job's fill spec.
func QueriesOnAgent(job agent.QueryJob, addr string) (agent.QueryLoad, error) {
	q := job.Load
	req := fleet.Request{Case: config.Case{Queries: &q}, Repeat: job.Repeat}
	l, err := startKSQueriesTo(req, &job.Spec, FixedTargets{Addr: addr})
	if err != nil {
		return nil, err
	}
	return agentQueryLoad{l}, nil
}

// agentQueryLoad is a ksQueryLoad as an agent runs it.
type agentQueryLoad struct{ l *KSQueryLoad }

func (a agentQueryLoad) Restored(monoNs int64)    { a.l.Restored(monoNs) }
func (a agentQueryLoad) Stop() *runs.QueryFigures { return a.l.Stop() }

// apiInstance is a local instance, whose API layer this machine reaches.
type apiInstance interface {
	AwaitAPI(ctx context.Context) (string, error)
}

var _ apiInstance = (*ksdriver.Instance)(nil)
