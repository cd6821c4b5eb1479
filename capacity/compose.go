package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Composition is how k tasks restore together on one instance, measured
// rather than assumed: a run of topics of 1, 2, 4, ... partitions of one
// per-task size (the compose profile), each restored cold by one instance
// with Threads stream threads, on one host and engine, against the same
// task restored alone on one thread (Single). What k tasks together take
// against k single restores is a saving per additional task, Saving(k) =
// (k × Single − T(k)) / (k − 1) seconds: the overlap of what tasks pay
// each (a store's opening, the first fetches) and, with more threads, the
// work done in parallel. An instance of k tasks of the user's own sizes
// then takes Σ task − (k − 1) × Saving(k).
type Composition struct {
	Engine  config.Engine
	Threads int
	// Host names the machine the series ran on, and CPUs its cores: a
	// composition holds for that kind of host.
	Host string
	CPUs int
	// Single is one task restored alone on one thread: its median and
	// range over the repeats.
	Single compare.Stat
	// Points are the restores by task count, in order; Savings the saving
	// per additional task at each count above 1 (Median from the medians,
	// Min and Max from the slowest and fastest restore of k tasks).
	Points  []ComposePoint
	Savings []ComposePoint
	// MaxTasks is the most tasks measured together.
	MaxTasks int
	// Obs are the restores it rests on.
	Obs []Obs
}

// ComposePoint is one task count's figure in a composition series.
type ComposePoint struct {
	Tasks int
	compare.Stat
}

// Label is e.g. "kafka-streams, 1 thread, on host-a (2 CPUs)".
func (c *Composition) Label() string {
	return fmt.Sprintf("%s, %s, on %s (%s)", c.Engine, Plural(c.Threads, "thread"), c.Host, Plural(c.CPUs, "CPU"))
}

// Summary is the series in a phrase: "one task 0.95 s; 16 tasks 11.2 s
// (10.7–11.9 s), a saving of 0.27 s (0.22–0.30 s) a task beyond the first".
func (c *Composition) Summary() string {
	last := c.Points[len(c.Points)-1]
	sv := c.SavingAt(last.Tasks)
	return fmt.Sprintf("one task alone %s; %d together %s (%s–%s), a saving of %s (%s–%s) a task beyond the first, "+
		"measured at %s", FormatSeconds(c.Single.Median), last.Tasks, FormatSeconds(last.Median), FormatSeconds(last.Min),
		FormatSeconds(last.Max), FormatSeconds(sv.Median), FormatSeconds(sv.Min), FormatSeconds(sv.Max), taskCounts(c.Points))
}

// taskCounts lists the counts measured: "1, 2, 4, 8 and 16 tasks".
func taskCounts(ps []ComposePoint) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprint(p.Tasks))
	}
	if len(s) == 1 {
		return s[0] + " tasks"
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1] + " tasks"
}

// SavingAt is the saving per additional task for k tasks: measured at k,
// interpolated between the counts measured, the largest count's beyond it
// (composeInstance says so), none for one task.
func (c *Composition) SavingAt(k int) compare.Stat {
	if k <= 1 || len(c.Savings) == 0 {
		return compare.Stat{}
	}
	i := sort.Search(len(c.Savings), func(i int) bool { return c.Savings[i].Tasks >= k })
	switch {
	case i == len(c.Savings):
		return c.Savings[i-1].Stat
	case c.Savings[i].Tasks == k || i == 0:
		return c.Savings[i].Stat
	}
	a, b := c.Savings[i-1], c.Savings[i]
	w := float64(k-a.Tasks) / float64(b.Tasks-a.Tasks)
	lerp := func(x, y float64) float64 { return x + w*(y-x) }
	return compare.Stat{N: min(a.N, b.N), Median: lerp(a.Median, b.Median), Min: lerp(a.Min, b.Min), Max: lerp(a.Max, b.Max)}
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

// minComposeTasks is how many task counts a series needs: one alone and
// two more, so the saving is seen to hold across counts.
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
		one := k
		one.threads = 1
		var single []float64
		for _, o := range groups[one] {
			if o.Restore.Partitions == 1 {
				single = append(single, o.Seconds)
			}
		}
		if c := composition(k, groups[k], single); c != nil {
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

// composition is one series against single, the one-thread restores of
// one task alone of the same key (nil when it has fewer than
// minComposeTasks counts, or no single).
func composition(k composeKey, obs []Obs, single []float64) *Composition {
	byTasks := map[int][]float64{}
	for _, o := range obs {
		byTasks[o.Restore.Partitions] = append(byTasks[o.Restore.Partitions], o.Seconds)
	}
	if len(byTasks) < minComposeTasks || len(single) == 0 {
		return nil
	}
	c := &Composition{Engine: config.Engine(k.engine), Threads: k.threads, Host: k.host, CPUs: obs[0].Run.Results.Host.CPUs, Obs: obs,
		Single: compare.StatOf(single)}
	for tasks, secs := range byTasks {
		st := compare.StatOf(secs)
		c.Points = append(c.Points, ComposePoint{Tasks: tasks, Stat: st})
		c.MaxTasks = max(c.MaxTasks, tasks)
		if tasks > 1 {
			n := float64(tasks)
			saving := func(t float64) float64 { return (n*c.Single.Median - t) / (n - 1) }
			c.Savings = append(c.Savings, ComposePoint{Tasks: tasks,
				Stat: compare.Stat{N: st.N, Median: saving(st.Median), Min: saving(st.Max), Max: saving(st.Min)}})
		}
	}
	sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Tasks < c.Points[j].Tasks })
	sort.Slice(c.Savings, func(i, j int) bool { return c.Savings[i].Tasks < c.Savings[j].Tasks })
	return c
}

// CompositionFor is the series of engine and threads the instance answers
// compose with: the one whose host restored the sample when one did, else
// the first (nil when there is none).
func CompositionFor(cs []*Composition, engine config.Engine, threads int, host string) *Composition {
	var c *Composition
	for _, x := range cs {
		if x.Engine != engine || x.Threads != threads {
			continue
		}
		if c == nil || (x.Host == host && c.Host != host) {
			c = x
		}
	}
	return c
}
