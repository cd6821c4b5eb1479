package capacity

import (
	"fmt"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/heapsearch"
)

// Footprint is what one restored store takes, as the inputs measured it:
// its directory on disk per byte of live state (key+value bytes of its
// current records) and, on the kafka-streams engine, its RocksDB memory.
// Both are medians with the least and most measured (compare.Stat).
type Footprint struct {
	// Disk is the stores' directories' bytes over their live bytes, from
	// the cold restores that recorded both after a ready phase
	// (runs.Restore.DiskBytes, after its flush and compactions). DiskObs
	// are those restores.
	Disk    compare.Stat
	DiskObs []Obs
	// LiveShare is the live bytes over the changelog bytes of those
	// restores: how their changelogs compacted, used when the deployment
	// gives a changelog size only.
	LiveShare compare.Stat
	// Memory is RocksDB's memory a store, from Kafka Streams' own store
	// metrics (runs.RocksDBMemory.Peak: memtables, block-cache usage and
	// index and filter blocks, each at its own peak, over the stores open).
	// MemoryObs are the kafka-streams restores that recorded it.
	Memory    compare.Stat
	MemoryObs []Obs
}

// footprintOf measures the footprint of kind's stores from the verified
// cold restores: RocksDB stores only (an in-memory store takes no disk).
func footprintOf(obs []Obs, kind config.StoreKind) Footprint {
	var f Footprint
	var disk, live, mem []float64
	for _, o := range obs {
		r := o.Restore
		if r.Params.Scenario != config.ScenarioCold || r.Params.StoreKind.Of() != kind.Of() || r.Params.Store == config.StoreMemory {
			continue
		}
		// DiskBytes is the stores' size after the ready phase's flush; a
		// restore without one measured it with records still in memtables.
		if r.DiskBytes > 0 && r.Ready != nil && o.LiveBytes > 0 && o.ChangelogBytes > 0 {
			disk = append(disk, float64(r.DiskBytes)/o.LiveBytes)
			live = append(live, o.LiveBytes/o.ChangelogBytes)
			f.DiskObs = append(f.DiskObs, o)
		}
		if ks := r.KafkaStreams; ks != nil && ks.RocksDBMemory != nil && ks.RocksDBMemory.Peak.Stores > 0 {
			p := ks.RocksDBMemory.Peak
			mem = append(mem, float64(p.MemTablesBytes+p.BlockCacheUsageBytes+p.TableReadersBytes)/float64(p.Stores))
			f.MemoryObs = append(f.MemoryObs, o)
		}
	}
	f.Disk, f.LiveShare, f.Memory = compare.StatOf(disk), compare.StatOf(live), compare.StatOf(mem)
	return f
}

// The disk and memory a deployment's instances need, beside the time.
func init() {
	registerAnswerer(answerer{order: 35, answer: footprintAnswers, scenarios: []config.Scenario{config.ScenarioCold}})
}

// footprintAnswers answers, for a deployment with partitions and
// instances, the disk and the RocksDB memory each instance's stores take:
// its active tasks and standby copies, from the measured footprint of the
// rate's store kind, and whether that fits --disk and --memory.
func footprintAnswers(a *Analysis) ([]Answer, []Unanswered) {
	d := a.Options.Deployment
	if d.Partitions <= 0 || d.Instances <= 0 {
		return nil, nil
	}
	kind := config.StoreKind("")
	if a.Rate != nil {
		kind = a.Rate.Setup.Params.StoreKind
	}
	f := footprintOf(a.Obs, kind)
	copies := ceilDiv(d.Partitions*(1+d.Standbys), d.Instances)
	copiesText := fmt.Sprintf("%d store copies an instance at most: %d partitions × (1 active + %d standby) over %s",
		copies, d.Partitions, d.Standbys, Plural(d.Instances, "instance"))
	var out []Answer
	var missing []Unanswered
	// Without the figures, the answer is missing only when a limit asked
	// for it: a plan of restore times alone does not fail for want of them.
	if ans, why := diskAnswer(a, f, copies, copiesText); why == "" {
		out = append(out, ans)
	} else if d.DiskBytes > 0 {
		missing = append(missing, Unanswered{Question: "Disk per instance (--disk)", Reason: why})
	}
	if d.Heap != nil {
		out = append(out, heapAnswer(d.Heap))
	}
	if f.Memory.N > 0 {
		out = append(out, memoryAnswer(a, f, copies, copiesText))
	} else if d.MemoryBytes > 0 {
		missing = append(missing, Unanswered{Question: "RocksDB memory per instance (--memory)", Reason: "no kafka-streams cold restore " +
			"in the inputs recorded Kafka Streams' RocksDB memory metrics (runs of the kafka-streams engine record them)"})
	}
	return out, missing
}

// liveState is the deployment's live state and where it comes from: the
// flag, the read of its topic, or its changelog times the live share the
// inputs' changelogs compacted to (then the least and most of that share).
func (a *Analysis) liveState(f Footprint) (live, lo, hi float64, source string) {
	d := a.Options.Deployment
	switch {
	case d.LiveBytes > 0:
		return d.LiveBytes, d.LiveBytes, d.LiveBytes, "live state " + FormatBytes(d.LiveBytes) + " (--live-state)"
	case d.Changelog != nil && d.Changelog.LiveBytes > 0:
		l := d.Changelog.LiveBytes
		return l, l, l, fmt.Sprintf("live state %s (the read of topic %s)", FormatBytes(l), d.Changelog.Topic)
	}
	state := a.ChangelogBytes()
	if state <= 0 || f.LiveShare.N == 0 {
		return 0, 0, 0, ""
	}
	return state * f.LiveShare.Median, state * f.LiveShare.Min, state * f.LiveShare.Max,
		fmt.Sprintf("live state %s ASSUMED: your changelog %s times the live share the measured changelogs compacted to, "+
			"%.0f%% (%.0f%%–%.0f%%); give --live-state or --from-topic for yours", FormatBytes(state*f.LiveShare.Median),
			FormatBytes(state), 100*f.LiveShare.Median, 100*f.LiveShare.Min, 100*f.LiveShare.Max)
}

// diskAnswer is the disk an instance's store copies take, or why it
// cannot be answered.
func diskAnswer(a *Analysis, f Footprint, copies int, copiesText string) (Answer, string) {
	if f.Disk.N == 0 {
		return Answer{}, "no cold restore of a RocksDB store in the inputs recorded its size on disk and live state"
	}
	live, liveLo, liveHi, source := a.liveState(f)
	if live <= 0 {
		return Answer{}, "the deployment's state is not known: give --state, --live-state or --from-topic"
	}
	p := float64(a.Options.Deployment.Partitions)
	per := float64(copies) / p
	e := Estimate{Value: per * live * f.Disk.Median, Lo: per * liveLo * f.Disk.Min, Hi: per * liveHi * f.Disk.Max, Beyond: 1}
	inputs := []string{copiesText, source,
		fmt.Sprintf("%.2f bytes on disk a byte of live state (%.2f–%.2f over %s: the stores' directories after the restore's flush and compactions)",
			f.Disk.Median, f.Disk.Min, f.Disk.Max, Plural(f.Disk.N, "restore")),
		fmt.Sprintf("interval %s–%s", FormatBytes(e.Lo), FormatBytes(e.Hi)),
		fmt.Sprintf("a scale-out adds up to max.warmup.replicas (default 2) warming copies of %s each across the new instances", FormatBytes(live/p*f.Disk.Median))}
	value := SizeValue(e)
	if limit := a.Options.Deployment.DiskBytes; limit > 0 {
		value += " " + fitText(e, limit, "--disk")
	}
	return Answer{ID: "disk_per_instance", Question: "Disk per instance (its stores)", Value: value, Inputs: inputs, Sources: RunLabels(f.DiskObs),
		Estimate: &e, EstimateUnit: UnitBytes}, ""
}

// memoryAnswer is the RocksDB memory an instance's store copies hold.
func memoryAnswer(a *Analysis, f Footprint, copies int, copiesText string) Answer {
	n := float64(copies)
	e := Estimate{Value: n * f.Memory.Median, Lo: n * f.Memory.Min, Hi: n * f.Memory.Max, Beyond: 1}
	inputs := []string{copiesText,
		fmt.Sprintf("%s a store (%s–%s over %s): Kafka Streams' own metrics at their peak during the restore, memtables + "+
			"block-cache usage + index and filter blocks, each at its own peak (so an upper bound); "+
			"RocksDBConfigSetter settings other than the measured ones change it",
			FormatBytes(f.Memory.Median), FormatBytes(f.Memory.Min), FormatBytes(f.Memory.Max), Plural(f.Memory.N, "restore")),
		fmt.Sprintf("interval %s–%s", FormatBytes(e.Lo), FormatBytes(e.Hi)),
		"off-heap: the JVM heap (-Xmx) comes on top (restorebench heap finds it; plan --heap takes its answer)"}
	value := SizeValue(e)
	if limit := a.Options.Deployment.MemoryBytes; limit > 0 {
		value += " " + fitText(e, limit, "--memory")
	}
	return Answer{ID: "rocksdb_memory_per_instance", Question: "RocksDB memory per instance (its stores, off-heap)", Value: value, Inputs: inputs,
		Sources: RunLabels(f.MemoryObs), Estimate: &e, EstimateUnit: UnitBytes}
}

// fitText says whether an estimate fits a per-instance limit: "(fits the
// 100 GB of --disk by at least 20 GB)", "(does NOT fit …)" or
// "(INCONCLUSIVE against …: the interval straddles it)".
func fitText(e Estimate, limit float64, flag string) string {
	switch {
	case e.Hi <= limit:
		return fmt.Sprintf("(fits the %s of %s by at least %s)", FormatBytes(limit), flag, FormatBytes(limit-e.Hi))
	case e.Lo > limit:
		return fmt.Sprintf("(does NOT fit the %s of %s: at least %s over)", FormatBytes(limit), flag, FormatBytes(e.Lo-limit))
	}
	return fmt.Sprintf("(INCONCLUSIVE against the %s of %s: the interval %s–%s straddles it)", FormatBytes(limit), flag,
		FormatBytes(e.Lo), FormatBytes(e.Hi))
}

// heapAnswer is the JVM heap (-Xmx) an instance needed in a heap search
// (restorebench heap, given as --heap): the smallest that verified, above
// the largest that ran out of memory; inconclusive as the search was.
func heapAnswer(h *heapsearch.Result) Answer {
	mib := func(b int64) string { return fmt.Sprintf("%d MiB", b/heapsearch.MiB) }
	inputs := []string{fmt.Sprintf("restorebench heap: case %s of profile %s, %s", h.Case, h.Profile, h.Records),
		fmt.Sprintf("%d steps between %s and %s, to %s", len(h.Steps), mib(h.Config.LowBytes), mib(h.Config.HighBytes), mib(h.Config.ResolutionBytes)),
		"measured for that case's tasks on one instance and its records only: more tasks an instance, larger records or a " +
			"higher max.poll.records need more; give the answer a margin (a heap near it may pass once and fail another time)"}
	a := Answer{ID: "jvm_heap_per_instance", Question: "JVM heap per instance (-Xmx: its restore and a standby under a write load)",
		Inputs: inputs, Sources: "heap search " + h.Profile + "/" + h.Case}
	if h.Inconclusive || h.SmallestVerifiedBytes == 0 {
		a.Value = h.Answer
		return a
	}
	lo := float64(h.LargestOutOfMemoryBytes)
	e := Estimate{Value: float64(h.SmallestVerifiedBytes), Lo: lo, Hi: float64(h.SmallestVerifiedBytes), Beyond: 1}
	a.Estimate, a.EstimateUnit = &e, UnitBytes
	a.Value = "at least " + mib(h.SmallestVerifiedBytes) + " (verified)"
	if h.LargestOutOfMemoryBytes > 0 {
		a.Value += "; " + mib(h.LargestOutOfMemoryBytes) + " ran out of memory"
	} else {
		a.Value += "; nothing smaller was tried"
	}
	return a
}
