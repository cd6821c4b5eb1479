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
	// StoreMemory are those restores' figures a store, in MemoryObs'
	// order, apart: what grows with a store's size (its index and filter
	// blocks) from what RocksDB's options cap (memtables, the block cache).
	StoreMemory []storeMemory
}

// storeMemory is one restore's RocksDB memory a store, by part, with the
// live bytes a store held and the caps its options set.
type storeMemory struct {
	memtables, cache, tableReaders float64
	// liveBytes is the restore's live state over its stores.
	liveBytes float64
	// memtablesCap is write_buffer_size × max_write_buffer_number, and
	// cacheCap the block cache's capacity: what a larger store's memtables
	// and cache reach at most.
	memtablesCap, cacheCap float64
}

// total is the store's memory as measured.
func (m storeMemory) total() float64 { return m.memtables + m.cache + m.tableReaders }

// at is the memory a store of live bytes would take: as measured for a
// store no larger than the measured one (an upper bound), and for a larger
// one memtables and cache at their caps (they fill up to them) and the
// index and filter blocks grown in proportion to the live bytes (they
// cover every key and data block: RocksDB's table readers of a 7 GB
// store are not a 32 MB store's).
func (m storeMemory) at(live float64) float64 {
	if live <= m.liveBytes || m.liveBytes <= 0 {
		return m.total()
	}
	return max(m.memtables, m.memtablesCap) + max(m.cache, m.cacheCap) + m.tableReaders*(live/m.liveBytes)
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
		if r.Phase != nil && r.Phase.DiskBytes > 0 && r.Ready() != nil && o.LiveBytes > 0 && o.ChangelogBytes > 0 {
			disk = append(disk, float64(r.Phase.DiskBytes)/o.LiveBytes)
			live = append(live, o.LiveBytes/o.ChangelogBytes)
			f.DiskObs = append(f.DiskObs, o)
		}
		if ks := r.KafkaStreams; ks != nil && ks.RocksDBMemory != nil && ks.RocksDBMemory.Peak.Stores > 0 {
			p := ks.RocksDBMemory.Peak
			// A restore of sampled partitions opens a store for every
			// partition of its copy topic, and only the sampled ones hold
			// records: the memory is theirs, the empty stores' a few KB.
			n := float64(p.Stores)
			if k := len(r.RestoredPartitions); k > 0 && k < p.Stores {
				n = float64(k)
			}
			m := storeMemory{memtables: float64(p.MemTablesBytes) / n, cache: float64(p.BlockCacheUsageBytes) / n,
				tableReaders: float64(p.TableReadersBytes) / n, liveBytes: o.LiveBytes / n,
				memtablesCap: float64(r.Params.RocksDB.WriteBufferSize) * float64(r.Params.RocksDB.MaxWriteBufferNumber),
				cacheCap:     max(float64(p.BlockCacheCapacityBytes)/n, float64(r.Params.RocksDB.BlockCacheSize))}
			mem = append(mem, m.total())
			f.MemoryObs = append(f.MemoryObs, o)
			f.StoreMemory = append(f.StoreMemory, m)
		}
	}
	f.Disk, f.LiveShare, f.Memory = compare.StatOf(disk), compare.StatOf(live), compare.StatOf(mem)
	return f
}

// The disk and memory a deployment's instances need, beside the time.
func init() {
	registerAnswerer(answerer{order: 35, answer: footprintAnswers, scenarios: []config.Scenario{config.ScenarioCold}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 210, IDs: []string{"disk_per_instance"}, Unit: UnitBytes,
		Meaning: "the disk an instance's store copies take"})
	declareAnswerID(AnswerID{Row: 220, IDs: []string{"rocksdb_memory_per_instance"}, Unit: UnitBytes,
		Meaning: "the RocksDB off-heap memory an instance's store copies hold"})
	declareAnswerID(AnswerID{Row: 230, IDs: []string{"jvm_heap_per_instance"}, Unit: UnitBytes,
		Meaning: "`--heap`: the JVM heap a `restorebench heap` search found an instance needed (its estimate: the smallest heap that verified, its low end the largest that ran out of memory); its `text` says an inconclusive search"})
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
	case d.Changelog != nil && d.Changelog.LiveBytes > 0 && len(d.Changelog.ReadPartitions) > 0 && a.Options.Sample != nil:
		// The read covered the sampled partitions alone: their live state
		// speaks for the topic in proportion to their size.
		share := a.Options.Sample.Share()
		l := d.Changelog.LiveBytes / share
		return l, l, l, fmt.Sprintf("live state %s (the read of topic %s's sampled partitions, %s, scaled by their %.0f%% of its %s)",
			FormatBytes(l), d.Changelog.Topic, FormatBytes(d.Changelog.LiveBytes), 100*share, a.Options.Sample.SizeSource)
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
		Figure: figureOf(e, UnitBytes)}, ""
}

// memoryAnswer is the RocksDB memory an instance's store copies hold, each
// store at the deployment's own task size where that is known (its live
// state over its partitions): a larger store than those measured has its
// memtables and block cache at their caps and its index and filter blocks
// grown with its size, and the answer says how far beyond the measured
// stores that lies.
func memoryAnswer(a *Analysis, f Footprint, copies int, copiesText string) Answer {
	n := float64(copies)
	perStore, sizeText := f.Memory, "at the measured stores' size (the deployment's live state is not known: give --live-state or --from-topic)"
	beyond := 1.0
	if live, _, _, source := a.liveState(f); live > 0 && len(f.StoreMemory) > 0 {
		task := live / float64(a.Options.Deployment.Partitions)
		var at []float64
		at, beyond = storeMemoryAt(f.StoreMemory, task)
		perStore = compare.StatOf(at)
		sizeText = fmt.Sprintf("at your task's size, %s of live state a store (%s)", FormatBytes(task), source)
		if beyond > 1.05 {
			sizeText += fmt.Sprintf("; %.1f× the largest store measured: memtables and block cache at their caps "+
				"(write_buffer_size × max_write_buffer_number, block_cache_size), index and filter blocks grown in proportion", beyond)
		}
	}
	e := Estimate{Value: n * perStore.Median, Lo: n * perStore.Min, Hi: n * perStore.Max, Beyond: beyond, Extrapolated: beyond > 1.05}
	inputs := []string{copiesText,
		fmt.Sprintf("%s a store (%s–%s over %s) %s: Kafka Streams' own metrics at their peak during the restore, memtables + "+
			"block-cache usage + index and filter blocks, each at its own peak (so an upper bound); "+
			"RocksDBConfigSetter settings other than the measured ones change it",
			FormatBytes(perStore.Median), FormatBytes(perStore.Min), FormatBytes(perStore.Max), Plural(perStore.N, "restore"), sizeText),
		fmt.Sprintf("interval %s–%s", FormatBytes(e.Lo), FormatBytes(e.Hi)),
		"off-heap: the JVM heap (-Xmx) comes on top (restorebench heap finds it; plan --heap takes its answer)"}
	if e.Wide() {
		inputs = append(inputs, fmt.Sprintf("INCONCLUSIVE: %.0f× beyond the stores measured, where nothing measured bounds the index "+
			"and filter blocks' growth; restore a partition of your own at its full size (plan --from-topic --measure)", beyond))
	}
	value := SizeValue(e)
	if limit := a.Options.Deployment.MemoryBytes; limit > 0 {
		value += " " + memoryFitText(e, limit)
	}
	return Answer{ID: "rocksdb_memory_per_instance", Extrapolated: e.Extrapolated, Question: "RocksDB memory per instance (its stores, off-heap)",
		Value: value, Inputs: inputs, Sources: RunLabels(f.MemoryObs), Figure: figureOf(e, UnitBytes)}
}

// storeMemoryAt is the memory a store of task live bytes takes by each
// measured store that can speak for it: the stores at least that large,
// as measured (an upper bound); else the largest ones measured (within
// half the largest's size), each grown to the task's size. beyond is the
// task over the largest store measured (1 when some store was as large).
func storeMemoryAt(ms []storeMemory, task float64) (at []float64, beyond float64) {
	var largest float64
	for _, m := range ms {
		largest = max(largest, m.liveBytes)
		if m.liveBytes >= task {
			at = append(at, m.total())
		}
	}
	if len(at) > 0 || largest <= 0 {
		return at, 1
	}
	for _, m := range ms {
		if m.liveBytes >= largest/2 {
			at = append(at, m.at(task))
		}
	}
	return at, task / largest
}

// memoryFitText is fitText against --memory, inconclusive when the
// estimate lies past WideExtrapolation.
func memoryFitText(e Estimate, limit float64) string {
	if e.Wide() {
		return fmt.Sprintf("(INCONCLUSIVE against the %s of --memory: %.0f× beyond the stores measured)", FormatBytes(limit), e.Beyond)
	}
	return fitText(e, limit, "--memory")
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
	a.Figure = figureOf(e, UnitBytes)
	a.Value = "at least " + mib(h.SmallestVerifiedBytes) + " (verified)"
	if h.LargestOutOfMemoryBytes > 0 {
		a.Value += "; " + mib(h.LargestOutOfMemoryBytes) + " ran out of memory"
	} else {
		a.Value += "; nothing smaller was tried"
	}
	return a
}
