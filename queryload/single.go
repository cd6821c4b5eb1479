package queryload

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// SingleQueries is the query load of a cold restore's or warm restart's
// one instance, run where the instance runs (fleet.Process.StartQueries):
// from this machine against a local instance, from the agent's host
// against one on an agent.
type SingleQueries struct {
	run      fleet.QueryRun
	settings config.QueryLoad
}

// Abort stops the lookups of a restore that failed.
func (q *SingleQueries) Abort() { q.run.Abort() }

// StartSingleQueries starts the request's query load, checked against
// what spec writes, against process p's API layer once it listens, from
// where p runs; nil when the case has none.
func StartSingleQueries(ctx context.Context, req fleet.Request, spec *loadgen.Spec, p fleet.Process) (*SingleQueries, error) {
	if req.Case.Queries == nil {
		return nil, nil
	}
	if spec == nil {
		_, err := NewReadChecker(nil) // the refusal of a load with nothing to check against
		return nil, err
	}
	job := agent.QueryJob{Load: *req.Case.Queries, Spec: *spec, Repeat: req.Repeat}
	run, err := p.StartQueries(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("case %s #%d: starting the query load: %w", req.Case.Name, req.Repeat, err)
	}
	return &SingleQueries{run: run, settings: *req.Case.Queries}, nil
}

// QueriesAt is the kafka-streams query load of a cold restore's or warm
// restart's one instance, sent from this host to the API layer at addr,
// its checker built from the job's fill spec: an agent's side of
// agent.OpQueries (`restorebench agent` wires it in as
// agent.Config.Queries), and a local instance's (fleet.Env.Queries).
func QueriesAt(job agent.QueryJob, addr string) (agent.QueryLoad, error) {
	q := job.Load
	req := fleet.Request{Case: config.Case{Queries: &q}, Repeat: job.Repeat}
	l, err := startKSQueriesTo(req, &job.Spec, FixedTargets{Addr: addr})
	if err != nil {
		return nil, err
	}
	return agentQueryLoad{l}, nil
}

// agentQueryLoad is a KSQueryLoad as agent.QueryLoad.
type agentQueryLoad struct{ l *KSQueryLoad }

func (a agentQueryLoad) Restored(monoNs int64)    { a.l.Restored(monoNs) }
func (a agentQueryLoad) Stop() *runs.QueryFigures { return a.l.Stop() }
