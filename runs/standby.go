package runs

import (
	"fmt"
	"math"
	"strconv"

	"github.com/restorebench/restorebench/config"
)

// The standby scenario's kinds of step.
const (
	// StepInitial is a standby's first restore of the changelog, before
	// any writes.
	StepInitial StepKind = "initial"
	// StepRate is the changelog written at Step.Rate while the standby
	// follows it.
	StepRate StepKind = "rate"
	// StepMax is a rate step of the search for the highest rate a
	// standby sustains.
	StepMax StepKind = "max"
	// StepPause is the standby stopped for Step.PauseSeconds while writes
	// went on, then restarted.
	StepPause StepKind = "pause"
)

func init() {
	registerRecord(recordDef{
		scenario:  config.ScenarioStandby,
		kinds:     []StepKind{StepInitial, StepRate, StepMax, StepPause},
		holds:     func(r *Restore) bool { return r.Standby != nil },
		example:   standbyExample,
		checkStep: checkStandbyStep,
		following: []StepKind{StepRate, StepMax, StepPause},
		steps: map[StepKind]stepDef{
			StepInitial: {name: kindName},
			StepRate:    rateStep,
			StepMax:     rateStep,
			StepPause: {
				name:  func(s Step) string { return fmt.Sprintf("pause=%gs", s.PauseSeconds) },
				param: func(s Step) string { return fmt.Sprintf("pause %vs", s.PauseSeconds) },
				keep:  func(from Step, to *Step) { to.PauseSeconds = from.PauseSeconds },
				check: func(s Step) error { return plausible("step.pause_seconds", s.PauseSeconds, MaxPlausibleSeconds) },
			},
		},
	})
}

// rateStep is a rate step's and a search step's naming and parameter: the
// rate whole, as written (2000, 200.4), so two rates never share a name.
var rateStep = stepDef{
	name:  func(s Step) string { return string(s.Kind) + "=" + strconv.FormatFloat(s.Rate, 'f', -1, 64) },
	param: func(s Step) string { return fmt.Sprintf("rate %v", s.Rate) },
	keep:  func(from Step, to *Step) { to.Rate = from.Rate },
	check: func(s Step) error { return plausible("step.rate", s.Rate, MaxPlausibleRecords) },
}

// checkStandbyStep checks a standby record against its step: the same
// kind, a rate step's rate and a pause step's pause.
func checkStandbyStep(r *Restore, s Step) error {
	sb := r.Standby
	if sb.Step != s.Kind {
		return fmt.Errorf("step kind %q, but its standby record's step is %q", s.Kind, sb.Step)
	}
	// Builds of schema 1 named a rate step by its whole number of
	// records a second ("rate=200" for 200.4).
	if s.Kind.IsRate() && sb.TargetRate != s.Rate && s.Rate != math.RoundToEven(sb.TargetRate) {
		return fmt.Errorf("step rate %v, but its standby record's target rate is %v", s.Rate, sb.TargetRate)
	}
	if s.Kind == StepPause && sb.PauseSeconds != s.PauseSeconds {
		return fmt.Errorf("step pause %vs, but its standby record paused %vs", s.PauseSeconds, sb.PauseSeconds)
	}
	return nil
}

// LagPoint is a standby's lag at T seconds into its step: the records the
// broker held that the standby had not applied.
type LagPoint struct {
	T   float64 `json:"t"`
	Lag int64   `json:"lag"`
}

// StandbyRecord is what a standby measurement adds to its record.
type StandbyRecord struct {
	// Step is StepInitial (the standby's first restore of the changelog,
	// before any writes), StepRate (the changelog written at TargetRate
	// for Seconds), StepMax (a step of the search for the highest
	// sustained rate) or StepPause (the standby stopped for PauseSeconds
	// while writes went on, then restarted): the record's Step.Kind, here
	// too so the standby's figures judge themselves (Judged).
	Step StepKind `json:"step"`
	// TargetRate is the write rate asked for; WrittenRate what the producer
	// reached; AppliedRate what the standby applied, records a second.
	TargetRate  float64 `json:"target_rate"`
	WrittenRate float64 `json:"written_rate"`
	AppliedRate float64 `json:"applied_rate"`
	// Seconds is how long the step wrote.
	Seconds float64 `json:"seconds"`
	// Lag is the standby's lag over the step, and its distribution.
	Lag    []LagPoint `json:"lag"`
	LagP50 int64      `json:"lag_p50"`
	LagP99 int64      `json:"lag_p99"`
	LagMax int64      `json:"lag_max"`
	// LagSamples is how many lag samples the step took while it wrote
	// (the points of Lag within its Seconds); a rate step with fewer than
	// MinLagSamples has no verdict (see Judged).
	LagSamples int `json:"lag_samples"`
	// Sustained says the standby kept up: its lag stayed bounded (within
	// AcceptableRecoveryLag, or not growing over the step's second half)
	// and it caught up within a second of the writes stopping. A rate
	// step without a verdict (Judged false) is not sustained.
	Sustained bool `json:"sustained"`
	// ProducerLimited says the producer wrote below TargetRate: the step
	// measured the standby at WrittenRate, not at the target.
	ProducerLimited bool `json:"producer_limited"`
	// PauseSeconds is how long a "pause" step kept the standby stopped;
	// CatchUpSeconds the time from its restart until its lag was within
	// AcceptableRecoveryLag (Kafka Streams' acceptable.recovery.lag).
	PauseSeconds          float64 `json:"pause_seconds,omitempty"`
	CatchUpSeconds        float64 `json:"catch_up_seconds,omitempty"`
	AcceptableRecoveryLag int64   `json:"acceptable_recovery_lag"`
	// Following is what the standby applied over a following step (rate,
	// max, pause): not a restore, so the record has no restore phase. Nil
	// in the initial step (its restore is the record's Phase) and in a
	// step that failed before it was measured.
	Following *FollowingPhase `json:"following,omitempty"`
}

// FollowingPhase is a standby applying what was written over one of its
// following steps.
type FollowingPhase struct {
	// Seconds is how long the standby applied: on the model from the
	// step's start until it had applied everything written (its
	// Model.LoadSeconds too); on kafka-streams the step's span, until the
	// standby caught up.
	Seconds float64 `json:"seconds"`
	// RecordsPerSec and MBPerSec are the record's Records and Bytes over
	// Seconds (kafka-streams counts no bytes: 0 there).
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
}

// MinLagSamples is the fewest lag samples a standby's rate step must take
// while it writes for its verdict, kept up or fell behind, to be a
// measurement: fewer say nothing of how the lag moved (one sample at the
// step's start reads 0 whatever follows).
const MinLagSamples = config.MinStandbyLagSamples

// WriteSamples counts the step's lag samples taken while it wrote: the
// points of Lag within its Seconds (what LagSamples records).
func (s *StandbyRecord) WriteSamples() int {
	n := 0
	for _, p := range s.Lag {
		if p.T >= 0 && p.T <= s.Seconds {
			n++
		}
	}
	return n
}

// RateStep says whether the record is a step at a set write rate (StepRate,
// or StepMax of the search for the highest), which its lag samples judge.
func (s *StandbyRecord) RateStep() bool { return s.Step.IsRate() }

// Judged says whether the step's verdict rests on a measurement: a rate
// step needs MinLagSamples lag samples while it wrote, counted from its
// lag series (a record's own LagSamples is not taken on trust); the
// initial restore and the pause steps' catch-up are judged otherwise.
func (s *StandbyRecord) Judged() bool {
	return !s.RateStep() || s.WriteSamples() >= MinLagSamples
}

// KeptUp says the standby sustained the step, as measured: Sustained,
// with a verdict.
func (s *StandbyRecord) KeptUp() bool { return s.Sustained && s.Judged() }

// ExampleStandbyBest is the highest rate (records/s) the example standby
// keeps up with; it falls behind at exampleStandbyBehind.
const (
	ExampleStandbyBest   = 80000
	exampleStandbyBehind = 160000
)

// standbyExample is a standby's steps: rates it keeps up with up to
// ExampleStandbyBest, one it falls behind at, and two pauses.
func standbyExample(kit ExampleKit) []Restore {
	p := kit.Case("standby", config.ScenarioStandby, config.EngineModel)
	var out []Restore
	for _, step := range []struct {
		name StepKind
		rate float64
	}{{StepRate, 10000}, {StepRate, 40000}, {StepMax, ExampleStandbyBest}, {StepMax, exampleStandbyBehind}} {
		kept := step.rate <= ExampleStandbyBest
		secs := 6.0
		records := int64(step.rate * secs)
		s := exampleStep(p, step.name)
		s.Rate = step.rate
		rec := kit.Record(s, 1, p, secs, records, records*kit.RecordBytes())
		sb := &StandbyRecord{Step: step.name, TargetRate: step.rate, WrittenRate: step.rate, AppliedRate: math.Min(step.rate, 110000),
			Seconds: secs, Sustained: kept, AcceptableRecoveryLag: 10000}
		for t := 0.0; t <= secs; t += 0.5 {
			lag := int64(step.rate / 100)
			if !kept {
				lag = int64((step.rate - 110000) * t)
			}
			sb.Lag = append(sb.Lag, LagPoint{T: t, Lag: lag})
		}
		sb.LagP50, sb.LagP99, sb.LagMax = sb.Lag[len(sb.Lag)/2].Lag, sb.Lag[len(sb.Lag)-1].Lag, sb.Lag[len(sb.Lag)-1].Lag
		rec.Standby = sb
		out = append(out, exampleFollowing(rec))
	}
	for _, pause := range []float64{5, 15} {
		catch := 0.2 * pause
		records := int64(20000 * (pause + catch))
		s := exampleStep(p, StepPause)
		s.PauseSeconds = pause
		rec := kit.Record(s, 1, p, catch, records, records*kit.RecordBytes())
		rec.Standby = &StandbyRecord{Step: "pause", TargetRate: 20000, WrittenRate: 20000, AppliedRate: 100000, PauseSeconds: pause,
			CatchUpSeconds: catch, Sustained: true, AcceptableRecoveryLag: 10000, LagMax: int64(20000 * pause),
			Lag: []LagPoint{{T: 0, Lag: int64(20000 * pause)}, {T: catch, Lag: 9000}}}
		out = append(out, exampleFollowing(rec))
	}
	return out
}

// exampleFollowing is rec, a standby's following step made by the kit's
// Record, as the tool writes one: not a restore, its applying in its
// standby record and no ready phase.
func exampleFollowing(rec Restore) Restore {
	p := rec.Phase
	rec.Standby.Following = &FollowingPhase{Seconds: p.Seconds, RecordsPerSec: p.RecordsPerSec, MBPerSec: p.MBPerSec}
	rec.Phase = nil
	if rec.Model != nil {
		m := *rec.Model
		m.Ready = nil
		rec.Model = &m
	}
	return rec
}
