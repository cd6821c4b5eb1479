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

// producer is where a run's fills are written from, chosen once as the
// run connects (Connect): this process (localProducer), or an agent when
// the run has agents (agentProducer: the fill's load comes from that
// host). A third place is one more implementation.
type producer interface {
	produce(ctx context.Context, e *Env, req FillRequest) (produced, error)
}

// produce writes req's records from the run's place for fills.
func (e *Env) produce(ctx context.Context, req FillRequest) (produced, error) {
	return e.producer.produce(ctx, e, req)
}

// localProducer writes a fill from this process; the caller times it.
type localProducer struct{}

func (localProducer) produce(ctx context.Context, e *Env, req FillRequest) (produced, error) {
	tot, series, err := e.produceFill(ctx, req)
	return produced{tot: tot, series: series}, err
}

// agentProducer has an agent write a fill (agent.OpFill), placed by the
// fill's instance id (fillInstance).
type agentProducer struct{ co *agent.Coordinator }

func (a agentProducer) produce(ctx context.Context, e *Env, req FillRequest) (produced, error) {
	on, err := a.co.Place(fillInstance, "", nil)
	if err != nil {
		return produced{}, err
	}
	e.Logf("fill: agent %s writes %s", on, req.Topic)
	got, err := a.co.Fill(ctx, on, agent.FillJob{Topic: req.Topic, Spec: req.Spec, Compression: req.Compression})
	if err != nil {
		return produced{}, err
	}
	place := &runs.AgentPlace{Agent: on, Hostname: a.co.Hostname(on)}
	return produced{tot: got.Totals, series: got.Series, seconds: got.Seconds, onAgent: place}, nil
}

// FillOnAgent is an agent's side of a fill a coordinator asks for
// (agent.OpFill; `restorebench agent` wires it in as agent.Config.Fill):
// the producer a local fill runs, with the agent's connection to the
// brokers, on the topic the coordinator created.
func FillOnAgent(ctx context.Context, cl cluster.Config, job agent.FillJob, logf func(string, ...any)) (*agent.Filled, error) {
	if err := job.Spec.Validate(); err != nil {
		return nil, err
	}
	e := &Env{Cluster: cl, log: io.Discard, progress: progress.New(io.Discard, true), producer: localProducer{}}
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
