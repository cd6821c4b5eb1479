package warmup

import (
	"context"
	"math/rand/v2"
	"sort"
)

// Label marks every model output: it was simulated, not measured.
const Label = "prediction (warmup model, not measured)"

// Prediction is the model's answer for one set of inputs.
type Prediction struct {
	// Label is always the Label constant: this is a prediction.
	Label  string `json:"label"`
	Inputs Inputs `json:"inputs"`
	// Converged is false when the warmups never catch up (each warmup's
	// share of its thread's restore rate is below its task's write rate):
	// TotalSeconds is then when the simulation gave up.
	Converged bool `json:"converged"`
	// TotalSeconds is the warmup-assignment time: from starting the new
	// instances until the assignment is balanced and every task runs.
	TotalSeconds float64 `json:"total_seconds"`
	// ProbingRounds counts the probing rebalances; Rebalances every
	// rebalance: the first, probing ones and cooperative follow-ups.
	ProbingRounds int `json:"probing_rounds"`
	Rebalances    int `json:"rebalances"`
	// Movements counts the tasks that end on another client; MaxWarmups
	// the most warmups one round assigned.
	Movements  int `json:"movements"`
	MaxWarmups int `json:"max_warmups"`
	// MaxDownSeconds is the longest a moved task was not processed (its new
	// owner restoring what it lacked).
	MaxDownSeconds float64    `json:"max_down_seconds"`
	Rounds         []Round    `json:"rounds"`
	Tasks          []TaskPlan `json:"tasks"`
	// Spread is set when the process-id order was not known: the totals
	// over the sampled orders. The prediction itself is the median one.
	Spread *Spread `json:"spread,omitempty"`
	// Immediate is the same scale-out when every follow-up rebalance comes
	// at once rather than a heartbeat interval later (nil when that changes
	// nothing): the members that gave up nothing then join before a warmup
	// the previous round assigned has caught up, so it waits a probing
	// interval more. Kafka Streams 4.4 did both in identical runs here.
	Immediate *Alternative `json:"immediate_follow_ups,omitempty"`
}

// Alternative is a prediction's total under another assumption.
type Alternative struct {
	TotalSeconds  float64 `json:"total_seconds"`
	ProbingRounds int     `json:"probing_rounds"`
}

// Spread summarises predictions over sampled process-id orders.
type Spread struct {
	Samples       int     `json:"samples"`
	MinSeconds    float64 `json:"min_seconds"`
	MedianSeconds float64 `json:"median_seconds"`
	MaxSeconds    float64 `json:"max_seconds"`
	MinRounds     int     `json:"min_probing_rounds"`
	MaxRounds     int     `json:"max_probing_rounds"`
}

// Predict simulates the scale-out the inputs describe. With a known
// process-id order (or the streams protocol, where it does not matter) it
// simulates once; otherwise it simulates Samples random orders (seeded)
// and returns the one with the median total, with the spread.
func Predict(in Inputs) (Prediction, error) { return simulate(context.Background(), in, true) }

// PredictContext is Predict that stops, with ctx's error, when ctx is done:
// a large simulation can take minutes.
func PredictContext(ctx context.Context, in Inputs) (Prediction, error) {
	return simulate(ctx, in, true)
}

// PredictTotal is Predict without the Immediate alternative, which doubles
// the simulations: for searches that read only the total.
func PredictTotal(in Inputs) (Prediction, error) { return simulate(context.Background(), in, false) }

func simulate(ctx context.Context, in Inputs, alternatives bool) (Prediction, error) {
	if err := in.Validate(); err != nil {
		return Prediction{}, err
	}
	if len(in.Order) > 0 || in.Protocol == ProtocolStreams {
		order := in.Order
		if len(order) == 0 {
			order = identity(in.After)
		}
		p := simulateOnce(ctx, in, order)
		if alternatives {
			p = withImmediate(ctx, p, order)
		}
		return p, ctx.Err()
	}
	n := in.Samples
	if n <= 0 {
		n = DefaultSamples
	}
	// Keep each sample's total, rounds and order, not its whole prediction
	// (a plan per task): the median one is simulated again, which gives the
	// same prediction, as the simulation is deterministic.
	type sample struct {
		total  float64
		rounds int
		order  []int
	}
	rng := rand.New(rand.NewPCG(in.Seed, 0x5ca1e))
	samples := make([]sample, n)
	for i := range samples {
		if err := ctx.Err(); err != nil {
			return Prediction{}, err
		}
		order := identity(in.After)
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		p := simulateOnce(ctx, in, order)
		samples[i] = sample{p.TotalSeconds, p.ProbingRounds, order}
	}
	if err := ctx.Err(); err != nil {
		return Prediction{}, err
	}
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].total < samples[j].total })
	med := simulateOnce(ctx, in, samples[n/2].order)
	med.Spread = &Spread{Samples: n, MinSeconds: samples[0].total, MedianSeconds: med.TotalSeconds, MaxSeconds: samples[n-1].total,
		MinRounds: samples[0].rounds, MaxRounds: samples[0].rounds}
	for _, p := range samples {
		med.Spread.MinRounds = min(med.Spread.MinRounds, p.rounds)
		med.Spread.MaxRounds = max(med.Spread.MaxRounds, p.rounds)
	}
	if alternatives {
		med = withImmediate(ctx, med, med.Inputs.Order)
	}
	med.Inputs.Order = nil // sampled, not an input
	return med, ctx.Err()
}

// withImmediate adds p's alternative with immediate follow-up rebalances
// (classic protocol), when it differs.
func withImmediate(ctx context.Context, p Prediction, order []int) Prediction {
	in := p.Inputs
	if in.Protocol != ProtocolClassic || in.FollowUpSeconds == 0 {
		return p
	}
	in.FollowUpSeconds = 0
	alt := simulateOnce(ctx, in, order)
	if alt.ProbingRounds != p.ProbingRounds {
		p.Immediate = &Alternative{TotalSeconds: alt.TotalSeconds, ProbingRounds: alt.ProbingRounds}
	}
	return p
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// simulateOnce runs one simulation with the clients in order.
// simulateOnce simulates one process-id order; when ctx is done it stops
// early (the caller returns ctx's error, not the prediction).
func simulateOnce(ctx context.Context, in Inputs, order []int) Prediction {
	s := newSim(in, order)
	s.ctx = ctx
	var ok bool
	if in.Protocol == ProtocolStreams {
		ok = s.runStreams()
	} else {
		ok = s.runClassic()
	}
	if ctx.Err() != nil {
		return Prediction{} // stopped part-way: nothing to report
	}
	s.finishPlans()
	in.Order = order
	p := Prediction{Label: Label, Inputs: in, Converged: ok, TotalSeconds: s.now, Rounds: s.rounds, Tasks: s.plans}
	for _, r := range s.rounds {
		if r.Probing {
			p.ProbingRounds++
		}
		p.Rebalances++
		p.MaxWarmups = max(p.MaxWarmups, len(r.Warmups))
	}
	for _, t := range s.plans {
		if t.To != t.From {
			p.Movements++
		}
		p.MaxDownSeconds = max(p.MaxDownSeconds, t.DownSeconds)
	}
	return p
}
