package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// fillInstance is the instance id a fill is placed by on agents: a
// placement rule naming it pins the fill; else the first agent in
// placement order writes it.
const fillInstance = "fill"

// produced is what a fill's producer wrote, here or on an agent.
type produced struct {
	tot    loadgen.FillTotals
	series []measure.Point
	// seconds is the producer's own time on an agent (0 here: the caller
	// times it).
	seconds float64
	onAgent *runs.AgentPlace
}

// produce writes req's records: on an agent when the run has agents (the
// fill's load comes from that host), else from this process.
func (e *Env) produce(ctx context.Context, req FillRequest) (produced, error) {
	if e.Agents == nil {
		tot, series, err := e.produceFill(ctx, req)
		return produced{tot: tot, series: series}, err
	}
	on, err := e.Agents.Place(fillInstance, "", nil)
	if err != nil {
		return produced{}, err
	}
	e.Logf("fill: agent %s writes %s", on, req.Topic)
	got, err := e.Agents.Fill(ctx, on, agent.FillJob{Topic: req.Topic, Spec: req.Spec, Compression: req.Compression})
	if err != nil {
		return produced{}, err
	}
	return produced{tot: got.Totals, series: got.Series, seconds: got.Seconds, onAgent: &runs.AgentPlace{Agent: on, Hostname: e.Agents.Hostname(on)}}, nil
}

// FillOnAgent is an agent's side of a fill a coordinator asks for
// (agent.OpFill; `restorebench agent` wires it in as agent.Config.Fill):
// the producer a local fill runs, with the agent's connection to the
// brokers, on the topic the coordinator created.
func FillOnAgent(ctx context.Context, cl cluster.Config, job agent.FillJob, logf func(string, ...any)) (*agent.Filled, error) {
	if err := job.Spec.Validate(); err != nil {
		return nil, err
	}
	e := &Env{Cluster: cl, log: io.Discard, progress: progress.New(io.Discard, true)}
	start := time.Now()
	tot, series, err := e.produceFill(ctx, FillRequest{Topic: job.Topic, Spec: job.Spec, Compression: job.Compression})
	if err != nil {
		return nil, fmt.Errorf("fill %s: %w", job.Topic, err)
	}
	secs := time.Since(start).Seconds()
	if logf != nil {
		logf("fill: %d records, %d bytes to %s in %.2fs", tot.Records, tot.Bytes, job.Topic, secs)
	}
	return &agent.Filled{Totals: tot, Seconds: secs, Series: series}, nil
}
