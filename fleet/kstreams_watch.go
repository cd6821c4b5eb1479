package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// restoreWatch is what watching an instance's restore collected.
type restoreWatch struct {
	Restores ksdriver.Restores
	// runningNs is the instance's monotonic time when it was RUNNING with
	// every restore ended.
	runningNs int64
	// cpu0 and cpu1 are the JVM's CPU time (/proc) when the Go side saw the
	// first restore_start and the end of the last restore.
	cpu0, cpu1 time.Duration
	// peakRSS is the JVM's VmHWM once restored; maxRSS the largest RSS its
	// process events reported (the fallback without /proc).
	peakRSS, maxRSS int64
	// split is the JVM's CPU by thread kind around the restore, if known.
	split *runs.CPUSplit
	// rocks is what the instance's RocksDB stores held over the restore.
	rocks *runs.RocksDBMemory
}

// AwaitRestored reads the instance's events until every partition that
// owes records has ended its restore and the client is RUNNING, showing
// progress from restore_batch events. It fails when the instance reports an
// error or exits, when the client reaches ERROR, and when neither a state
// change nor restore progress arrives for the stall timeout.
func AwaitRestored(ctx context.Context, env *Env, inst KSInstance, topic string, owed map[int32]int64, bar progress.Task) (*restoreWatch, error) {
	stall := env.StallTimeout
	if stall <= 0 {
		stall = engine.DefaultStallTimeout
	}
	w := &restoreWatch{}
	var state string
	var processes []*ksdriver.Process
	lastProgress := time.Now()
	for i := 0; ; i++ {
		e, err := nextBefore(ctx, inst, i, lastProgress.Add(stall))
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				_, pending := w.Restores.EndedAll(topic, owed)
				return nil, fmt.Errorf("kafka-streams instance %s made no progress for %s (state %s; restores pending on "+
					"partitions %s)", inst.ID(), stall, OrNone(state), OrNone(pending))
			}
			return nil, err
		}
		switch e := e.(type) {
		case *ksdriver.StateChange:
			state, lastProgress = e.To, time.Now()
			if e.To == ksdriver.StateError {
				return nil, fmt.Errorf("the restore failed (state ERROR): %w", waitExit(ctx, inst))
			}
		case *ksdriver.Error:
			return nil, fmt.Errorf("the restore failed: %w", waitExit(ctx, inst))
		case *ksdriver.Process:
			processes = append(processes, e)
			w.maxRSS = max(w.maxRSS, e.RSSBytes)
		case *ksdriver.RestoreStart:
			if w.cpu0 == 0 && inst.PID() > 0 {
				w.cpu0, _ = ksdriver.ProcCPU(inst.PID())
			}
		}
		if w.Restores.Add(e) {
			lastProgress = time.Now()
			bar.Set(w.Restores.Records())
			if env.OnProgress != nil {
				env.OnProgress(w.Restores.Records())
			}
		}
		if !completes(e) {
			continue
		}
		if done, _ := w.Restores.EndedAll(topic, owed); done && state == ksdriver.StateRunning {
			w.Finish(ctx, inst, e.Head().MonoNs, i, processes)
			return w, nil
		}
	}
}

// completes reports whether e can complete a restore: a restore's end or
// a state change.
func completes(e ksdriver.Event) bool {
	switch e.(type) {
	case *ksdriver.RestoreEnd, *ksdriver.RestoreSuspended, *ksdriver.StateChange:
		return true
	}
	return false
}

// Finish samples the JVM once restored and closes the CPU split with the
// first process event after the last restore ended.
func (w *restoreWatch) Finish(ctx context.Context, inst KSInstance, nowNs int64, seen int, processes []*ksdriver.Process) {
	w.runningNs = nowNs
	if inst.PID() > 0 { // on an agent, the process events' figures stand in
		w.cpu1, _ = ksdriver.ProcCPU(inst.PID())
		_, w.peakRSS, _ = ksdriver.ProcMemory(inst.PID())
	}
	first, last, ok := w.Restores.Span()
	if !ok {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, ksProcessWait)
	defer cancel()
	if e, _, err := inst.WaitFor(wctx, seen+1, func(e ksdriver.Event) bool {
		p, ok := e.(*ksdriver.Process)
		return ok && p.MonoNs >= last
	}); err == nil {
		processes = append(processes, e.(*ksdriver.Process))
	}
	w.split = CPUSplit(processes, first, last)
	w.rocks = RocksMemory(processes, first, last)
}

// RocksMemory is the RocksDB memory of the process events from the
// restore's start (startNs) to the first at or after its end (endNs).
func RocksMemory(ps []*ksdriver.Process, startNs, endNs int64) *runs.RocksDBMemory {
	var samples []ksdriver.RocksMemory
	for _, p := range ps {
		if p.MonoNs < startNs || p.RocksDB == nil {
			continue
		}
		samples = append(samples, *p.RocksDB)
		if p.MonoNs >= endNs {
			break
		}
	}
	return runs.NewRocksDBMemory(samples)
}

// Record fills in the restore's phase (its time, the JVM's CPU and peak
// RSS) and what only Kafka Streams measures.
func (w *restoreWatch) Record(rec *runs.Restore, inst KSInstance) {
	ks := rec.KafkaStreams
	ks.RestoreBatches = w.Restores.Batches()
	ks.CPUSplit = w.split
	ks.RocksDBMemory = w.rocks
	launch := inst.LaunchMonoNs()
	ks.RunningSeconds = Seconds(w.runningNs - launch)
	p := &runs.RestorePhase{}
	if first, last, ok := w.Restores.Span(); ok {
		ks.StartSeconds = Seconds(first - launch)
		p.Seconds = Seconds(last - first)
	}
	// No ready phase is measured on Kafka Streams: ready when restored.
	p.TotalSeconds = p.Seconds
	rec.Records = w.Restores.Restored()
	p.CPUSeconds = (w.cpu1 - w.cpu0).Seconds()
	if s := w.split; p.CPUSeconds == 0 && s != nil {
		// No /proc reading (an instance on an agent): the JVM's own CPU
		// by thread kind over the same span, from its process events.
		p.CPUSeconds = s.Stream + s.JIT + s.GC + s.Other
	}
	p.PeakRSSBytes = w.peakRSS
	if p.PeakRSSBytes == 0 {
		p.PeakRSSBytes = w.maxRSS
	}
	rec.Phase = p
}

func Seconds(ns int64) float64 { return float64(max(ns, 0)) / 1e9 }

// CPUSplit is the CPU by thread kind between the last process event at or
// before startNs and the first at or after endNs; nil without both.
func CPUSplit(ps []*ksdriver.Process, startNs, endNs int64) *runs.CPUSplit {
	var before, after *ksdriver.Process
	for _, p := range ps {
		if p.MonoNs <= startNs {
			before = p
		}
		if p.MonoNs >= endNs && after == nil {
			after = p
		}
	}
	if before == nil || after == nil {
		return nil
	}
	d := func(a, b int64) float64 { return float64(b-a) / 1e9 }
	bs, as := before.CPUSplitNs, after.CPUSplitNs
	return &runs.CPUSplit{Stream: d(bs.Stream, as.Stream), JIT: d(bs.JIT, as.JIT), GC: d(bs.GC, as.GC), Other: d(bs.Other, as.Other)}
}

// nextBefore is event i, waiting until deadline at most.
func nextBefore(ctx context.Context, inst KSInstance, i int, deadline time.Time) (ksdriver.Event, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return inst.Next(dctx, i)
}

// ending is an instance process that can end: a *ksdriver.Instance, or a
// fleet's Process.
type ending interface {
	Done() <-chan struct{}
	Kill()
	Next(ctx context.Context, i int) (ksdriver.Event, error)
}

// waitExit gives an instance that reported a failure a moment to exit, so
// the error can quote how it ended and its log; then kills it.
func waitExit(ctx context.Context, inst ending) error {
	select {
	case <-inst.Done():
	case <-time.After(5 * time.Second):
	case <-ctx.Done():
	}
	inst.Kill()
	_, err := inst.Next(ctx, 1<<30)
	return err
}

func OrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// EnsureInputTopic makes sure the kv topology's input topic exists with the
// changelog's partition count (Kafka Streams requires co-partitioning of a
// task's source and changelog) and returns its name. It first claims the
// application (claimKV): a group holding offsets that are not
// restorebench's, or an input topic restorebench did not create, is
// refused before anything is created or started. A topic it creates is
// recorded as restorebench's (env.Owned).
func EnsureInputTopic(ctx context.Context, env *Env, t Target, partitions int32) (string, error) {
	name := InputTopic(t.AppID, t.StoreName)
	adm, done, err := env.AdminClient()
	if err != nil {
		return "", err
	}
	defer done()
	if !env.Owned.Everything() {
		if err := claimKV(ctx, env, adm, t); err != nil {
			return "", err
		}
	}
	td, err := adm.ListTopics(ctx, name)
	if err != nil {
		return "", fmt.Errorf("input topic %s: %w", name, err)
	}
	if d, ok := td[name]; ok && d.Err == nil {
		if n := int32(len(d.Partitions)); n != partitions {
			return "", fmt.Errorf("input topic %s has %d partitions, the changelog %s has %d: delete it and restorebench will recreate it", name, n, t.Topic, partitions)
		}
		return name, nil
	}
	// Created and awaited on the same client: an admin client trusts its
	// cached metadata only briefly (cluster.NewAdmin), so the topic it
	// just found missing is listed once created.
	err = createInputTopic(ctx, env, adm, t, name, partitions)
	if err != nil {
		return "", fmt.Errorf("create input topic %s: %w", name, err)
	}
	env.Logf("restore: created %s, the Kafka Streams topology's (empty) input topic; it is left in place for later restores", name)
	return name, nil
}

// createInputTopic creates the kv topology's input topic name on adm,
// awaits it and records it as restorebench's; one created meanwhile by an
// earlier restore is awaited, one created by someone else refused.
func createInputTopic(ctx context.Context, env *Env, adm *kadm.Client, t Target, name string, partitions int32) error {
	resp, err := adm.CreateTopic(ctx, partitions, -1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		// Listed as missing a moment ago: created since, by an
		// earlier restore whose creation the broker had not yet
		// spread, or by someone else.
		ours, oerr := env.Owned.Owns(ctx, adm, name)
		if oerr != nil || !ours {
			return errors.Join(fmt.Errorf("%w: created by someone else since restorebench looked, so restorebench leaves it alone", err), oerr)
		}
		return cluster.AwaitTopic(ctx, adm, name, partitions)
	}
	if err == nil {
		err = cluster.AwaitTopic(ctx, adm, name, partitions)
	}
	if err == nil {
		err = env.Owned.Record(ctx, adm, name, "the kv topology's input topic of application "+t.AppID)
	}
	return err
}

// changelogCounts caches the key+value bytes between a topic's offsets, by
// brokers, topic and offsets: counted once per process.
var changelogCounts sync.Map

// ChangelogBytes is the key+value bytes of the changelog's records between
// the offsets a cold restore reads, which the Kafka Streams instance does
// not report. It reads the log once (discarding the records, as the model's
// fetch-only limit does) and caches the count for the same topic and
// offsets: for a fill restorebench made it equals the fill's bytes, and
// whatever compaction removed is not counted, as it is not restored.
func ChangelogBytes(ctx context.Context, env *Env, offsets cluster.TopicOffsets) (int64, error) {
	key := offsetsKey(env.Cluster.Brokers, offsets)
	if n, ok := changelogCounts.Load(key); ok {
		return n.(int64), nil
	}
	c := config.DefaultCase()
	in := &engine.Instance{Cluster: env.Cluster, StateDir: "", AppID: "restorebench-count", Case: c, StallTimeout: env.StallTimeout}
	lim, err := in.FetchOnly(ctx, offsets)
	if err != nil {
		return 0, err
	}
	changelogCounts.Store(key, lim.Bytes)
	return lim.Bytes, nil
}

func offsetsKey(brokers []string, o cluster.TopicOffsets) string {
	parts := o.Partitions()
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s", strings.Join(brokers, ","), o.Topic)
	for _, p := range parts {
		fmt.Fprintf(&b, "|%d:%d-%d", p, o.Start[p], o.End[p])
	}
	return b.String()
}

// RestoredRange is the part of the changelog the instance restored: each
// partition from the offset its restore started at (restore_start) to the
// end; a partition it did not restore is empty.
func RestoredRange(offsets cluster.TopicOffsets, r *ksdriver.Restores) cluster.TopicOffsets {
	out := cluster.TopicOffsets{Topic: offsets.Topic, Start: map[int32]int64{}, End: map[int32]int64{}}
	for p, end := range offsets.End {
		out.Start[p], out.End[p] = end, end
		if pr, ok := r.Of(offsets.Topic, p); ok {
			out.Start[p] = pr.StartOffset
		}
	}
	return out
}
