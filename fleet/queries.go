package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// QueryRun is a query load running against one process's API layer,
// started where the process runs (Process.StartQueries): from this
// machine for a local process, from the agent's host for one on an agent,
// whose API port is reached from nowhere else.
type QueryRun interface {
	// Finish marks the stores restored at restoredNs (CLOCK_MONOTONIC on
	// this machine; 0: not restored), lets the lookups go on for after
	// (ctx ending cuts it short), stops them and returns the record.
	Finish(ctx context.Context, restoredNs int64, after time.Duration) (*runs.QueryFigures, error)
	// Abort stops the lookups of a restore that failed and drops their
	// record; a second call, or one after Finish, does nothing.
	Abort()
}

// errNoQueryStarter: the Env the host was made from wires in no query
// load (Env.Queries).
var errNoQueryStarter = errors.New("this run starts no query loads (its Env has no Queries)")

// StartQueries starts job's lookups against the process's API layer from
// this machine, once it listens, with the run's query load (Env.Queries).
func (p *localProcess) StartQueries(ctx context.Context, job agent.QueryJob) (QueryRun, error) {
	if p.queries == nil {
		return nil, errNoQueryStarter
	}
	actx, cancel := context.WithTimeout(ctx, ksdriver.DefaultStartTimeout)
	defer cancel()
	addr, err := p.AwaitAPI(actx)
	if err != nil {
		return nil, err
	}
	load, err := p.queries(job, addr)
	if err != nil {
		return nil, err
	}
	return &localQueries{load: load}, nil
}

// localQueries is a query load this process runs.
type localQueries struct {
	load agent.QueryLoad
	once sync.Once
}

func (l *localQueries) Finish(ctx context.Context, restoredNs int64, after time.Duration) (*runs.QueryFigures, error) {
	if restoredNs > 0 {
		l.load.Restored(restoredNs)
	}
	select {
	case <-time.After(after):
	case <-ctx.Done():
	}
	var figures *runs.QueryFigures
	l.once.Do(func() { figures = l.load.Stop() })
	if figures == nil {
		return nil, errors.New("the query load was stopped already")
	}
	return figures, nil
}

func (l *localQueries) Abort() { l.once.Do(func() { l.load.Stop() }) }

// StartQueries has the process's agent send job's lookups to its API
// layer from the agent's host.
func (p *agentProcess) StartQueries(ctx context.Context, job agent.QueryJob) (QueryRun, error) {
	if err := p.Process.StartQueries(ctx, job); err != nil {
		return nil, fmt.Errorf("on agent %s: %w", p.Agent(), err)
	}
	return &agentQueries{p: p.Process}, nil
}

// agentQueries is a query load the agent hosting the process runs
// (agent.OpQueries): this side marks when the restore ended and collects
// the record, which names the agent.
type agentQueries struct {
	p       *agent.Process
	stopped bool
}

func (r *agentQueries) Finish(ctx context.Context, restoredNs int64, after time.Duration) (*runs.QueryFigures, error) {
	r.stopped = true
	rec, err := r.p.StopQueries(ctx, restoredNs, after)
	if err != nil {
		return nil, fmt.Errorf("the query load on agent %s: %w", r.p.Agent(), err)
	}
	return rec, nil
}

// Abort stops the agent's load and drops its record; a lost agent or an
// expired lease has stopped it already.
func (r *agentQueries) Abort() {
	if r.stopped {
		return
	}
	r.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), agentAbortTimeout)
	defer cancel()
	r.p.StopQueries(ctx, 0, 0)
}

// agentAbortTimeout bounds the stop of a failed restore's load on its
// agent.
const agentAbortTimeout = 30 * time.Second
