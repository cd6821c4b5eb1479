package scenario

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// ColdKafkaStreams is a cold restore on the kafka-streams engine: one real
// Kafka Streams instance (a JVM running the driver in kstreams/) with an
// empty state directory and application.id = the target's joins its group,
// is assigned every task and restores them. restorebench waits until every
// partition's restore ended and the client is RUNNING, then has the
// instance digest its stores (interactive queries, the Go verifier's
// algorithm), stops it, and verifies the digest as ColdModel verifies its
// stores; a topic restorebench did not fill is counted (records, live keys,
// live bytes) and reported as not verified, as on the model engine.
//
// The topic named after the store, <application.id>-<store>-changelog, is
// restored by the kv topology, whose store's changelog it is. The kv
// topology needs an input topic, <application.id>-<store>-input, with as
// many partitions as the changelog: it is created if missing and left in
// place (it stays empty, so the changelog never changes, and the next
// repeat or run reuses it instead of racing Kafka Streams' metadata
// refresh). That holds only for restorebench's own input topic and group:
// an input topic restorebench did not create, or a group <application.id>
// holding offsets that are not restorebench's (a user's application, whose
// pending records the instance would process into the changelog), is
// refused before anything starts (owned.go). Any other topic is restored by the table topology, a KTable
// over the topic with source-topic reuse, after committing the group's
// offsets at the topic's end (see source_table.go): no topic is created
// or written, and the topic's partitions are the store's.
//
// What the record holds on this engine is documented on
// runs.KafkaStreamsRun: times come from the instance's events (first
// restore_start to last restore_end), CPU and peak RSS from /proc/<pid>, and
// bytes from the changelog itself, read once per topic and offsets.
type ColdKafkaStreams struct{}

func init() { Register(config.ScenarioCold, config.EngineKafkaStreams, single{ColdKafkaStreams{}}) }

// Run runs one cold restore on a Kafka Streams instance and verifies it.
func (ColdKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (runs.Restore, error) {
	rec := newRecord(t, req, req.Step(runs.StepRestore))
	fail := func(err error) (runs.Restore, error) {
		rec.Error = err.Error()
		return rec, err
	}
	if err := resetChanged(ctx, req); err != nil {
		return fail(err)
	}
	offsets, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return fail(err)
	}
	// Kafka Streams restores every partition of the topic (all); a sample
	// copy's partitions outside the sample are empty, tasks that restore
	// nothing, and the record's figures are the sampled partitions'.
	all := offsets
	offsets = t.Offsets(offsets)
	rec.Partitions, rec.RestoredPartitions = len(offsets.End), t.Partitions
	if t.SampleCopy != nil {
		rec.Topic, rec.SampleCopy = t.SampledFrom, t.SampleCopy
	}
	if t.Ends != nil && !sameEnds(t.Ends, offsets) {
		return fail(fmt.Errorf(endsMoved, t.Topic))
	}
	if err := fleet.CheckBrokerForKafkaStreams(ctx, env.Cluster, t.Topic); err != nil {
		return fail(err)
	}
	props, err := coldProperties(ctx, env, t, req, int32(len(all.End)))
	if err != nil {
		return fail(err)
	}
	single, err := fleet.NewKSSingle(env, req, t.AppID)
	if err != nil {
		return fail(err)
	}
	if err := single.Fresh(); err != nil {
		return fail(err)
	}
	queryload.SetAPIProps(props, req.Case.Queries)
	queryload.SetRouteProps(props, req)
	ks := &runs.KafkaStreamsRun{Properties: props, Instances: 1, BytesFrom: "changelog"}
	rec.KafkaStreams = ks
	if fleet.IsSourceTable(t) {
		g, err := fleet.CommitSourceOffsets(ctx, env, t.AppID, all)
		if err != nil {
			return fail(err)
		}
		defer releaseSourceGroup(env, g)
	}
	inst, err := single.Start(ctx, props, fleet.StateNeed(t))
	if err != nil {
		return fail(err)
	}
	defer inst.Kill() // whatever happens below, no JVM outlives the restore
	fleet.RecordHello(ks, inst.Hello())
	ks.Placement = single.Placement()
	actual, err := restoreQueried(ctx, env, t, req, inst, offsets, &rec)
	if err != nil {
		return fail(err)
	}
	rec.Phase.DiskBytes = single.DiskBytes(ctx)
	rec.Store = fleet.KSStoreRecord(req.Case, rec.Records, single.SegmentsDir(), t.StoreName)
	stopInstance(ctx, env, inst, ks)
	// The bytes of what the instance restored, from each partition's
	// restore_start offset: Kafka Streams 4.4 (and 4.2.2, not 4.3.x) seeks a cold
	// window store's changelog to the first record within the retention
	// of its last record's timestamp and never reads the expired head.
	if rec.Bytes, rec.Read, err = fleet.CountChangelog(ctx, env, fleet.RestoredRange(offsets, &actual.restores), req.Case); err != nil {
		return fail(fmt.Errorf("case %s #%d: counting the changelog's bytes: %w", req.Case.Name, req.Repeat, err))
	}
	fleet.WarnRead(env, &rec)
	finishRates(&rec, &actual.restores)
	if req.Limits != nil {
		rec.Phase.Limits = req.Limits.For(rec.Phase.MBPerSec)
	}
	single.Remove()
	states, err := sampledStates(t, actual.digest.States())
	if err != nil {
		return fail(err)
	}
	if out, err := fleet.VerifyInto(&rec, t, states); err != nil {
		return out, fleet.NameDifference(ctx, &out, t, actual.entriesOf, err)
	}
	return checkReads(&rec)
}

// restoreQueried is restoreAndDigest beside the case's query load, if it
// has one: the lookups go on for its After past the restore, and end
// before the digest.
func restoreQueried(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, inst fleet.Process, offsets cluster.TopicOffsets,
	rec *runs.Restore) (*coldDigest, error) {
	queries, err := queryload.StartSingleQueries(ctx, req, req.Spec, inst)
	if err != nil {
		return nil, err
	}
	actual, err := restoreAndDigest(ctx, env, t, req, inst, offsets, rec, queries)
	if err != nil {
		if queries != nil && rec.Queries == nil {
			queries.Abort()
		}
		return nil, fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
	}
	return actual, nil
}

// coldDigest is what a cold restore read back from its instance: the
// restore's events and the digest of the restored stores.
type coldDigest struct {
	restores ksdriver.Restores
	digest   *ksdriver.Digest
	// entries are partition entriesPartition's entries key by key, read
	// when it did not verify against an independent read (entriesErr
	// when that read failed).
	entries          map[string]uint64
	entriesPartition int32
	entriesErr       error
}

// restoreAndDigest waits for the instance to restore every partition that
// owes records, records the restore's timings (and the query load's, when
// queries is not nil: see finishKSQueries), and digests the stores.
func restoreAndDigest(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, inst fleet.Process,
	offsets cluster.TopicOffsets, rec *runs.Restore,
	queries *queryload.SingleQueries) (*coldDigest, error) {
	owed := map[int32]int64{}
	var want int64
	for p, end := range offsets.End {
		owed[p] = end - offsets.Start[p]
		want += owed[p]
	}
	bar := env.Progress.Start(fmt.Sprintf("restore %s #%d (kafka-streams)", req.Case.Name, req.Repeat), want, progress.Records)
	w, err := fleet.AwaitRestored(ctx, env, inst, t.Topic, owed, bar)
	bar.Done()
	if err != nil {
		return nil, err
	}
	w.Record(rec, inst)
	if err := queryload.FinishKSQueries(ctx, env, rec, queries, &w.Restores); err != nil {
		return nil, err
	}
	rec.KafkaStreams.Metrics = fleet.SampledMetrics(ctx, inst, req.Case, &w.Restores)
	d, err := fleet.DigestStores(ctx, inst, t.StoreName)
	if err != nil {
		return nil, err
	}
	rec.KafkaStreams.DigestSeconds = d.Seconds
	cd := &coldDigest{restores: w.Restores, digest: d}
	cd.readEntries(ctx, t, inst)
	return cd, nil
}

// readEntries reads, while the instance still runs, the first partition
// that does not verify against an independent read key by key, so the
// record can name the key it got wrong (nameDifference).
func (cd *coldDigest) readEntries(ctx context.Context, t fleet.Target, inst fleet.Process) {
	if t.TopicEntries == nil {
		return
	}
	states, err := sampledStates(t, cd.digest.States())
	if err != nil {
		return
	}
	ok, v := verify.Check(t.Expected, states)
	p, found := fleet.FirstFailed(v)
	if ok || !found {
		return
	}
	cd.entries, cd.entriesErr = fleet.StoreEntries(ctx, inst, p)
	cd.entriesPartition = p
}

// entriesOf is the store's side of nameDifference: the partition
// readEntries read.
func (cd *coldDigest) entriesOf(_ context.Context, p int32) (map[string]uint64, error) {
	if cd.entriesErr != nil {
		return nil, cd.entriesErr
	}
	if cd.entries == nil || p != cd.entriesPartition {
		return nil, fmt.Errorf("partition %d was not read key by key while the instance ran", p)
	}
	return cd.entries, nil
}

// coldProperties are the cold restore's instance properties: the kv
// topology over its (created if missing) input topic for the changelog
// named after the store, else the table topology over the topic itself.
func coldProperties(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, partitions int32) (map[string]string, error) {
	kind := req.Case.StoreKind
	if fleet.IsSourceTable(t) {
		// The table topology over the topic: a KTable's store of the kind
		// (a timestamped one is what a DSL count, aggregate or table
		// materializes), or a read-only window or session store whose
		// restore parses each key's window start (session end) and drops
		// expired windows (sessions) as the application's store does.
		if !config.RestoresForeign(kind) {
			return nil, fmt.Errorf("a %s store restores on the kafka-streams engine from %s, the changelog Kafka Streams names after it, not %s: "+
				"the table topology over any other topic materializes a %s store (fill it under that name, "+
				"or restore it on the model engine)", kind, config.ChangelogTopic(t.AppID, t.StoreName), t.Topic, config.ForeignKinds())
		}
		props, err := tableProperties(env, t, req)
		if err != nil {
			return nil, err
		}
		maps.Copy(props, req.Case.ForeignProperties())
		return props, nil
	}
	input, err := fleet.EnsureInputTopic(ctx, env, t, partitions)
	if err != nil {
		return nil, err
	}
	props, err := fleet.InstanceProperties(env, t, req, input)
	if err != nil {
		return nil, err
	}
	return props, fleet.AddKindProperties(props, req)
}

// tableProperties are the instance properties of the table topology over
// t's topic: topology.optimization=reuse.ktable.source.topics makes the
// topic the store's changelog (a case's streams map may name another
// value that includes it, or all; the driver refuses one that does not).
func tableProperties(env *fleet.Env, t fleet.Target, req fleet.Request) (map[string]string, error) {
	props, err := fleet.InstanceProperties(env, t, req, t.Topic)
	if err != nil {
		return nil, err
	}
	props[ksdriver.PropTopology] = ksdriver.TopologyTable
	if props[PropTopologyOptimization] == "" {
		props[PropTopologyOptimization] = ReuseKTableSourceTopics
	}
	return props, nil
}

// The StreamsConfig property, and its value, that make a KTable's source
// topic its store's changelog.
const (
	PropTopologyOptimization = "topology.optimization"
	ReuseKTableSourceTopics  = "reuse.ktable.source.topics"
)

// releaseSourceGroup undoes commitSourceOffsets once the instance is gone;
// what it cannot undo is a warning, not a failed restore.
func releaseSourceGroup(env *fleet.Env, g *fleet.SourceGroup) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.Release(ctx, env); err != nil {
		env.Logf("restore: warning: %v; the next source-table restore under application.id %s overwrites what is left, "+
			"or delete the group (kafka-consumer-groups.sh --delete --group %s)", err, g.Group, g.Group)
	}
}

// stopInstance stops the instance; a stop that is not clean is reported
// but does not undo a restore that was measured and digested.
func stopInstance(ctx context.Context, env *fleet.Env, inst fleet.KSInstance, ks *runs.KafkaStreamsRun) {
	err := inst.Stop(ctx)
	for _, e := range inst.Events() {
		if s, ok := e.(*ksdriver.Stopped); ok {
			ks.StopSeconds = s.Seconds
		}
	}
	if err != nil {
		env.Logf("restore: warning: the Kafka Streams instance did not stop cleanly: %v", err)
	}
}

// finishRates fills in the figures that follow from the others.
func finishRates(rec *runs.Restore, r *ksdriver.Restores) {
	rec.Phase.RecordsPerSec = runs.PerSec(rec.Records, rec.Phase.Seconds)
	rec.Phase.MBPerSec = runs.MBPerSec(rec.Bytes, rec.Phase.Seconds)
	if first, last, ok := r.Span(); ok {
		perRecord := 0.0
		if rec.Records > 0 {
			perRecord = float64(rec.Bytes) / float64(rec.Records)
		}
		rec.Series = r.Series(first, last, time.Second, perRecord)
	}
}

// sampledStates are the restored partitions a restore of t is verified
// on: every one, or of a sample copy (t.SampleCopy) the sampled ones,
// after checking that the copy's other partitions, which hold no record,
// restored no key.
func sampledStates(t fleet.Target, states []loadgen.PartitionState) ([]loadgen.PartitionState, error) {
	if t.SampleCopy == nil {
		return states, nil
	}
	var out []loadgen.PartitionState
	for _, st := range states {
		switch {
		case slices.Contains(t.Partitions, st.Partition):
			out = append(out, st)
		case st.Keys != 0 || st.LiveBytes != 0:
			return nil, fmt.Errorf("partition %d of %s, outside the sample, restored %d keys (%d live bytes), where the copy holds no record",
				st.Partition, t.Topic, st.Keys, st.LiveBytes)
		}
	}
	return out, nil
}
