package runs

import (
	"fmt"
	"strconv"

	"github.com/restorebench/restorebench/config"
)

// The warm-restart sequence's kinds of step.
const (
	// StepCold is a warm-restart sequence's baseline: a cold restore of
	// the state its restarts resume.
	StepCold StepKind = "cold"
	// StepWarm is a restart with the state directory kept, after
	// Step.Changed records were written while the instance was down.
	StepWarm StepKind = "warm"
	// StepFallback is a restart whose committed offsets lay below the log
	// start, so it restored from the log start.
	StepFallback StepKind = "fallback"
)

func init() {
	registerRecord(recordDef{
		scenario:  config.ScenarioWarm,
		kinds:     []StepKind{StepCold, StepWarm, StepFallback},
		holds:     func(r *Restore) bool { return r.Warm != nil },
		example:   warmExample,
		checkStep: checkWarmStep,
		steps: map[StepKind]stepDef{
			StepCold:     {name: kindName},
			StepFallback: {name: kindName},
			StepWarm: {
				name:  func(s Step) string { return "changed=" + strconv.FormatInt(s.Changed, 10) },
				param: func(s Step) string { return fmt.Sprintf("changed %d", s.Changed) },
				keep:  func(from Step, to *Step) { to.Changed = from.Changed },
				check: func(s Step) error {
					if s.Changed < 0 || s.Changed > MaxPlausibleRecords {
						return fmt.Errorf("step changed %d: not a count of records", s.Changed)
					}
					return nil
				},
			},
		},
	})
}

// WarmRecord is what a warm-restart measurement adds to its restore
// record: the step of the sequence (a cold baseline, then restarts with the
// state directory kept) and what changed while the instance was down.
type WarmRecord struct {
	// Step is StepCold (the baseline: a cold restore of the same state),
	// StepWarm (a restart after Changed records were written), or
	// StepFallback (a restart whose committed offsets lay below the log
	// start): the record's Step.Kind.
	Step StepKind `json:"step"`
	// Changed is the records written to the changelog while the instance
	// was down.
	Changed int64 `json:"changed"`
	// WarmTasks restored from their committed offsets; FallbackTasks from
	// the log start, with Fallbacks saying why (one line per task).
	WarmTasks     int      `json:"warm_tasks"`
	FallbackTasks int      `json:"fallback_tasks"`
	Fallbacks     []string `json:"fallbacks,omitempty"`
	// ColdSeconds is the same repeat's cold baseline restore time, so a
	// warm restore reads against the state it resumed.
	ColdSeconds float64 `json:"cold_seconds"`
	// LiveBytes is the key+value bytes of the state the restore ended with.
	LiveBytes int64 `json:"live_bytes"`
	// Stop is how the instance ended before this restart (warm.stop:
	// "clean" or "kill"); empty in the cold step and in records from before
	// the setting.
	Stop string `json:"stop,omitempty"`
	// Behind is, in a warm step, the records restored again from below the
	// offsets the stores had reached when the instance stopped: 0 after a
	// clean stop; after a SIGKILL, how far the durable offsets (a
	// .checkpoint before Kafka Streams 4.3, the store's own from 4.3) lagged.
	Behind int64 `json:"behind,omitempty"`
	// CrashRule is, on the model engine after an emulated SIGKILL, the
	// Kafka Streams rule it applied (recovery.Rule's text: the version,
	// the guarantee, what is restored again and what the rule rests on);
	// empty on the kafka-streams engine, which measured the real client.
	CrashRule string `json:"crash_rule,omitempty"`
}

// checkWarmStep checks a warm record against its step: the same kind, and
// a restart's changed records.
func checkWarmStep(r *Restore, s Step) error {
	w := r.Warm
	if w.Step != s.Kind {
		return fmt.Errorf("step kind %q, but its warm record's step is %q", s.Kind, w.Step)
	}
	if s.Kind == StepWarm && w.Changed != s.Changed {
		return fmt.Errorf("step changed %d, but its warm record says %d changed", s.Changed, w.Changed)
	}
	return nil
}

// ExampleWarmFixed and ExampleWarmRate are the example warm restarts'
// line: time to ready = ExampleWarmFixed + bytes of changes /
// ExampleWarmRate (one stream thread, 4 partitions: the rate is the
// thread's).
const (
	ExampleWarmFixed = 0.4
	ExampleWarmRate  = 60e6
)

// warmExample is three warm sequences, each the cold baseline, restarts
// after 0, 10k, 100k and 1M changed records on the example's line, and a
// fallback.
func warmExample(kit ExampleKit) []Restore {
	var out []Restore
	for rep := 1; rep <= 3; rep++ {
		out = append(out, warmExampleSequence(kit, rep)...)
	}
	return out
}

// warmExampleSequence is repeat rep's warm sequence.
func warmExampleSequence(kit ExampleKit, rep int) []Restore {
	fill := kit.Fill()
	p := kit.Case("warm", config.ScenarioWarm, config.EngineModel)
	n := kit.Noise(rep)
	cold := (0.5 + float64(fill.Bytes)/100e6) * n
	coldRec := kit.Record(exampleStep(p, StepCold), rep, p, cold, fill.Records, fill.Bytes)
	coldSeconds := coldRec.Phase.Seconds // the cold restore's, its ready phase aside
	coldRec.Warm = &WarmRecord{Step: "cold", ColdSeconds: coldSeconds, WarmTasks: 0}
	out := []Restore{coldRec}
	for _, changed := range []int64{0, 10_000, 100_000, 1_000_000} {
		bytes := changed * kit.RecordBytes()
		s := exampleStep(p, StepWarm)
		s.Changed = changed
		rec := kit.Record(s, rep, p, (ExampleWarmFixed+float64(bytes)/ExampleWarmRate)*n, changed, bytes)
		rec.Warm = &WarmRecord{Step: "warm", Changed: changed, WarmTasks: 4, ColdSeconds: coldSeconds}
		out = append(out, rec)
	}
	fb := kit.Record(exampleStep(p, StepFallback), rep, p, 0.5*n, 5000, 5000*kit.RecordBytes())
	fb.Warm = &WarmRecord{Step: "fallback", Changed: 5000, FallbackTasks: 4, ColdSeconds: coldSeconds,
		Fallbacks: []string{"task 0_0: committed offset below the log start"}}
	return append(out, fb)
}
