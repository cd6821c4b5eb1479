package integration

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// sampleTopic writes a 4-partition topic restorebench did not fill
// (foreignTopic's records, plus records without a key and with headers on
// partition 1), a user's group with offsets on it, and returns the state
// each partition's last values leave and the records of each partition.
func sampleTopic(t *testing.T, env *bench.Env, name, group string) ([]loadgen.PartitionState, map[int32]int64) {
	t.Helper()
	ctx := context.Background()
	want := foreignTopic(t, env, name, 4, 4000)
	// A compacted topic refuses records without a key: a topic that holds
	// some is one of cleanup.policy=delete.
	alter := []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "cleanup.policy", Value: kadm.StringPtr("delete")}}
	if _, err := testAdmin(t, env).AlterTopicConfigs(ctx, alter, name); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(name))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var extra []*kgo.Record
	for i := range 20 {
		extra = append(extra, &kgo.Record{Partition: 1, Value: []byte(fmt.Sprintf("no key %d", i)), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}}})
	}
	if err := cl.ProduceSync(ctx, extra...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	o := testkafkaOffsets(t, env, name)
	counts := map[int32]int64{}
	commit := kadm.Offsets{}
	for p, end := range o.End {
		counts[p] = end - o.Start[p]
		commit.Add(kadm.Offset{Topic: name, Partition: p, At: end / 2, LeaderEpoch: -1})
	}
	adm := testAdmin(t, env)
	if _, err := adm.CommitOffsets(ctx, group, commit); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adm.DeleteGroup(context.Background(), group) })
	return want, counts
}

// userSide is what a sampled restore must leave as it was: the user's
// topic's offsets and the user's group's offsets on it.
func userSide(t *testing.T, env *bench.Env, name, group string) string {
	t.Helper()
	o := testkafkaOffsets(t, env, name)
	held, err := testAdmin(t, env).FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range o.Partitions() {
		r, _ := held.Lookup(name, p)
		fmt.Fprintf(&b, "%d:%d-%d@%d ", p, o.Start[p], o.End[p], r.At)
	}
	return b.String()
}

// copyName is the name of restorebench's copy of topic's sample under
// app, deleted when the test ends should a failing restore leave it.
func copyName(t *testing.T, env *bench.Env, app, topic string) string {
	name := app + "-sample-" + topic
	t.Cleanup(func() {
		if adm, closeAdm, err := env.Admin(); err == nil {
			cluster.DeleteTopic(context.Background(), adm, name)
			closeAdm()
		}
	})
	return name
}

// checkTopicGone fails while topic exists.
func checkTopicGone(t *testing.T, env *bench.Env, topic string) {
	t.Helper()
	_, exists, err := cluster.TopicID(context.Background(), testAdmin(t, env), topic)
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("restorebench's copy topic %s still exists after the restore", topic)
	}
}

// sampleRun is a sampled restore test's set-up: a connection (opts),
// restorebench's application, a sampleTopic with a user's group on it, the
// name of restorebench's copy, what the records written leave and how
// many each partition holds, the user's side before the restore, and a
// kafka-streams case of Kafka Streams' defaults.
type sampleRun struct {
	env                              *bench.Env
	app, name, group, copied, before string
	want                             []loadgen.PartitionState
	counts                           map[int32]int64
	c                                config.Case
}

func newSampleRun(t *testing.T, opts bench.Options) *sampleRun {
	t.Helper()
	s := &sampleRun{env: connect(t, opts)}
	s.app = ksApp(t, s.env)
	s.name = topic(t, s.env)
	s.group, s.copied = s.name+"-users-app", copyName(t, s.env, s.app, s.name)
	s.want, s.counts = sampleTopic(t, s.env, s.name, s.group)
	s.before = userSide(t, s.env, s.name, s.group)
	s.c = config.DefaultCase()
	s.c.Engine = config.EngineKafkaStreams
	return s
}

// restore restores partitions ps of the run's topic once through src on
// the kafka-streams engine and returns its record as results.json holds it.
func (s *sampleRun) restore(t *testing.T, src *bench.SampleSource, ps []int32) runs.Restore {
	t.Helper()
	out := t.TempDir()
	if _, err := s.env.RestoreTopic(context.Background(), bench.RestoreTopicOptions{
		Topic: s.name, AppID: s.app, StoreName: ksStore, Case: s.c, Repeats: 1, OutDir: out, Partitions: ps, Sample: src,
	}); err != nil {
		t.Fatalf("partitions %v: %v", ps, err)
	}
	loaded, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("partitions %v: results.json: %v", ps, err)
	}
	return loaded.Restores[0]
}

// checkUserSide fails when the user's topic or group changed since the
// run's set-up.
func (s *sampleRun) checkUserSide(t *testing.T) {
	t.Helper()
	if after := userSide(t, s.env, s.name, s.group); after != s.before {
		t.Fatalf("the user's topic or group changed:\nbefore %s\nafter  %s", s.before, after)
	}
}

// TestKafkaStreamsRestoresASample restores partitions 1 and 3 of a
// 4-partition topic restorebench did not fill on the real Kafka Streams
// client, through the copy: the record lists and verifies those two
// partitions only, against the independent read (and the state the
// written records leave), its figures are theirs, the copy's figures are
// in results.json apart from the restore's, the copy topic is gone, and
// the user's topic and group are as they were.
func TestKafkaStreamsRestoresASample(t *testing.T) {
	t.Parallel()
	needDriver(t)
	s := newSampleRun(t, bench.Options{})
	env, app, name, copied, want, counts, c := s.env, s.app, s.name, s.copied, s.want, s.counts, s.c
	out := t.TempDir()
	res, err := env.RestoreTopic(context.Background(), bench.RestoreTopicOptions{
		Topic: name, AppID: app, StoreName: ksStore, Case: c, Repeats: 1, OutDir: out, Partitions: []int32{1, 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("results.json: %v", err)
	}
	r := loaded.Restores[0]
	if r.Error != "" || !r.Verified || r.Topic != name || !slices.Equal(r.RestoredPartitions, []int32{1, 3}) || r.Partitions != 2 {
		t.Fatalf("error %q, verified %v, topic %s, restored_partitions %v (%d): want %s's partitions 1 and 3 verified",
			r.Error, r.Verified, r.Topic, r.RestoredPartitions, r.Partitions, name)
	}
	var got []int32
	for _, p := range r.Verification.Partitions {
		w := want[p.Partition]
		if !p.OK || p.ActualKeys != w.Keys || p.LiveBytes != w.LiveBytes || p.ActualDigest != w.Digest {
			t.Fatalf("partition %d: %d keys, %d bytes, digest %s; the records written leave %d, %d, %s",
				p.Partition, p.ActualKeys, p.LiveBytes, p.ActualDigest, w.Keys, w.LiveBytes, w.Digest)
		}
		got = append(got, p.Partition)
	}
	if !slices.Equal(got, []int32{1, 3}) {
		t.Fatalf("verified partitions %v, want 1 and 3 only", got)
	}
	records := counts[1] + counts[3]
	sc := r.SampleCopy
	if sc == nil || sc.Topic != copied || sc.Records != records || sc.Bytes <= 0 || sc.Seconds <= 0 {
		t.Fatalf("sample_copy %+v: want %s with the %d records of partitions 1 and 3, its bytes and seconds", sc, copied, records)
	}
	// Kafka Streams skips records without a key when it restores.
	if r.Records != records-20 || r.Phase.Seconds <= 0 {
		t.Fatalf("restored %d records in %.3fs, want the %d keyed records of partitions 1 and 3", r.Records, r.Phase.Seconds, records-20)
	}
	if res.Restores[0].SampleCopy == nil {
		t.Fatal("the returned results carry no sample_copy")
	}
	s.checkUserSide(t)
	checkTopicGone(t, env, copied)
	checkGroupGone(t, env, app)
	noJVMUnder(t, env.Opts.StateDir)
}

// cancelOn cancels a run when a progress task whose name starts with
// prefix reports its first figure past 0: mid-copy ("copy sample") or
// mid-restore ("restore").
type cancelOn struct {
	prefix string
	cancel context.CancelFunc
	once   sync.Once
	fired  bool
}

func (c *cancelOn) Observe(what string, _ int64, _ progress.Unit) progress.Task {
	if !strings.HasPrefix(what, c.prefix) {
		return nopTask{}
	}
	return cancelTask{c}
}

func (c *cancelOn) Case(string, string, int) {}

type cancelTask struct{ c *cancelOn }

func (t cancelTask) Set(n int64) {
	if n > 0 {
		t.c.once.Do(func() { t.c.fired = true; t.c.cancel() })
	}
}
func (cancelTask) Count(int64) {}
func (cancelTask) Done()       {}

type nopTask struct{}

func (nopTask) Set(int64)   {}
func (nopTask) Count(int64) {}
func (nopTask) Done()       {}

// TestKafkaStreamsSampleInterrupted interrupts a sampled restore on the
// kafka-streams engine during the copy and during Kafka Streams' restore
// (the run's context cancelled, as SIGINT does): each returns the
// cancellation, the copy topic is gone, no JVM is left, and the user's
// topic and group are as they were.
func TestKafkaStreamsSampleInterrupted(t *testing.T) {
	t.Parallel()
	needDriver(t)
	for _, tc := range []struct{ name, prefix string }{{"mid-copy", "copy sample"}, {"mid-restore", "restore"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			watch := &cancelOn{prefix: tc.prefix, cancel: cancel}
			s := newSampleRun(t, bench.Options{Watch: watch})
			env, app, name, copied, c := s.env, s.app, s.name, s.copied, s.c
			_, err := env.RestoreTopic(ctx, bench.RestoreTopicOptions{
				Topic: name, AppID: app, StoreName: ksStore, Case: c, Repeats: 1, OutDir: t.TempDir(), Partitions: []int32{0, 2},
			})
			if !watch.fired {
				t.Fatalf("never reached %q (err %v)", tc.prefix, err)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted %s: %v, want the cancellation", tc.name, err)
			}
			checkTopicGone(t, env, copied)
			noJVMUnder(t, env.Opts.StateDir)
			s.checkUserSide(t)
		})
	}
}

// TestKafkaStreamsSampleSourceSharedAcrossRestores restores, as plan
// --measure does, partition 1 alone, partitions 1 and 3 together, then
// partition 3 alone, sharing one SampleSource: the copy is made once and
// arranged for each restore (partition 3 added, then partition 1 emptied),
// each restore is verified against the independent read of exactly its
// partitions and counts exactly their keyed records, the copy is gone
// once the source is closed, and the user's topic and group are as they
// were.
func TestKafkaStreamsSampleSourceSharedAcrossRestores(t *testing.T) {
	t.Parallel()
	needDriver(t)
	s := newSampleRun(t, bench.Options{})
	env, app, name, copied, want, counts := s.env, s.app, s.name, s.copied, s.want, s.counts
	keyed := func(p int32) int64 {
		if p == 1 {
			return counts[p] - 20 // Kafka Streams skips the records without a key
		}
		return counts[p]
	}
	src := env.NewSampleSource(name)
	for _, ps := range [][]int32{{1}, {1, 3}, {3}} {
		r := s.restore(t, src, ps)
		var records, copiedRecords int64
		for _, p := range ps {
			records, copiedRecords = records+keyed(p), copiedRecords+counts[p]
		}
		if r.Error != "" || !r.Verified || !slices.Equal(r.RestoredPartitions, ps) || r.Records != records {
			t.Fatalf("partitions %v: error %q, verified %v, restored_partitions %v, %d records: want them verified, %d records",
				ps, r.Error, r.Verified, r.RestoredPartitions, r.Records, records)
		}
		var verified []int32
		for _, p := range r.Verification.Partitions {
			if w := want[p.Partition]; !p.OK || p.ActualDigest != w.Digest || p.ActualKeys != w.Keys {
				t.Fatalf("partitions %v: partition %d: %d keys, digest %s; the records written leave %d, %s", ps, p.Partition,
					p.ActualKeys, p.ActualDigest, w.Keys, w.Digest)
			}
			verified = append(verified, p.Partition)
		}
		if !slices.Equal(verified, ps) {
			t.Fatalf("partitions %v: verified %v", ps, verified)
		}
		if sc := r.SampleCopy; sc == nil || sc.Topic != copied || sc.Records != copiedRecords {
			t.Fatalf("partitions %v: sample_copy %+v, want %s holding their %d records", ps, sc, copied, copiedRecords)
		}
	}
	src.Close()
	checkTopicGone(t, env, copied)
	checkGroupGone(t, env, app)
	noJVMUnder(t, env.Opts.StateDir)
	s.checkUserSide(t)
}

// TestKafkaStreamsSampleSourceFollowsAMovedPartition restores partition 3
// through a SampleSource, writes more records to it, and restores it
// again through the same source: the second restore reads the partition
// anew, empties and copies it anew (not the copy of before), and verifies
// against what the partition holds now, its records all counted.
func TestKafkaStreamsSampleSourceFollowsAMovedPartition(t *testing.T) {
	t.Parallel()
	needDriver(t)
	s := newSampleRun(t, bench.Options{})
	src := s.env.NewSampleSource(s.name)
	defer src.Close()
	first := s.restore(t, src, []int32{3})
	if !first.Verified || first.Records != s.counts[3] {
		t.Fatalf("first restore: verified %v, %d records, want %d verified", first.Verified, first.Records, s.counts[3])
	}
	cl, err := cluster.NewClient(s.env.Cluster, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(s.name))
	if err != nil {
		t.Fatal(err)
	}
	var more []*kgo.Record
	for i := range 50 {
		more = append(more, &kgo.Record{Partition: 3, Key: []byte(fmt.Sprintf("later-%02d", i)), Value: []byte("v")})
	}
	err = cl.ProduceSync(context.Background(), more...).FirstErr()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}
	second := s.restore(t, src, []int32{3})
	if !second.Verified || second.Records != s.counts[3]+50 || second.SampleCopy == nil || second.SampleCopy.Records != s.counts[3]+50 {
		t.Fatalf("second restore: verified %v, %d records, sample_copy %+v: want the partition's %d records now, copied anew and verified",
			second.Verified, second.Records, second.SampleCopy, s.counts[3]+50)
	}
	if k := second.Verification.Partitions[0].ActualKeys; k != s.want[3].Keys+50 {
		t.Fatalf("second restore: %d keys, want the %d before and the 50 written since", k, s.want[3].Keys)
	}
}
