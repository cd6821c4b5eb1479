package capacity

import (
	"fmt"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/runs"
)

// EnginePair is one setting a run restored on both engines, as package
// compare pairs them (compare.EnginePairs: same settings but the engine and
// JVM, restore seconds, repeat-by-repeat ratios model / Kafka Streams).
type EnginePair struct {
	Run  *Run
	Pair compare.EnginePair
}

// KafkaStreamsOverModel is how many times the model's restore time Kafka
// Streams takes: 1 / compare's ratio (EnginePair.ModelOverKafkaStreams).
// 0 when the pair has none.
func (p EnginePair) KafkaStreamsOverModel() float64 {
	if r := p.Pair.ModelOverKafkaStreams(); r > 0 {
		return 1 / r
	}
	return 0
}

// Calibration is how much longer real Kafka Streams takes than the model
// engine for the same settings: model-based predictions are multiplied by
// Factor and labelled calibrated. The factor is measured on the restore
// phase (Kafka Streams reports no separate ready phase) and applied to the
// time to ready: an approximation the report states.
type Calibration struct {
	// Factor is the median of the pairs' KafkaStreamsOverModel, the
	// multiplier a model time takes; Min and Max their spread.
	Factor, Min, Max float64
	Pairs            []EnginePair
}

// String is e.g. "×1.12 (1.08-1.15 over 3 settings)".
func (c *Calibration) String() string {
	if len(c.Pairs) == 1 {
		return fmt.Sprintf("×%.2f (1 setting)", c.Factor)
	}
	return fmt.Sprintf("×%.2f (%.2f-%.2f over %d settings)", c.Factor, c.Min, c.Max, len(c.Pairs))
}

// Calibrate collects every run's engine pairs (compare.EnginePairs) and
// takes the median factor over them; nil when no run has a pair.
func Calibrate(rs []*Run) *Calibration {
	var pairs []EnginePair
	var fs []float64
	for _, run := range rs {
		for _, p := range compare.EnginePairs(run.Results.Restores) {
			ep := EnginePair{Run: run, Pair: p}
			if f := ep.KafkaStreamsOverModel(); f > 0 {
				pairs = append(pairs, ep)
				fs = append(fs, f)
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return &Calibration{Factor: runs.Median(fs), Min: runs.Min(fs), Max: runs.Max(fs), Pairs: pairs}
}
