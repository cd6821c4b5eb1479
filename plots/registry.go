package plots

import (
	"gonum.org/v1/plot"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Chart is one chart this package draws from a run's results, registered
// once in Charts: `restorebench plot` (WriteAll) writes every chart of the
// registry a run has data for, and the report draws its figures of a run
// from the same entries.
type Chart struct {
	// Name identifies the chart; the report names its figures of a run
	// Name + "-" + the run's label.
	Name string
	// File is the base name WriteAll writes the chart as (File + ".png",
	// File + ".svg").
	File string
	// Scenario is the scenario whose records the chart draws; "" for a
	// general chart of any run's restores and fill.
	Scenario config.Scenario
	// Title and Caption are the report's heading and caption of the
	// figure (the report adds the run's label).
	Title, Caption string
	// Report says whether the report shows the chart. Every scenario's
	// chart is in its scenario's section; of the general charts the report
	// shows only the time per case, in its throughput section, and then
	// only when it has no cross-size chart.
	Report bool
	// Draw draws the chart; it returns ErrNoRestores, ErrNotASweep or
	// ErrNotApplicable, or (nil, nil), for results without data for it.
	Draw func(*runs.Results) (*plot.Plot, error)
}

// Charts is the chart registry, in the order WriteAll writes them and the
// report shows them within a section. Adding a chart is adding an entry.
var Charts = []Chart{
	{Name: "restore-throughput", File: RestoreThroughputFile, Draw: RestoreThroughput},
	{Name: "time-per-case", File: RestoreTimePerCaseFile, Draw: RestoreTimePerCase, Report: true,
		Title: "Restore time per case", Caption: "Median restore phase per case (package plots), min–max over verified repeats."},
	{Name: "restore-time-by-batch", File: RestoreTimeByBatchFile, Draw: RestoreTimeByBatch},
	{Name: "restore-phases", File: RestorePhasesFile, Draw: RestorePhases},
	{Name: "fill-throughput", File: FillThroughputFile, Draw: FillThroughput},

	{Name: "scaleout-timeline", File: ScaleOutTimelineFile, Scenario: config.ScenarioScaleOut, Draw: ScaleOutTimeline, Report: true,
		Title:   "Scale-out: each task's roles over time",
		Caption: "Per task where it was active, restoring or warming up, with gaps in processing; dashed: probing rebalances"},
	{Name: "scaleout-warmup-lag", File: WarmupLagFile, Scenario: config.ScenarioScaleOut, Draw: WarmupLag, Report: true,
		Title:   "Warmup lag during the scale-out",
		Caption: "Each warmup's lag against seconds from the new instances' start; dashed: acceptable.recovery.lag"},
	{Name: "scaleout-model", File: ModelVsMeasuredFile, Scenario: config.ScenarioScaleOut, Draw: ModelVsMeasured, Report: true,
		Title:   "Warmup-assignment time: measured vs model",
		Caption: "Measured beside the warmup model's prediction from the same run's inputs"},
	{Name: "rolling-timeline", File: RollingTimelineFile, Scenario: config.ScenarioRolling, Draw: RollingTimeline, Report: true,
		Title:   "Rolling restart: each task's roles over time",
		Caption: "Per task where it was active, restoring, warming up or a standby, with gaps in processing, against seconds from the first stop; dashed: each restart's stop; solid: the last restart's ready"},
	{Name: "rolling-downtime", File: RollingDowntimeFile, Scenario: config.ScenarioRolling, Draw: RollingDowntime, Report: true,
		Title:   "Rolling restart downtime",
		Caption: "Per restart the longest any task processed nothing"},
	{Name: "warm-vs-cold", File: WarmVsColdFile, Scenario: config.ScenarioWarm, Draw: WarmVsCold, Report: true,
		Title:   "Warm restart vs cold restore",
		Caption: "Restore time against the records written while the instance was down (log scale), median over repeats; dashed: the cold restore of the same state"},
	{Name: "standby-lag", File: StandbyLagFile, Scenario: config.ScenarioStandby, Draw: StandbyLag, Report: true,
		Title:   "Standby lag against the write rate",
		Caption: "Per case the p99 of each rate step's lag against the rate written, median over verified repeats; circles kept up, crosses fell behind; a lag of 0 is drawn at 1; dashed: acceptable.recovery.lag"},
	{Name: "standby-catch-up", File: StandbyCatchUpFile, Scenario: config.ScenarioStandby, Draw: StandbyCatchUp, Report: true,
		Title:   "Standby catch-up after a pause",
		Caption: "Time from the standby's restart until its lag was within acceptable.recovery.lag, against how long it was stopped"},
	{Name: "failover-gap", File: FailoverGapFile, Scenario: config.ScenarioFailover, Draw: FailoverGaps, Report: true,
		Title:   "Processing gap after a SIGKILL",
		Caption: "Per case the gap of its kills, median with min–max, coloured by the ledger check; dashed: session.timeout.ms"},
	{Name: "compaction", File: CompactionFile, Scenario: config.ScenarioCompaction, Draw: CompactionAmplification, Report: true,
		Title:   "Restore amplification per cleaner setting",
		Caption: "Records read at restore per live key, median over repeats, beside the bound the settings allow"},
}

// ChartsOf returns the registered charts of scenario s ("" for the general
// charts), in registry order.
func ChartsOf(s config.Scenario) []Chart {
	var out []Chart
	for _, c := range Charts {
		if c.Scenario == s {
			out = append(out, c)
		}
	}
	return out
}

// ChartNamed returns the registered chart called name.
func ChartNamed(name string) (Chart, bool) {
	for _, c := range Charts {
		if c.Name == name {
			return c, true
		}
	}
	return Chart{}, false
}
