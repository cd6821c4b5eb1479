package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/runs"
)

// Composition is how k tasks restore together on one instance, measured
// rather than assumed: a run of topics of 1, 2, 4, ... partitions at two
// or more per-task sizes (the compose profile), each restored cold by one
// instance with Threads stream threads, on one host and engine. For each
// task count the restores at the different sizes give a line, T(k, bytes)
// = Fixed(k) + PerByte(k) × bytes restored: what k tasks pay however large
// (their stores opened, the first fetches) and how fast their bytes go
// together (a fetch over many partitions carries more than one over one).
// An instance's tasks of the user's own sizes then take Fixed(k) +
// PerByte(k) / PerByte(1) × Σ (task − Fixed(1)), each task's own restore
// time less what a task alone pays however large, scaled from one task's
// rate to k tasks' (composeInstance).
type Composition struct {
	Engine  config.Engine
	Threads int
	// Host names the machine the series ran on, and CPUs its cores: a
	// composition holds for that kind of host.
	Host string
	CPUs int
	// RecordBytes is the key+value bytes of the series' records, two
	// significant digits: how tasks compose moves with it (a task of 500 B
	// records fetches far fewer records a megabyte than one of 80 B).
	RecordBytes float64
	// Fits are the lines by task count, in order.
	Fits []ComposeFit
	// MaxTasks is the most tasks measured together.
	MaxTasks int
	// Obs are the restores it rests on.
	Obs []Obs
}

// ComposeFit is one task count's line: Fixed seconds plus PerByte seconds
// a byte restored (key+value), least squares over its restores at every
// task size. Fixed may come out below zero where larger tasks cost more a
// byte (their stores flush and compact more): the line holds over the
// sizes measured, and composeInstance never answers less than the slowest
// task alone. ErrLo and ErrHi are the least and most of (line − measured)
// / measured over them, the line's own error; Sizes the per-task sizes it
// spans.
type ComposeFit struct {
	Tasks            int
	Fixed, PerByte   float64
	ErrLo, ErrHi     float64
	N                int
	MinSize, MaxSize float64
	// MaxRecords is the most records a task held among its restores.
	MaxRecords float64
}

// at is the fit's time for bytes restored.
func (f ComposeFit) at(bytes float64) float64 { return f.Fixed + f.PerByte*bytes }

// Label is e.g. "kafka-streams, 1 thread, on host-a (2 CPUs)".
func (c *Composition) Label() string {
	return fmt.Sprintf("%s, %s, on %s (%s)", c.Engine, Plural(c.Threads, "thread"), c.Host, Plural(c.CPUs, "CPU"))
}

// Summary is the series in a phrase: "1 task: 0.62 s + 8.9 s/GB; 16 tasks:
// 6.4 s + 7.4 s/GB (tasks of 32–128 MB; the lines' error -4% to +5%)".
func (c *Composition) Summary() string {
	first, last := c.Fits[0], c.Fits[len(c.Fits)-1]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range c.Fits {
		lo, hi = min(lo, f.ErrLo), max(hi, f.ErrHi)
	}
	line := func(f ComposeFit) string {
		return fmt.Sprintf("%s: %s + %.2f s/GB", Plural(f.Tasks, "task"), FormatSeconds(f.Fixed), f.PerByte*1e9)
	}
	return fmt.Sprintf("%s; %s (tasks of %s–%s of %s records, %s together; the lines' error %s to %s)", line(first), line(last),
		FormatBytes(first.MinSize), FormatBytes(first.MaxSize), FormatBytes(c.RecordBytes), taskCounts(c.Fits), EffectText(lo), EffectText(hi))
}

// taskCounts lists the counts measured: "1, 2, 4, 8 and 16 tasks".
func taskCounts(fs []ComposeFit) string {
	var s []string
	for _, f := range fs {
		s = append(s, fmt.Sprint(f.Tasks))
	}
	return listing.And(s) + " tasks"
}

// FitAt is the line for k tasks: measured at k, interpolated between the
// counts measured, the largest count's beyond it (composeInstance says
// so).
func (c *Composition) FitAt(k int) ComposeFit {
	i := sort.Search(len(c.Fits), func(i int) bool { return c.Fits[i].Tasks >= k })
	switch {
	case i == len(c.Fits):
		return c.Fits[i-1]
	case c.Fits[i].Tasks == k || i == 0:
		return c.Fits[i]
	}
	a, b := c.Fits[i-1], c.Fits[i]
	w := float64(k-a.Tasks) / float64(b.Tasks-a.Tasks)
	lerp := func(x, y float64) float64 { return x + w*(y-x) }
	return ComposeFit{Tasks: k, Fixed: lerp(a.Fixed, b.Fixed), PerByte: lerp(a.PerByte, b.PerByte), ErrLo: min(a.ErrLo, b.ErrLo),
		ErrHi: max(a.ErrHi, b.ErrHi), N: min(a.N, b.N), MinSize: max(a.MinSize, b.MinSize), MaxSize: min(a.MaxSize, b.MaxSize),
		MaxRecords: min(a.MaxRecords, b.MaxRecords)}
}

// composeKey groups the restores of one composition series: the same
// host, engine, settings and record size in topics of several partition
// counts and task sizes.
type composeKey struct {
	host, engine, settings string
	threads                int
	recordBytes            float64
}

// minComposeTasks is how many task counts a series needs, among them one
// task alone.
const minComposeTasks = 3

// compositionsOf finds the composition series among obs: cold restores of
// whole topics (not samples of partitions) grouped by composeKey, with at
// least minComposeTasks task counts each restored at two task sizes or
// more, one of them a single task.
func compositionsOf(obs []Obs) []*Composition {
	groups := map[composeKey][]Obs{}
	var order []composeKey
	for _, o := range obs {
		r := o.Restore
		if !r.IsCold() || r.RestoredPartitions != nil || r.Partitions <= 0 || r.Records <= 0 || o.ChangelogBytes <= 0 {
			continue
		}
		k := composeKey{host: o.Run.Results.Host.Hostname, engine: string(runs.EngineOf(r.Params)), threads: max(1, r.Params.Threads),
			settings: strings.Join(withoutThreads(Differences(r.Params)), ","), recordBytes: round1pct(float64(r.Bytes) / float64(r.Records))}
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

// round1pct rounds x to two significant digits.
func round1pct(x float64) float64 {
	if x <= 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(x))-1)
	return math.Round(x/e) * e
}

// composition fits one series: a line per task count restored at two task
// sizes or more (gonum's least squares). Nil without a single task's line
// or with fewer than minComposeTasks lines.
func composition(k composeKey, obs []Obs) *Composition {
	type point struct{ bytes, secs, task, records float64 }
	byTasks := map[int][]point{}
	for _, o := range obs {
		n := o.Restore.Partitions
		byTasks[n] = append(byTasks[n], point{o.ChangelogBytes, o.Seconds, o.ChangelogBytes / float64(n), float64(o.Restore.Records) / float64(n)})
	}
	c := &Composition{Engine: config.Engine(k.engine), Threads: k.threads, Host: k.host, CPUs: obs[0].Run.Results.Host.CPUs,
		RecordBytes: k.recordBytes, Obs: obs}
	for tasks, pts := range byTasks {
		var xs, ys []float64
		f := ComposeFit{Tasks: tasks, N: len(pts), MinSize: math.Inf(1), ErrLo: math.Inf(1), ErrHi: math.Inf(-1)}
		for _, p := range pts {
			xs, ys = append(xs, p.bytes), append(ys, p.secs)
			f.MinSize, f.MaxSize = min(f.MinSize, p.task), max(f.MaxSize, p.task)
			f.MaxRecords = max(f.MaxRecords, p.records)
		}
		if f.MaxSize < 1.5*f.MinSize {
			continue // one task size: what is fixed cannot be told from what is per byte
		}
		f.Fixed, f.PerByte = stat.LinearRegression(xs, ys, nil, false)
		if !(f.PerByte > 0) {
			continue
		}
		for _, p := range pts {
			e := f.at(p.bytes)/p.secs - 1
			f.ErrLo, f.ErrHi = min(f.ErrLo, e), max(f.ErrHi, e)
		}
		c.Fits = append(c.Fits, f)
		c.MaxTasks = max(c.MaxTasks, tasks)
	}
	sort.Slice(c.Fits, func(i, j int) bool { return c.Fits[i].Tasks < c.Fits[j].Tasks })
	if len(c.Fits) < minComposeTasks || c.Fits[0].Tasks != 1 {
		return nil
	}
	return c
}

// CompositionFor is the series of engine and threads the instance answers
// compose with, and the one-thread series whose single task prices a
// task's own part (c itself for one thread; nil when there is none).
// Of the series of engine and threads it takes, in this order, one whose
// host restored the sample (else any), one with a one-thread series of
// the same host and record size (the two priced together must be alike),
// and the one whose records are nearest the user's (recordBytes, 0 when
// unknown: the first). Without a like one-thread series, one is the
// one-thread series of c's host nearest c's records.
func CompositionFor(cs []*Composition, engine config.Engine, threads int, host string, recordBytes float64) (c, one *Composition) {
	single := func(x *Composition, exact bool) (found *Composition) {
		for _, y := range cs {
			if y.Engine != engine || y.Threads != 1 || y.Host != x.Host || exact && y.RecordBytes != x.RecordBytes {
				continue
			}
			if found == nil || recordsApart(y.RecordBytes, x.RecordBytes) < recordsApart(found.RecordBytes, x.RecordBytes) {
				found = y
			}
		}
		return found
	}
	better := func(x, than *Composition) bool {
		if (x.Host == host) != (than.Host == host) {
			return x.Host == host
		}
		if a, b := single(x, true) != nil, single(than, true) != nil; a != b {
			return a
		}
		return recordBytes > 0 && recordsApart(x.RecordBytes, recordBytes) < recordsApart(than.RecordBytes, recordBytes)
	}
	for _, x := range cs {
		if x.Engine == engine && x.Threads == threads && (c == nil || better(x, c)) {
			c = x
		}
	}
	if c == nil {
		return nil, nil
	}
	if one = single(c, true); one == nil {
		one = single(c, false)
	}
	return c, one
}

// recordsApart is how many times larger the larger of two record sizes
// is (1 for equal; +Inf when one is unknown).
func recordsApart(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return math.Inf(1)
	}
	return max(a/b, b/a)
}
