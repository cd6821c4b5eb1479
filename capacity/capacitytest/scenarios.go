package capacitytest

import (
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Synthetic scenario figures, so tests know the answers in advance: each
// scenario's example records (runs.Examples) are written in its record's
// file, and these name the figures tests check.
const (
	// WarmFixed and WarmRate are the warm restarts' line: time to ready =
	// WarmFixed + bytes of changes / WarmRate (one stream thread, 4
	// partitions: the rate is the thread's).
	WarmFixed = runs.ExampleWarmFixed
	WarmRate  = runs.ExampleWarmRate
	// StandbyBest is the highest rate (records/s) the synthetic standby
	// keeps up with.
	StandbyBest = runs.ExampleStandbyBest
)

// ScenarioRun is a run holding the example records of every scenario that
// registers them (runs.Examples, in config's scenario order), beside its
// cold restores: warm restarts (3 repeats), standby steps, failover kills
// with and without a standby, a scale-out with the warmup model's
// prediction, and two compaction cases. Its fill is 256 MB.
func ScenarioRun(index int) *runs.Results {
	r := Run(index, 256e6, nil)
	r.RunID = r.StartedAt.Format("20060102-150405") + "-scenarios"
	r.Profile.Name = "scenarios"
	r.Restores = append(r.Restores, runs.Examples(exampleKit{fill: r.Fill, start: r.StartedAt})...)
	return r
}

// exampleKit is what the scenarios' example records are made with
// (runs.ExampleKit): the synthetic run's fill, start and records.
type exampleKit struct {
	fill  *runs.Fill
	start time.Time
}

func (k exampleKit) Case(name string, s config.Scenario, e config.Engine) config.Case {
	return scenarioCase(name, s, e)
}

func (k exampleKit) Record(s runs.Step, rep int, p config.Case, seconds float64, records, bytes int64) runs.Restore {
	return record(s, rep, p, k.fill, k.start, seconds, records, bytes)
}

func (exampleKit) Noise(rep int) float64 { return noise[rep-1] }
func (k exampleKit) Fill() *runs.Fill    { return k.fill }
func (k exampleKit) Start() time.Time    { return k.start }
func (exampleKit) RecordBytes() int64    { return recordBytes }

// scenarioCase is the settings of a scenario case (model engine unless
// kafka-streams is asked for), with its scenario's default settings
// (config's registry gives them).
func scenarioCase(name string, s config.Scenario, engine config.Engine) config.Case {
	p := config.DefaultCase()
	p.Name, p.Scenario, p.Engine = name, s, engine
	p.RocksDB.Parallelism, p.RocksDB.MaxBackgroundJobs = 2, 2
	p.ScenarioDefaults()
	return p
}

// record is a verified record of step s, seconds to ready reading records
// of bytes, on fill's expected state.
func record(s runs.Step, rep int, p config.Case, fill *runs.Fill, start time.Time, seconds float64, records, bytes int64) runs.Restore {
	r := restore(Case{Name: s.Name(), Modify: func(c *config.Case) { *c = p }, Fixed: 1}, rep-1, fill, start)
	r.Repeat, r.Params = rep, p
	r.SetStep(s)
	dur := seconds - readySeconds
	r.Records, r.Bytes = records, bytes
	r.Phase = &runs.RestorePhase{Seconds: dur, TotalSeconds: seconds, RecordsPerSec: runs.PerSec(records, dur), MBPerSec: runs.MBPerSec(bytes, dur),
		PeakRSSBytes: 300 << 20}
	setModel(&r, dur)
	return r
}
