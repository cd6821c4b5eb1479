package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// foreignTopic writes a topic restorebench did not fill, with a plain
// franz-go producer: records keys of several versions each, some
// tombstones and some empty (live) values, to partitions chosen here, and
// returns the state each partition's last values leave.
func foreignTopic(t *testing.T, env *bench.Env, topic string, partitions int32, records int) []loadgen.PartitionState {
	t.Helper()
	ctx := context.Background()
	adm := testAdmin(t, env)
	if err := cluster.CreateChangelog(ctx, adm, topic, partitions, nil); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	last := make([]map[string][]byte, partitions)
	for p := range last {
		last[p] = map[string][]byte{}
	}
	var batch []*kgo.Record
	for i := range records {
		key := fmt.Sprintf("user-%04d", rng.IntN(records/5))
		p := int32(len(key)+int(key[len(key)-1])) % partitions
		var value []byte // a tombstone, one record in ten
		if rng.IntN(10) != 0 {
			value = make([]byte, rng.IntN(200)) // empty values are live
			for j := range value {
				value[j] = byte(i + j)
			}
		}
		last[p][key] = value
		batch = append(batch, &kgo.Record{Key: []byte(key), Value: value, Partition: p})
	}
	if err := cl.ProduceSync(ctx, batch...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return statesOf(last)
}

// statesOf is the state each partition's last values leave: live keys,
// their key+value bytes and their digest (nil values deleted).
func statesOf(last []map[string][]byte) []loadgen.PartitionState {
	out := make([]loadgen.PartitionState, len(last))
	for p, kv := range last {
		out[p].Partition = int32(p)
		for k, v := range kv {
			if v != nil {
				out[p].Keys++
				out[p].LiveBytes += int64(len(k) + len(v))
				out[p].Digest.Add([]byte(k), v)
			}
		}
	}
	return out
}

// TestKafkaStreamsRestoresATopicItDidNotFill restores a topic restorebench
// did not fill, and did not name after the store, on the real client (a
// KTable over it with source-topic reuse, its group's offsets committed at
// the topic's end) and on the model: both report every record restored,
// the live keys and live bytes (and digest) the written records leave, and
// verified against an independent read of the topic. Kafka Streams creates no changelog topic, leaves the
// topic as it was, and restorebench deletes the group it used.
func TestKafkaStreamsRestoresATopicItDidNotFill(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	name := topic(t, env)
	want := foreignTopic(t, env, name, 3, 3000)
	before := testkafkaOffsets(t, env, name)
	var recs []runs.Restore
	for _, engine := range []config.Engine{config.EngineKafkaStreams, config.EngineModel} {
		c := config.DefaultCase()
		c.Engine = engine
		res, err := env.RestoreTopic(context.Background(), bench.RestoreTopicOptions{
			Topic: name, AppID: app, StoreName: ksStore, Case: c, Repeats: 1, OutDir: t.TempDir(),
		})
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		recs = append(recs, res.Restores[0])
	}
	for _, r := range recs {
		checkForeignRestore(t, r, want, 3000)
	}
	if p := recs[0].KafkaStreams.Properties; p[ksdriver.PropTopology] != ksdriver.TopologyTable || p["topology.optimization"] != "reuse.ktable.source.topics" {
		t.Fatalf("kafka-streams ran topology %q, optimization %q", p[ksdriver.PropTopology], p["topology.optimization"])
	}
	after := testkafkaOffsets(t, env, name)
	for p := range before.End {
		if before.Start[p] != after.Start[p] || before.End[p] != after.End[p] {
			t.Fatalf("partition %d went from %d-%d to %d-%d: the restore changed the user's topic", p, before.Start[p], before.End[p], after.Start[p], after.End[p])
		}
	}
	checkNoAppTopics(t, env, app, name)
	checkGroupGone(t, env, app)
	noJVMUnder(t, env.Opts.StateDir)
}

// checkForeignRestore checks one engine's record of the foreign topic.
func checkForeignRestore(t *testing.T, r runs.Restore, want []loadgen.PartitionState, records int64) {
	t.Helper()
	engine := runs.EngineOf(r.Params)
	if r.Error != "" || !r.Verified || r.Verification.Mode != verify.ModeExpectedState {
		t.Fatalf("%s: error %q, verified %v, mode %q: want verified against the independent read of the topic", engine, r.Error, r.Verified, r.Verification.Mode)
	}
	if r.Records != records || r.Partitions != len(want) || r.Phase.Seconds <= 0 || r.Phase.MBPerSec <= 0 {
		t.Fatalf("%s: %d records over %d partitions in %.3fs (%.2f MB/s), want %d over %d", engine, r.Records, r.Partitions, r.Phase.Seconds, r.Phase.MBPerSec, records, len(want))
	}
	var wantKeys, wantLive int64
	for _, w := range want {
		wantKeys += w.Keys
		wantLive += w.LiveBytes
	}
	if keys, live := r.Verification.Totals(); keys != wantKeys || live != wantLive {
		t.Fatalf("%s: %d live keys, %d live bytes; the records written leave %d, %d", engine, keys, live, wantKeys, wantLive)
	}
	for _, p := range r.Verification.Partitions {
		w := want[p.Partition]
		if p.ActualKeys != w.Keys || p.LiveBytes != w.LiveBytes || p.ActualDigest != w.Digest {
			t.Fatalf("%s: partition %d holds %d keys, %d bytes, digest %s; want %d, %d, %s", engine, p.Partition, p.ActualKeys, p.LiveBytes, p.ActualDigest, w.Keys, w.LiveBytes, w.Digest)
		}
	}
}

// testkafkaOffsets is the topic's log start and end offsets.
func testkafkaOffsets(t *testing.T, env *bench.Env, topic string) cluster.TopicOffsets {
	t.Helper()
	o, err := env.Offsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkNoAppTopics fails if the application made a topic of its own (a
// <app>-<store>-changelog, a repartition topic): source-topic reuse makes
// the user's topic the store's changelog.
func checkNoAppTopics(t *testing.T, env *bench.Env, app, topic string) {
	t.Helper()
	adm := testAdmin(t, env)
	td, err := adm.ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range td.Names() {
		if name != topic && strings.HasPrefix(name, app) {
			t.Fatalf("the application %s created topic %s (the store's changelog is %s itself)", app, name, topic)
		}
	}
}

// checkGroupGone fails while the group still holds offsets.
func checkGroupGone(t *testing.T, env *bench.Env, group string) {
	t.Helper()
	adm := testAdmin(t, env)
	held, err := adm.FetchOffsets(context.Background(), group)
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatal(err)
	}
	held.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 {
			t.Fatalf("group %s still holds offset %d on %s/%d after the restore", group, o.At, o.Topic, o.Partition)
		}
	})
}

// A profile's fill.topic, a topic restorebench fills but does not name
// after the store, runs a kafka-streams cold case there, verified against
// the fill like any other.
func TestKafkaStreamsColdCaseOnFillTopic(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	name := topic(t, env)
	plan, err := profiles.Parse([]byte(fmt.Sprintf(`
application_id: %s
store: %s
fill: {topic: %s, records: 4000, keys: 800, partitions: 2, tombstone_ratio: 0.1, value_size: 0-150}
restore: {engine: kafka-streams}
ready: false
`, app, ksStore, name)), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Run(context.Background(), plan, bench.RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Restores[0]
	if !r.Verified || r.Records != 4000 || r.Topic != name {
		t.Fatalf("verified %v, %d records of %s (%s)", r.Verified, r.Records, r.Topic, r.Error)
	}
	checkNoAppTopics(t, env, app, name)
	checkGroupGone(t, env, app)
}
