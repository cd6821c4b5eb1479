package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/twmb/franz-go/pkg/kadm"
)

func init() { opFill.register() }

// opFill writes a fill's records to a topic the coordinator created empty.
var opFill = op[FillJob, Filled]{name: OpFill, scope: scopeAgent, check: validateFill,
	run: func(a *Agent, m *Message, j *FillJob, _ *agentProc) (*Filled, error) { return a.fill(m.Run, j) }}

// validateFill checks a fill: a legal topic and a valid spec of bounded
// size. The agent also refuses to write to a topic that is not empty
// (Agent.checkEmpty): a fill's topic is one the coordinator just created.
func validateFill(_ *Message, j *FillJob) error {
	if err := config.CheckNames("a", "s", j.Topic); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	if j.Topic == ControlTopic || j.Topic == EventsTopic {
		// The events topic is empty until a process runs, with the one
		// partition of a small fill: checkEmpty alone would let it pass.
		return fmt.Errorf("fill: %s is a topic agents and coordinators talk through, never a fill's", j.Topic)
	}
	if err := j.Spec.Validate(); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	if b := fillBytes(j); b > MaxFillBytes {
		return fmt.Errorf("fill: about %d bytes, more than the %d an agent writes for one fill", b, int64(MaxFillBytes))
	}
	switch j.Compression {
	case "", "none", "gzip", "snappy", "lz4", "zstd":
	default:
		return fmt.Errorf("fill: compression %.20q is not one of none, gzip, snappy, lz4, zstd", j.Compression)
	}
	return nil
}

// fillBytes is about how many bytes a fill writes.
func fillBytes(j *FillJob) int64 {
	if j.Spec.TargetBytes > 0 {
		return j.Spec.TargetBytes
	}
	per := int64(j.Spec.KeyWidth() + (j.Spec.ValueMin+j.Spec.ValueMax)/2)
	if j.Spec.Records > MaxFillBytes/per {
		return MaxFillBytes + 1
	}
	return j.Spec.Records * per
}

// FillJob is what an OpFill command asks: write Spec's records to Topic
// (created empty by the coordinator) with Compression, as a local fill
// writes them, so that the fill's load comes from the agent's host.
type FillJob struct {
	Topic       string       `json:"topic"`
	Spec        loadgen.Spec `json:"spec"`
	Compression string       `json:"compression"`
}

// Filled is the reply to an OpFill: what the producer wrote (committed
// records, their bytes, per partition), how long it took on the agent and
// its 1 s throughput series. The coordinator checks the topic holds the
// fill as it does after a local fill; nothing here is taken on trust.
type Filled struct {
	Totals  loadgen.FillTotals `json:"totals"`
	Seconds float64            `json:"seconds"`
	Series  []measure.Point    `json:"series,omitempty"`
}

// Filler runs a fill job with the agent's own connection to the brokers
// (the fill producer lives outside this package: Config.Fill wires it in).
type Filler func(ctx context.Context, cl cluster.Config, job FillJob, logf func(string, ...any)) (*Filled, error)

// errNoFiller: the agent was built without the fill producer wired in.
var errNoFiller = errors.New("this agent runs no fills (its Config has no Fill)")

// fill runs run's fill j while the run's lease holds.
func (a *Agent) fill(run string, j *FillJob) (*Filled, error) {
	if a.cfg.Fill == nil {
		return nil, errNoFiller
	}
	ctx, cancel := a.leaseContext(run, "its fill")
	defer cancel()
	if err := a.checkEmpty(ctx, j); err != nil {
		a.refuse("a fill command", err)
		return nil, fmt.Errorf("agent %s refused it: %w", a.cfg.Name, err)
	}
	a.cfg.Logf("agent %s: run %s: filling %s (%d partitions)", a.cfg.Name, run, j.Topic, j.Spec.Partitions)
	out, err := a.cfg.Fill(ctx, a.cfg.Cluster, *j, a.cfg.Logf)
	if err != nil {
		return nil, a.leaseErr(ctx, "the fill", err)
	}
	return out, nil
}

// checkEmpty refuses a fill into a topic that is missing, has another
// partition count than the fill, or holds records: a fill's topic is one
// the coordinator has just created for it, and an agent writes to no
// other (a user's topic, say) with its credentials.
func (a *Agent) checkEmpty(ctx context.Context, job *FillJob) error {
	cl, err := cluster.NewClient(a.cfg.Cluster)
	if err != nil {
		return err
	}
	defer cl.Close()
	o, err := cluster.Offsets(ctx, kadm.NewClient(cl), job.Topic)
	if err != nil {
		return err
	}
	if int32(len(o.End)) != job.Spec.Partitions {
		return fmt.Errorf("topic %s has %d partitions, the fill %d: %s", job.Topic, len(o.End), job.Spec.Partitions, onlyEmpty)
	}
	for p, end := range o.End {
		if end > 0 {
			return fmt.Errorf("topic %s is not empty (partition %d ends at offset %d): %s, never one that holds records", job.Topic, p, end, onlyEmpty)
		}
	}
	return nil
}

// onlyEmpty is what checkEmpty's refusals say of the rule.
const onlyEmpty = "an agent fills only the empty topic a coordinator created for it"

// Fill has agent write a fill and returns what it wrote; only ctx, the
// agent's loss (a LostError) or its own error end the wait.
func (c *Coordinator) Fill(ctx context.Context, agent string, job FillJob) (*Filled, error) {
	return opFill.call(ctx, c, agent, &Message{}, job)
}
