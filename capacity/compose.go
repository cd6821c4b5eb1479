package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Composition is how k tasks restore together on one instance, measured
// rather than assumed: a run of topics of 1, 2, 4, ... partitions of one
// per-task size (the compose profile), each restored cold by one instance
// with Threads stream threads, on one host and engine. Its time to restore
// k tasks follows T(k) = Shared + PerTask × k, fitted over the measured k;
// Shared is what the tasks share (a JVM's start, the restore consumer's
// first fetches), PerTask what each adds at the series' task size.
type Composition struct {
	Engine  config.Engine
	Threads int
	// Host names the machine the series ran on, and CPUs its cores: a
	// composition holds for that kind of host.
	Host string
	CPUs int
	// Shared and PerTask are the fitted line's intercept and slope, in
	// seconds.
	Shared, PerTask float64
	// MaxTasks is the most tasks measured together.
	MaxTasks int
	// ErrLo and ErrHi are the line's relative residuals at the measured
	// task counts, the least and most of (line − measured) / measured over
	// every repeat: the composition's own measured error.
	ErrLo, ErrHi float64
	// Points are the medians by task count, in order.
	Points []ComposePoint
	// Obs are the restores it rests on.
	Obs []Obs
}

// ComposePoint is one task count's restores in a composition series.
type ComposePoint struct {
	Tasks int
	compare.Stat
}

// Label is e.g. "kafka-streams, 1 thread, on host-a (2 CPUs)".
func (c *Composition) Label() string {
	return fmt.Sprintf("%s, %s, on %s (%s)", c.Engine, Plural(c.Threads, "thread"), c.Host, Plural(c.CPUs, "CPU"))
}

// Summary is the line in one phrase: "1.9 s shared + 0.52 s a task
// (1-16 tasks measured, error -3%..+4%)".
func (c *Composition) Summary() string {
	return fmt.Sprintf("%s shared + %s a task at %s a task (%d–%d tasks measured together, the line's error %s to %s)",
		FormatSeconds(c.Shared), FormatSeconds(c.PerTask), FormatSeconds(c.PerTask+c.Shared), c.Points[0].Tasks, c.MaxTasks,
		EffectText(c.ErrLo), EffectText(c.ErrHi))
}

// composeKey groups the restores of one composition series: the same
// host, engine, settings and per-task changelog in topics of several
// partition counts.
type composeKey struct {
	host, engine, settings string
	threads                int
	// taskRecords and recordBytes are the per-task changelog, rounded to
	// 1% so the same generator's fills group.
	taskRecords, recordBytes float64
}

// minComposeTasks is how many task counts a series needs: a line through
// two points has no residual to measure its error by.
const minComposeTasks = 3

// compositionsOf finds the composition series among obs: cold restores of
// whole topics (not samples of partitions) grouped by composeKey, with at
// least minComposeTasks task counts, one of them 1 for a one-thread series.
func compositionsOf(obs []Obs) []*Composition {
	groups := map[composeKey][]Obs{}
	var order []composeKey
	for _, o := range obs {
		r := o.Restore
		if !r.IsCold() || r.RestoredPartitions != nil || r.Partitions <= 0 || r.Records <= 0 {
			continue
		}
		k := composeKey{host: o.Run.Results.Host.Hostname, engine: string(runs.EngineOf(r.Params)), threads: max(1, r.Params.Threads),
			settings:    strings.Join(withoutThreads(Differences(r.Params)), ","),
			taskRecords: round1pct(float64(r.Records) / float64(r.Partitions)), recordBytes: round1pct(float64(r.Bytes) / float64(r.Records))}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], o)
	}
	var out []*Composition
	for _, k := range order {
		if c := composition(k, groups[k]); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// withoutThreads drops the threads setting from a case's differences: a
// series' thread count is its own dimension.
func withoutThreads(diffs []string) []string {
	var out []string
	for _, d := range diffs {
		if !strings.HasPrefix(d, "threads=") {
			out = append(out, d)
		}
	}
	return out
}

// round1pct rounds x to two significant digits' worth of 1%.
func round1pct(x float64) float64 {
	if x <= 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(x))-1)
	return math.Round(x/e) * e
}

// composition fits one series, nil when it has too few task counts.
func composition(k composeKey, obs []Obs) *Composition {
	byTasks := map[int][]float64{}
	for _, o := range obs {
		byTasks[o.Restore.Partitions] = append(byTasks[o.Restore.Partitions], o.Seconds)
	}
	if len(byTasks) < minComposeTasks || (k.threads == 1 && byTasks[1] == nil) {
		return nil
	}
	c := &Composition{Engine: config.Engine(k.engine), Threads: k.threads, Host: k.host, CPUs: obs[0].Run.Results.Host.CPUs, Obs: obs}
	var xs, ys []float64
	for tasks, secs := range byTasks {
		c.Points = append(c.Points, ComposePoint{Tasks: tasks, Stat: compare.StatOf(secs)})
		for _, s := range secs {
			xs, ys = append(xs, float64(tasks)), append(ys, s)
		}
		c.MaxTasks = max(c.MaxTasks, tasks)
	}
	sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Tasks < c.Points[j].Tasks })
	c.Shared, c.PerTask = stat.LinearRegression(xs, ys, nil, false)
	if !(c.PerTask > 0) {
		return nil
	}
	c.ErrLo, c.ErrHi = math.Inf(1), math.Inf(-1)
	for i, x := range xs {
		e := (c.Shared+c.PerTask*x)/ys[i] - 1
		c.ErrLo, c.ErrHi = min(c.ErrLo, e), max(c.ErrHi, e)
	}
	return c
}

// CompositionFor is the series of engine and threads the instance answers
// compose with: the one whose host restored the sample when one did, else
// the first; and the one-thread series of the same host and engine, which
// prices a task's own part (nil when there is none).
func CompositionFor(cs []*Composition, engine config.Engine, threads int, host string) (c, one *Composition) {
	for _, x := range cs {
		if x.Engine != engine || x.Threads != threads {
			continue
		}
		if c == nil || (x.Host == host && c.Host != host) {
			c = x
		}
	}
	if c == nil {
		return nil, nil
	}
	for _, x := range cs {
		if x.Engine == engine && x.Threads == 1 && x.Host == c.Host {
			return c, x
		}
	}
	return c, nil
}
