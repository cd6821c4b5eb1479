package scenario

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// CompactionModel measures how a changelog's cleaner settings decide what a
// restore reads. It writes the fill's records (the same generator) to a
// changelog of its own, created with the case's topic configs, gives the
// log cleaner the settle time, then cold-restores that changelog on the
// model engine and verifies it: the records read against the live keys are
// the restore amplification those settings leave. The topic is deleted
// afterwards. A topic of its name left by a killed run is deleted first;
// one restorebench did not create is refused (deleteOwnLeftover).
//
// On the embedded broker the log cleaner is kfake's, run once on request
// after the settle time; the record says so.
type CompactionModel struct{}

func init() { Register(config.ScenarioCompaction, config.EngineModel, single{CompactionModel{}}) }

// Run makes one measurement.
func (CompactionModel) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (runs.Restore, error) {
	cs := req.Case.Compaction
	topic := fmt.Sprintf("%s-compaction-%s-%d", t.Topic, req.Case.Name, req.Repeat)
	rec := newRecord(t, req, req.Step(runs.StepCompaction))
	rec.Topic = topic
	fail := func(err error) (runs.Restore, error) {
		rec.Error = err.Error()
		return rec, err
	}
	if req.Spec == nil {
		return fail(fleet.ErrNoChanger)
	}
	adm, done, err := env.AdminClient()
	if err != nil {
		return fail(err)
	}
	defer done()
	if err := deleteOwnLeftover(ctx, env, adm, topic); err != nil {
		return fail(err)
	}
	if err := cluster.CreateChangelog(ctx, adm, topic, req.Spec.Partitions, cs.TopicConfigs); err != nil {
		return fail(err)
	}
	defer func() {
		if cluster.DeleteTopic(context.WithoutCancel(ctx), adm, topic) == nil {
			env.Owned.Forget(topic)
		}
	}()
	if err := env.Owned.Record(ctx, adm, topic, "the compaction scenario's copy of the fill"); err != nil {
		return fail(err)
	}
	tot, writeStart, writeEnd, err := writeFillTo(ctx, env, req, topic)
	if err != nil {
		return fail(err)
	}
	cr := &runs.CompactionRecord{TopicConfigs: cs.TopicConfigs, Written: tot.Records, CleanedBy: runs.CleanedByKafka}
	rec.Compaction = cr
	if err := settleCleaner(ctx, env, req, adm, topic, cr); err != nil {
		return fail(err)
	}
	offsets, err := env.Offsets(ctx, topic)
	if err != nil {
		return fail(err)
	}
	rec.Partitions = len(offsets.End)
	young := youngFraction(cs.TopicConfigs, writeStart, writeEnd, time.Now())
	in := modelInstance(env, t, req)
	restored, err := measureModel(ctx, env, req, in, &rec, func() (*engine.Restored, error) { return in.ColdRestore(ctx, offsets) })
	if err != nil {
		return fail(err)
	}
	defer cleanupState(in, req)
	defer restored.Close()
	out, verr := verifyStores(&rec, t.Expected, restored)
	keys, _ := out.Verification.Totals()
	cr.Read, cr.LiveKeys = out.Records, keys
	if keys > 0 {
		cr.Amplification = float64(cr.Read) / float64(keys)
	}
	cr.Bound = amplificationBound(cs.TopicConfigs, tot, keys, young)
	out.Compaction = cr
	return out, verr
}

// writeFillTo writes the fill's records to topic and returns what it wrote
// and when the writing began and ended.
func writeFillTo(ctx context.Context, env *fleet.Env, req fleet.Request, topic string) (tot loadgen.FillTotals, start, end time.Time, err error) {
	env.Logf("compaction: case %s #%d: writing the fill to %s with %s", req.Case.Name, req.Repeat, topic, cleanerText(req.Case.Compaction.TopicConfigs))
	popts, err := loadgen.ProducerOpts("lz4")
	if err != nil {
		return tot, start, end, err
	}
	pcl, err := cluster.NewClient(env.Cluster, popts...)
	if err != nil {
		return tot, start, end, err
	}
	start = time.Now()
	tot, err = loadgen.Produce(ctx, pcl, topic, *req.Spec, nil)
	end = time.Now()
	pcl.Close()
	return tot, start, end, err
}

// settleCleaner gives the log cleaner the settle time (on the embedded
// broker, then runs it), recording the log's size before and after.
func settleCleaner(ctx context.Context, env *fleet.Env, req fleet.Request, adm *kadm.Client, topic string, cr *runs.CompactionRecord) error {
	cs := req.Case.Compaction
	var err error
	if cr.LogBytesAfterWrite, err = cluster.LogBytes(ctx, adm, topic); err != nil {
		return err
	}
	env.Logf("compaction: case %s #%d: giving the log cleaner %s", req.Case.Name, req.Repeat, cs.Settle)
	select {
	case <-time.After(cs.Settle.D()):
	case <-ctx.Done():
		return ctx.Err()
	}
	if env.CompactNow != nil {
		env.CompactNow()
		cr.CleanedBy = runs.CleanedByKfake
	}
	cr.SettleSeconds = cs.Settle.D().Seconds()
	cr.LogBytesBeforeRestore, err = cluster.LogBytes(ctx, adm, topic)
	return err
}

// amplificationBound is the most a restore can read per live key under
// the cleaner settings, for a log that received written records: the cleaner
// leaves a partition alone until its dirty part is min.cleanable.dirty.ratio
// of the log, so up to live/(1-ratio) records stay; on top, the active
// segment is never cleaned: up to segment.bytes per partition plus the
// batch that overflows it (segments roll between batches; the fill's
// producer batches up to 1 MiB). Records newer than min.compaction.lag.ms
// are not cleaned either: young is the share of the written records still
// within that lag when the restore began (youngFraction), all of which may
// stay. It never exceeds what was written. The bound itself is
// runs.CleanerBound's, in records.
func amplificationBound(configs map[string]string, written loadgen.FillTotals, liveKeys int64, young float64) float64 {
	if liveKeys == 0 || written.Records == 0 {
		return 0
	}
	perRecord := float64(written.Bytes) / float64(written.Records)
	bound := runs.NewCleanerBound(configs).Records(float64(liveKeys), len(written.PerPart), perRecord, young*float64(written.Records))
	return min(bound, float64(written.Records)) / float64(liveKeys)
}

// youngFraction is the share of records written evenly between start and
// end that were younger than min.compaction.lag.ms at restore (0 without
// the setting): the cleaner may not touch them, whatever else it does.
func youngFraction(configs map[string]string, start, end, restore time.Time) float64 {
	ms, err := strconv.ParseInt(configs["min.compaction.lag.ms"], 10, 64)
	if err != nil || ms <= 0 {
		return 0
	}
	cleanableBefore := restore.Add(-time.Duration(ms) * time.Millisecond)
	switch {
	case !cleanableBefore.After(start):
		return 1
	case !cleanableBefore.Before(end):
		return 0
	}
	return float64(end.Sub(cleanableBefore)) / float64(end.Sub(start))
}

// cleanerText names topic settings for a progress line: "segment.bytes=8388608
// min.cleanable.dirty.ratio=0.1" in name order, or the broker's defaults.
func cleanerText(cfg map[string]string) string {
	if len(cfg) == 0 {
		return "the broker's default cleaner settings"
	}
	return config.Pairs(cfg, " ")
}

// deleteOwnLeftover deletes topic, a name restorebench is about to create,
// when it exists and is restorebench's own (an interrupted run's); one
// restorebench did not create is refused, untouched.
func deleteOwnLeftover(ctx context.Context, env *fleet.Env, adm *kadm.Client, topic string) error {
	_, exists, err := cluster.TopicID(ctx, adm, topic)
	if err != nil || !exists {
		return err
	}
	ours, err := env.Owned.Owns(ctx, adm, topic)
	if err != nil {
		return err
	}
	if !ours {
		return fmt.Errorf("topic %s exists and restorebench did not create it (%s has no record of it): the compaction "+
			"scenario writes a copy of the fill to a topic of that name and deletes it afterwards, so "+
			"nothing was written or deleted. "+
			"Run under another application_id (--application-id), which names the fill's changelog and this topic after it, or rename the case",
			topic, env.Owned.Where())
	}
	if err := cluster.DeleteTopic(ctx, adm, topic); err != nil {
		return err
	}
	return env.Owned.Forget(topic)
}
