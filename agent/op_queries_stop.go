package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/runs"
)

func init() { opQueriesStop.register() }

// opQueriesStop stops a process's query load and replies with its record,
// which names the agent (QueryFigures.Agent).
var opQueriesStop = op[QueryStop, runs.QueryFigures]{name: OpQueriesStop, scope: scopeProcess, check: checkQueriesStop,
	run: func(a *Agent, m *Message, stop *QueryStop, _ *agentProc) (*runs.QueryFigures, error) {
		return a.stopQueries(m, *stop)
	}}

// checkQueriesStop bounds how long a stop lets the load go on.
func checkQueriesStop(_ *Message, stop *QueryStop) error {
	if a := stop.AfterMs; a < 0 || a > maxQueriesAfter.Milliseconds() { // in ms: as a Duration it could wrap
		return fmt.Errorf("queries_stop after %d ms: must be from 0 to %s", a, maxQueriesAfter)
	}
	return nil
}

// stopQueries marks the load of the process m names restored, lets it go
// on for the stop's After (the lease or a shutdown cuts it short), stops
// it and replies with its record, which names this agent.
func (a *Agent) stopQueries(m *Message, stop QueryStop) (*runs.QueryFigures, error) {
	key := procKey{m.Run, m.Fleet, m.Instance, m.N}
	a.mu.Lock()
	l := a.loads[key]
	a.mu.Unlock()
	if l == nil {
		return nil, fmt.Errorf("no query load runs against process %d of instance %s on agent %s", m.N, m.Instance, a.cfg.Name)
	}
	if stop.RestoredMonoNs > 0 {
		l.load.Restored(stop.RestoredMonoNs)
	}
	select {
	case <-time.After(time.Duration(stop.AfterMs) * time.Millisecond):
	case <-l.ctx.Done():
	}
	figures := l.stop()
	a.forgetLoad(key, l)
	if figures == nil {
		return nil, errors.New("the query load returned no record")
	}
	out := *figures
	out.Agent = a.cfg.Name
	return &out, nil
}

// StopQueries marks the process's query load restored at restoredNs (the
// coordinator's clock, moved onto the agent's by its offset; 0: not
// restored), lets it go on for after, stops it and returns its record;
// only ctx, the agent's loss (a LostError) or the agent's error end the
// wait sooner.
func (p *Process) StopQueries(ctx context.Context, restoredNs int64, after time.Duration) (*runs.QueryFigures, error) {
	stop := QueryStop{AfterMs: after.Milliseconds()}
	if restoredNs > 0 {
		stop.RestoredMonoNs = restoredNs + p.offset
	}
	return opQueriesStop.call(ctx, p.c, p.agent, p.envelope(), stop)
}
