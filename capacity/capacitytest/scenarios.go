package capacitytest

import (
	"fmt"
	"math"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
	"github.com/restorebench/restorebench/warmup"
)

// Synthetic scenario figures, so tests know the answers in advance.
const (
	// WarmFixed and WarmRate are the warm restarts' line: time to ready =
	// WarmFixed + bytes of changes / WarmRate (one stream thread, 4
	// partitions: the rate is the thread's).
	WarmFixed = 0.4
	WarmRate  = 60e6
	// StandbyBest is the highest rate (records/s) the synthetic standby
	// keeps up with; it falls behind at StandbyBehind.
	StandbyBest   = 80000
	StandbyBehind = 160000
	// ScaleOutSeconds is the measured warmup-assignment time.
	ScaleOutSeconds = 62.8
)

// StandbyGaps are the synthetic failover's gaps with a standby, one per
// kill; NoStandbyGaps without one.
var (
	StandbyGaps   = []float64{7.2, 8.1, 9.6}
	NoStandbyGaps = []float64{14.2, 18.9}
)

// Amplifications are the synthetic compaction cases' measured restore
// amplification: Kafka's default cleaner settings, and aggressive ones.
var Amplifications = map[string]float64{"compaction-kafka-defaults": 6.0, "compaction-aggressive": 1.35}

// AggressiveCleaner are the aggressive case's cleaner settings.
var AggressiveCleaner = map[string]string{"segment.bytes": "8388608", "min.cleanable.dirty.ratio": "0.1"}

// ScenarioRun is a run holding one record of each scenario the planner
// reads beside cold restores: warm restarts (3 repeats), standby steps,
// failover kills with and without a standby, a scale-out with the warmup
// model's prediction, and two compaction cases. Its fill is 256 MB.
func ScenarioRun(index int) *runs.Results {
	r := Run(index, 256e6, nil)
	r.RunID = r.StartedAt.Format("20060102-150405") + "-scenarios"
	r.Profile.Name = "scenarios"
	start := r.StartedAt
	for rep := 1; rep <= 3; rep++ {
		r.Restores = append(r.Restores, warmRecords(r.Fill, rep, start)...)
	}
	r.Restores = append(r.Restores, standbyRecords(r.Fill, start)...)
	r.Restores = append(r.Restores, failoverRecords("eos-standby", true, StandbyGaps, start)...)
	r.Restores = append(r.Restores, failoverRecords("eos-no-standby", false, NoStandbyGaps, start)...)
	r.Restores = append(r.Restores, scaleOutRecord(r.Fill, start))
	for _, c := range []string{"compaction-kafka-defaults", "compaction-aggressive"} {
		for rep := 1; rep <= 2; rep++ {
			r.Restores = append(r.Restores, compactionRecord(c, rep, r.Fill, start))
		}
	}
	return r
}

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

// stepOf is case p's step of kind k (its parameters the caller's).
func stepOf(p config.Case, k runs.StepKind) runs.Step { return runs.Step{Case: p.Name, Kind: k} }

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

// warmRecords are one warm sequence: the cold baseline, restarts after
// 0, 10k, 100k and 1M changed records on the warm line, and a fallback.
func warmRecords(fill *runs.Fill, rep int, start time.Time) []runs.Restore {
	p := scenarioCase("warm", config.ScenarioWarm, config.EngineModel)
	n := noise[rep-1]
	cold := (0.5 + float64(fill.Bytes)/100e6) * n
	out := []runs.Restore{record(stepOf(p, runs.StepCold), rep, p, fill, start, cold, fill.Records, fill.Bytes)}
	out[0].Warm = &runs.WarmRecord{Step: "cold", ColdSeconds: cold - readySeconds, WarmTasks: 0}
	for _, changed := range []int64{0, 10_000, 100_000, 1_000_000} {
		bytes := changed * recordBytes
		s := stepOf(p, runs.StepWarm)
		s.Changed = changed
		rec := record(s, rep, p, fill, start, (WarmFixed+float64(bytes)/WarmRate)*n, changed, bytes)
		rec.Warm = &runs.WarmRecord{Step: "warm", Changed: changed, WarmTasks: 4, ColdSeconds: cold - readySeconds}
		out = append(out, rec)
	}
	fb := record(stepOf(p, runs.StepFallback), rep, p, fill, start, 0.5*n, 5000, 5000*recordBytes)
	fb.Warm = &runs.WarmRecord{Step: "fallback", Changed: 5000, FallbackTasks: 4, ColdSeconds: cold - readySeconds,
		Fallbacks: []string{"task 0_0: committed offset below the log start"}}
	return append(out, fb)
}

// standbyRecords are a standby's steps: rates it keeps up with up to
// StandbyBest, one it falls behind at, and two pauses.
func standbyRecords(fill *runs.Fill, start time.Time) []runs.Restore {
	p := scenarioCase("standby", config.ScenarioStandby, config.EngineModel)
	var out []runs.Restore
	for _, step := range []struct {
		name runs.StepKind
		rate float64
	}{{runs.StepRate, 10000}, {runs.StepRate, 40000}, {runs.StepMax, StandbyBest}, {runs.StepMax, StandbyBehind}} {
		kept := step.rate <= StandbyBest
		secs := 6.0
		records := int64(step.rate * secs)
		s := stepOf(p, step.name)
		s.Rate = step.rate
		rec := record(s, 1, p, fill, start, secs, records, records*recordBytes)
		sb := &runs.StandbyRecord{Step: step.name, TargetRate: step.rate, WrittenRate: step.rate, AppliedRate: math.Min(step.rate, 110000),
			Seconds: secs, Sustained: kept, AcceptableRecoveryLag: 10000}
		for t := 0.0; t <= secs; t += 0.5 {
			lag := int64(step.rate / 100)
			if !kept {
				lag = int64((step.rate - 110000) * t)
			}
			sb.Lag = append(sb.Lag, runs.LagPoint{T: t, Lag: lag})
		}
		sb.LagP50, sb.LagP99, sb.LagMax = sb.Lag[len(sb.Lag)/2].Lag, sb.Lag[len(sb.Lag)-1].Lag, sb.Lag[len(sb.Lag)-1].Lag
		rec.Standby = sb
		out = append(out, following(rec))
	}
	for _, pause := range []float64{5, 15} {
		catch := 0.2 * pause
		records := int64(20000 * (pause + catch))
		s := stepOf(p, runs.StepPause)
		s.PauseSeconds = pause
		rec := record(s, 1, p, fill, start, catch, records, records*recordBytes)
		rec.Standby = &runs.StandbyRecord{Step: "pause", TargetRate: 20000, WrittenRate: 20000, AppliedRate: 100000, PauseSeconds: pause,
			CatchUpSeconds: catch, Sustained: true, AcceptableRecoveryLag: 10000, LagMax: int64(20000 * pause),
			Lag: []runs.LagPoint{{T: 0, Lag: int64(20000 * pause)}, {T: catch, Lag: 9000}}}
		out = append(out, following(rec))
	}
	return out
}

// following is rec, a standby's following step made by record, as the
// tool writes one: not a restore, its applying in its standby record and
// no ready phase.
func following(rec runs.Restore) runs.Restore {
	p := rec.Phase
	rec.Standby.Following = &runs.FollowingPhase{Seconds: p.Seconds, RecordsPerSec: p.RecordsPerSec, MBPerSec: p.MBPerSec}
	rec.Phase = nil
	if rec.Model != nil {
		m := *rec.Model
		m.Ready = nil
		rec.Model = &m
	}
	return rec
}

// failoverRecords are one failover sequence: a kill per gap, the survivor
// promoting a standby or restoring; the ledger checked on the last.
func failoverRecords(name string, standby bool, gaps []float64, start time.Time) []runs.Restore {
	p := scenarioCase(name, config.ScenarioFailover, config.EngineKafkaStreams)
	p.Failover.Standby, p.Failover.Kills = standby, len(gaps)
	p.Streams = map[string]string{"processing.guarantee": "exactly_once_v2", "session.timeout.ms": "6000"}
	takeover := runs.TakeoverRestored
	if standby {
		takeover = runs.TakeoverPromoted
	}
	var out []runs.Restore
	for i, gap := range gaps {
		f := &runs.FailoverRecord{Kill: i + 1, Kills: len(gaps), Killed: "i1", Survivor: "i2", Incarnation: 1, AtSeconds: 10 * float64(i+1),
			MaxGapSeconds: gap, MedianGapSeconds: gap - 0.3, DetectionSeconds: 6.4, AssignedSeconds: 6.9, RunningSeconds: gap - 0.2,
			Takeover: takeover, Guarantee: "exactly_once_v2", Standby: standby, Persistent: true, SessionTimeoutMs: 6000, ProcessedIntervalMs: 100}
		for t := int32(0); t < 2; t++ {
			f.Tasks = append(f.Tasks, runs.FailoverTask{Task: fmt.Sprintf("0_%d", t), Partition: t, GapSeconds: gap - float64(t)*0.3, Takeover: takeover})
		}
		if i == len(gaps)-1 {
			f.Ledger = &runs.LedgerCheck{Accounts: 1000, AccountsQueried: 1000, Acked: 30000, Counted: 30000, Exact: true}
		}
		out = append(out, runs.Restore{Case: name, Step: &runs.Step{Case: name, Kind: runs.StepKill, Kill: i + 1}, Repeat: 1, Params: p,
			Partitions: 4, StartedAt: start.Add(time.Duration(i) * time.Minute),
			Verified: true, Verification: verify.Result{Mode: runs.VerificationLedger}, Failover: f})
	}
	return out
}

// scaleOutRecord is a scale-out from 1 to 2 instances of 4 tasks, with
// the warmup model's prediction from its inputs.
func scaleOutRecord(fill *runs.Fill, start time.Time) runs.Restore {
	p := scenarioCase("scaleout", config.ScenarioScaleOut, config.EngineKafkaStreams)
	p.ScaleOut.Before, p.ScaleOut.After = 1, 2
	offsets := fill.Records / 4
	in := warmup.Defaults()
	in.Before, in.After, in.TaskOffsets, in.BytesPerOffset = 1, 2, warmup.Uniform(4, offsets), recordBytes
	in.RestoreRate, in.WriteRate, in.ProbingIntervalSeconds, in.Order = 84000, 500, 60, []int{0, 1}
	in.StartupSeconds, in.RebalanceSeconds = 2, 1
	pred, err := warmup.Predict(in)
	if err != nil {
		panic(err)
	}
	so := &runs.ScaleOutRecord{Protocol: "classic", Before: 1, After: 2, Tasks: 4, Threads: 1, MaxWarmupReplicas: 2, AcceptableRecoveryLag: 10000,
		ProbingIntervalSeconds: 60, RestoreRate: 84000, BytesPerOffset: recordBytes, Balanced: true, WarmupAssignmentSeconds: ScaleOutSeconds,
		StartupSeconds: 2, Rebalances: 3, ProbingRounds: 1, RebalanceTimes: []float64{2, 5, 62}, ProbingTimes: []float64{62},
		Warmups: 2, Moved: 2, GapThresholdSeconds: 1, Prediction: &pred,
		Instances: []runs.ScaleInstance{{ID: "i0", Started: -30, Stopped: -1}, {ID: "i1", New: true, Stopped: -1}}}
	so.PredictionErrorPct = (pred.TotalSeconds - ScaleOutSeconds) / ScaleOutSeconds * 100
	for t := int32(0); t < 4; t++ {
		tl := runs.TaskTimeline{Task: fmt.Sprintf("0_%d", t), Partition: t, Offsets: offsets, From: "i0", To: "i0",
			WarmupStart: -1, CaughtUp: -1, Moved: -1, Running: 0,
			Segments: []runs.TaskSegment{{Instance: "i0", Role: runs.RoleActive, Start: 0, End: ScaleOutSeconds}}}
		if t%2 == 1 {
			tl.To, tl.WarmupStart, tl.CaughtUp, tl.Moved, tl.Running, tl.AssignmentSeconds = "i1", 3, 9, 62, 62.5, 62.5
			tl.Segments = []runs.TaskSegment{{Instance: "i0", Role: runs.RoleActive, Start: 0, End: 62}, {Instance: "i1", Role: runs.RoleWarmup, Start: 3, End: 62},
				{Instance: "i1", Role: runs.RoleActive, Start: 62, End: ScaleOutSeconds}}
			so.Lags = append(so.Lags, runs.LagSeries{Task: tl.Task, Instance: "i1", Role: runs.RoleWarmup,
				Points: []runs.LagPoint{{T: 3, Lag: offsets}, {T: 6, Lag: offsets / 2}, {T: 9, Lag: 500}, {T: 60, Lag: 300}}})
		}
		so.TaskTimelines = append(so.TaskTimelines, tl)
	}
	rec := record(stepOf(p, runs.StepScaleOut), 1, p, fill, start, ScaleOutSeconds, 2*offsets, 2*offsets*recordBytes)
	// A scale-out is measured by its assignment time, not a restore's figures.
	rec.Phase, rec.Model = nil, nil
	rec.ScaleOut = so
	return rec
}

// compactionRecord is one compaction case's repeat: the fill written again
// with the case's cleaner settings and restored, reading Amplifications[c]
// records per live key.
func compactionRecord(c string, rep int, fill *runs.Fill, start time.Time) runs.Restore {
	p := scenarioCase(c, config.ScenarioCompaction, config.EngineModel)
	bound := 6.05
	if c == "compaction-aggressive" {
		p.Compaction.TopicConfigs, bound = AggressiveCleaner, 1.9
	}
	keys := int64(float64(fill.Records) / 6.05) // the most the default settings leave: 6.05 records per live key
	amp := Amplifications[c] * (1 + 0.01*float64(rep-1))
	read := int64(float64(keys) * amp)
	rec := record(stepOf(p, runs.StepCompaction), rep, p, fill, start, 0.5+float64(read*recordBytes)/100e6, read, read*recordBytes)
	rec.Compaction = &runs.CompactionRecord{TopicConfigs: p.Compaction.TopicConfigs, Written: fill.Records, Read: read, LiveKeys: keys,
		Amplification: float64(read) / float64(keys), Bound: bound, LogBytesAfterWrite: fill.Bytes, LogBytesBeforeRestore: read * recordBytes,
		SettleSeconds: 15, CleanedBy: runs.CleanedByKafka}
	return rec
}
