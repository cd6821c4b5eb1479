package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

func init() { opQueries.register() }

// opQueries starts a query load against a process's API layer.
var opQueries = op[QueryJob, none]{name: OpQueries, scope: scopeProcess,
	check: validateQueries,
	run: func(a *Agent, m *Message, j *QueryJob, p *agentProc) (*none, error) {
		return nil, a.startQueries(m, j, p)
	}}

// validateQueries checks a query load by a profile's rules and its spec.
func validateQueries(_ *Message, j *QueryJob) error {
	if err := config.CheckQueryLoad(j.Load); err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	if err := j.Spec.Validate(); err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	if j.Repeat < 0 {
		return fmt.Errorf("queries: repeat %d is negative", j.Repeat)
	}
	return nil
}

// startQueries starts the query load j of command m against the API layer of the process
// m names once it listens; one load per process at a time.
func (a *Agent) startQueries(m *Message, j *QueryJob, p *agentProc) error {
	if a.cfg.Queries == nil {
		return errNoQueries
	}
	key := procKey{m.Run, m.Fleet, m.Instance, m.N}
	ctx, cancel := a.leaseContext(m.Run, "its query load")
	actx, acancel := context.WithTimeout(ctx, ksdriver.DefaultStartTimeout)
	addr, err := p.inst.AwaitAPI(actx)
	acancel()
	if err != nil {
		cancel()
		return err
	}
	load, err := a.cfg.Queries(*j, addr)
	if err != nil {
		cancel()
		return err
	}
	l := &agentLoad{load: load, cancel: cancel, ctx: ctx}
	a.mu.Lock()
	running := a.loads[key] != nil
	if !running {
		a.loads[key] = l
	}
	a.mu.Unlock()
	if running {
		l.stop()
		return fmt.Errorf("a query load already runs against process %d of instance %s on agent %s", m.N, m.Instance, a.cfg.Name)
	}
	go func() { // the lease or the agent's shutdown stops the load
		<-ctx.Done()
		l.stop()
		a.forgetLoad(key, l)
	}()
	a.cfg.Logf("agent %s: run %s: lookups at %.0f/s to instance %s's API layer at %s", a.cfg.Name, m.Run, j.Load.Rate, m.Instance, addr)
	return nil
}

// StartQueries has the process's agent send job's lookups to the
// process's API layer from the agent's host; it returns once the load
// runs (the agent waits for the api event first).
func (p *Process) StartQueries(ctx context.Context, job QueryJob) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	_, err := opQueries.call(ctx, p.c, p.agent, p.envelope(), job)
	return err
}

// QueryJob is what an OpQueries command asks: send the case's key
// lookups (Load) to the API layer of one of the agent's processes, from
// the agent's host, checking every answer against what Spec writes (the
// fill is deterministic, so the agent builds the checker itself and is
// never handed the expected values), with the lookups' key draw seeded by
// Repeat as a local run's is.
type QueryJob struct {
	Load   config.QueryLoad `json:"load"`
	Spec   loadgen.Spec     `json:"spec"`
	Repeat int              `json:"repeat"`
}

// QueryStop is what an OpQueriesStop command asks: mark the stores
// restored at RestoredMonoNs (the agent's CLOCK_MONOTONIC; 0 leaves the
// load unmarked: every lookup counts as during the restore), let the
// lookups go on for AfterMs, then stop them and reply with the record.
type QueryStop struct {
	RestoredMonoNs int64 `json:"restored_mono_ns,omitempty"`
	AfterMs        int64 `json:"after_ms,omitempty"`
}

// QueryLoad is a query load running on the agent.
type QueryLoad interface {
	// Restored marks when every store was restored (CLOCK_MONOTONIC ns):
	// lookups from then on count as after the restore.
	Restored(monoNs int64)
	// Stop stops the lookups, waits for those in flight and returns the
	// record; it is called once.
	Stop() *runs.QueryFigures
}

// QueryStarter starts a query job's load against the API layer at addr
// (the query load lives outside this package: Config.Queries wires it in).
type QueryStarter func(job QueryJob, addr string) (QueryLoad, error)

// errNoQueries: the agent was built without the query load wired in.
var errNoQueries = errors.New("this agent runs no query loads (its Config has no Queries)")

// agentLoad is a query load the agent runs for one of its processes:
// stopped once, by its stop command or by the run's lease or the agent's
// shutdown, whichever comes first.
type agentLoad struct {
	load    QueryLoad
	once    sync.Once
	figures *runs.QueryFigures
	cancel  context.CancelFunc
	ctx     context.Context // ends with the run's lease
}

func (l *agentLoad) stop() *runs.QueryFigures {
	l.once.Do(func() {
		l.figures = l.load.Stop()
		l.cancel()
	})
	return l.figures
}

// forgetLoad drops stopped load l of process key, unless another took
// its place.
func (a *Agent) forgetLoad(key procKey, l *agentLoad) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.loads[key] == l {
		delete(a.loads, key)
	}
}
