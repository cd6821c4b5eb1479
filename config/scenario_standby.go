package config

import (
	"fmt"
	"time"

	"github.com/restorebench/restorebench/warmup"
)

// ScenarioStandby is a standby replica keeping up with a changelog
// written at set rates, and catching up after a pause.
const ScenarioStandby Scenario = "standby"

func init() { registerScenario(standbyDef) }

// standbyDef registers the standby scenario.
var standbyDef = ScenarioDef{
	KafkaStreamsNeeds: []KSFeature{FeatureStandbyListener},
	Name:              ScenarioStandby,
	KindNeeds:         []KindCap{CapReopen, CapReopenLater},
	Order:             30,
	Engines:           []Engine{EngineModel, EngineKafkaStreams},
	PutOnly:           true,
	// i0 is the active instance, i1 its standby.
	Roles: []string{RoleActive, RoleStandby},
	RoleOf: func(_ Case, k int) string {
		switch k {
		case 0:
			return RoleActive
		case 1:
			return RoleStandby
		}
		return ""
	},
	OnAgents: true,
	KindGaps: []KindGap{
		{Kind: "timestamped-key-value", Why: "no test found runs it either"},
		{Kind: "window", Why: "bench's TestStandbyOfSegmentedStores and integration's TestRealKafkaStreamsStandbyOfAWindowStore run it"},
	},
	Settings: settingsOf[StandbySettings]{
		key:      "standby",
		field:    func(c *Case) **StandbySettings { return &c.Standby },
		defaults: DefaultStandby,
		check:    checkStandby,
		deepCopy: func(dst, src *StandbySettings) {
			dst.Rates = append([]float64(nil), src.Rates...)
			dst.Pauses = append([]Duration(nil), src.Pauses...)
		},
	},
}

// StandbySettings are the standby scenario's: a standby keeps a copy of
// the stores while the changelog is written at set rates; it is then
// paused (stopped with its state kept) and restarted, and the time until
// it is caught up again is measured.
type StandbySettings struct {
	// Rates are the changelog write rates, records a second, one step each.
	// Default [2000, 10000, 50000].
	Rates []float64 `json:"rates" yaml:"rates"`
	// Duration is how long each rate is written. Default 15s.
	Duration Duration `json:"duration" yaml:"duration"`
	// Pauses are how long the standby is stopped while writes go on, one
	// catch-up measurement each. Default [5s, 20s].
	Pauses []Duration `json:"pauses" yaml:"pauses"`
	// PauseRate is the write rate during the pause measurements, records
	// a second. Default 10000.
	PauseRate float64 `json:"pause_rate" yaml:"pause_rate"`
	// AcceptableRecoveryLag is Kafka Streams' acceptable.recovery.lag: a
	// standby within it counts as caught up. Default Kafka Streams' 10000
	// (warmup.DefaultAcceptableRecoveryLag).
	AcceptableRecoveryLag int64 `json:"acceptable_recovery_lag" yaml:"acceptable_recovery_lag"`
	// FindMax searches, after the rates, for the highest write rate the
	// standby sustains (its lag stays bounded), doubling then bisecting.
	// Default true.
	FindMax bool `json:"find_max" yaml:"find_max"`
	// Sample is how often the standby's lag is read. Default 250ms.
	Sample Duration `json:"sample" yaml:"sample"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *StandbySettings) SetDefaults() { *s = *DefaultStandby() }

// MinStandbyLagSamples is the fewest lag samples a standby rate step must
// take while it writes for its verdict (kept up or fell behind) to be a
// measurement; standby.duration must hold that many standby.sample
// intervals.
const MinStandbyLagSamples = 5

// Lag sampling limits on the kafka-streams engine: its driver reports lags
// at most every MinKafkaStreamsLagInterval; the catch-up it times from
// those reports needs one at least every MaxStandbyKafkaStreamsSample.
const (
	MinKafkaStreamsLagInterval   = 100 * time.Millisecond
	MaxStandbyKafkaStreamsSample = time.Second
)

// StandbyLagInterval is how often a standby's lag is read on engine with
// the setting sample: the kafka-streams driver reports it at most every
// MinKafkaStreamsLagInterval.
func StandbyLagInterval(engine Engine, sample Duration) time.Duration {
	if engine == EngineKafkaStreams {
		return max(sample.D(), MinKafkaStreamsLagInterval)
	}
	return sample.D()
}

// DefaultStandby returns the standby scenario's defaults.
func DefaultStandby() *StandbySettings {
	return &StandbySettings{
		Rates: []float64{2000, 10_000, 50_000}, Duration: Duration(15 * time.Second),
		Pauses: []Duration{Duration(5 * time.Second), Duration(20 * time.Second)}, PauseRate: 10_000,
		AcceptableRecoveryLag: warmup.DefaultAcceptableRecoveryLag, FindMax: true, Sample: Duration(250 * time.Millisecond),
	}
}

// checkStandby validates a standby case's settings; the lag sampling they
// allow depends on the case's engine.
func checkStandby(c Case, s *StandbySettings) error {
	rates := map[float64]int{}
	for i, r := range s.Rates {
		if !(r > 0) {
			return fieldErr(fmt.Sprintf("standby.rates[%d]", i), "%v must be positive", r)
		}
		if err := checkRate(fmt.Sprintf("standby.rates[%d]", i), r); err != nil {
			return err
		}
		if j, dup := rates[r]; dup {
			return fieldErr(fmt.Sprintf("standby.rates[%d]", i), "%v repeats standby.rates[%d]: each step is measured once (use repeats for more)", r, j)
		}
		rates[r] = i
	}
	pauses := map[Duration]int{}
	for i, p := range s.Pauses {
		if p <= 0 {
			return fieldErr(fmt.Sprintf("standby.pauses[%d]", i), "%s must be positive", p)
		}
		if err := checkDuration(fmt.Sprintf("standby.pauses[%d]", i), p); err != nil {
			return err
		}
		if j, dup := pauses[p]; dup {
			return fieldErr(fmt.Sprintf("standby.pauses[%d]", i), "%s repeats standby.pauses[%d]: each step is measured once (use repeats for more)", p, j)
		}
		pauses[p] = i
	}
	switch {
	case len(s.Rates) > maxSteps:
		return fieldErr("standby.rates", "%d rates is over %d", len(s.Rates), maxSteps)
	case len(s.Pauses) > maxSteps:
		return fieldErr("standby.pauses", "%d pauses is over %d", len(s.Pauses), maxSteps)
	case len(s.Rates) == 0 && !s.FindMax:
		return fieldErr("standby.rates", "want at least one rate (or find_max: true)")
	case s.Duration < Duration(time.Second):
		return fieldErr("standby.duration", "%s is under 1s", s.Duration)
	case len(s.Pauses) > 0 && !(s.PauseRate > 0):
		return fieldErr("standby.pause_rate", "%v must be positive", s.PauseRate)
	case s.AcceptableRecoveryLag < 0:
		return fieldErr("standby.acceptable_recovery_lag", "%d is negative", s.AcceptableRecoveryLag)
	case s.Sample < Duration(10*time.Millisecond):
		return fieldErr("standby.sample", "%s is under 10ms", s.Sample)
	case s.AcceptableRecoveryLag > MaxAcceptableRecoveryLag:
		return fieldErr("standby.acceptable_recovery_lag", "%d is over %d records", s.AcceptableRecoveryLag, int64(MaxAcceptableRecoveryLag))
	}
	if err := firstErr(checkDuration("standby.duration", s.Duration), checkRate("standby.pause_rate", s.PauseRate)); err != nil {
		return err
	}
	// A rate step's verdict rests on its lag samples: the settings
	// must give enough of them within a step.
	every := StandbyLagInterval(c.Engine, s.Sample)
	if n := int64(s.Duration.D() / every); n < MinStandbyLagSamples {
		at := ""
		if every != s.Sample.D() {
			at = fmt.Sprintf(" (the %s engine reports lags every %s at the least)", c.Engine, every)
		}
		return fieldErr("standby.sample", "%s%s gives %d lag sample(s) over standby.duration %s; a rate step needs at "+
			"least %d to say whether the standby kept up: make standby.duration at least %d × standby.sample",
			s.Sample, at, n, s.Duration, MinStandbyLagSamples, MinStandbyLagSamples)
	}
	if c.Engine == EngineKafkaStreams && s.Sample > Duration(MaxStandbyKafkaStreamsSample) {
		return fieldErr("standby.sample", "%s is over %s: on the kafka-streams engine the lag samples also time the "+
			"standby's catch-up (within a second of a rate step's writes stopping, and after a pause), so "+
			"they must come at least every %s",
			s.Sample, MaxStandbyKafkaStreamsSample, MaxStandbyKafkaStreamsSample)
	}
	return nil
}
