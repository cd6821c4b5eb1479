package main

// restore --topic T --partitions: a sample of a user's changelog restored
// at full size (issue 50). The cluster is kfake in memory, reached with
// --brokers as a user's cluster is; its fetches are counted per partition.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/runs"
)

// sampleTopic writes a user's 4-partition changelog: partition p holds
// 300*(p+1) records over 100*(p+1) keys, every tenth key deleted at the end
// (tombstones), and returns each partition's live keys.
func sampleTopic(t *testing.T, cl *kgo.Client, topic string) map[int32]int64 {
	t.Helper()
	ctx := context.Background()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 4, nil); err != nil {
		t.Fatal(err)
	}
	live := map[int32]int64{}
	var recs []*kgo.Record
	for p := range int32(4) {
		keys := 100 * int(p+1)
		for i := range 3 * keys {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "p%d-k%04d", p, i%keys), Value: fmt.Appendf(nil, "v%d", i)})
		}
		for k := 0; k < keys; k += 10 {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "p%d-k%04d", p, k)})
		}
		live[p] = int64(keys - keys/10)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return live
}

// TestRestoreSampledPartitions: restore --topic T --partitions 1,3 on the
// model engine fetches only partitions 1 and 3 of T (the restore and the
// independent read alike; partitions 0 and 2 are never named in a fetch),
// verifies each against the read of that partition, records which
// partitions it restored and only their records, changes nothing of the
// user's (T's end offsets, the user's group and its offsets, the topics)
// and leaves no store behind. Partitions T lacks are refused before
// anything is read or written, naming them and T's partition count.
func TestRestoreSampledPartitions(t *testing.T) {
	c, cfg, cl := fromTopicCluster(t)
	ctx := context.Background()
	const topic = "user-app-store-changelog"
	live := sampleTopic(t, cl, topic)
	adm := kadm.NewClient(cl)
	userGroup := kadm.Offsets{}
	userGroup.Add(kadm.Offset{Topic: topic, Partition: 2, At: 7})
	if _, err := adm.CommitOffsets(ctx, "user-app", userGroup); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		groups, err := adm.ListGroups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := adm.FetchOffsets(ctx, "user-app")
		if err != nil {
			t.Fatal(err)
		}
		topics, err := adm.ListTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		ends.Each(func(o kadm.ListedOffset) { s = append(s, fmt.Sprintf("end %d=%d", o.Partition, o.Offset)) })
		committed.Each(func(o kadm.OffsetResponse) { s = append(s, fmt.Sprintf("user-app %d=%d", o.Partition, o.At)) })
		s = append(s, "groups "+strings.Join(groups.Groups(), ","), "topics "+strings.Join(topics.Names(), ","))
		slices.Sort(s)
		return strings.Join(s, "; ")
	}
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := topics[topic].ID
	var mu sync.Mutex
	fetched := map[int32]int{} // fetches naming each partition of topic
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		for _, rt := range req.(*kmsg.FetchRequest).Topics {
			if rt.Topic == topic || rt.TopicID == id {
				for _, rp := range rt.Partitions {
					fetched[rp.Partition]++
				}
			}
		}
		return nil, nil, false
	})
	dataDir, stateDir := t.TempDir(), t.TempDir()
	base := []string{"--brokers", strings.Join(cfg.Brokers, ","), "-q", "--data-dir", dataDir, "--state-dir", stateDir, "restore", "--topic", topic}

	// Partitions T lacks: one error naming them and T's partition count,
	// nothing read of T, no results written.
	refused := filepath.Join(t.TempDir(), "refused")
	_, _, err = cli(t, append(base, "--partitions", "2,9,12", "--out", refused)...)
	wantErr(t, "partitions T lacks", err, "--partitions: topic "+topic+" has no partition 9, 12: it has 4 partitions (0..3)")
	if _, serr := os.Stat(filepath.Join(refused, "results.json")); serr == nil {
		t.Error("a refused --partitions left a results.json")
	}
	if len(fetched) > 0 {
		t.Errorf("a refused --partitions fetched from %s: %v", topic, fetched)
	}

	before := snapshot()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := cli(t, append(base, "--partitions", "3,1", "--out", out)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	mu.Lock()
	got := maps.Clone(fetched)
	mu.Unlock()
	if got[0] != 0 || got[2] != 0 || got[1] == 0 || got[3] == 0 {
		t.Errorf("fetches per partition of %s: %v; want partitions 1 and 3 only", topic, got)
	}
	if after := snapshot(); after != before {
		t.Errorf("the user's cluster changed:\nbefore %s\nafter  %s", before, after)
	}
	res, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Restores[0]
	if !r.Verified || r.Verification.Mode != "expected-state" || r.Partitions != 2 || !slices.Equal(r.RestoredPartitions, []int32{1, 3}) {
		t.Fatalf("restore: verified %v (%s), %d partitions %v; want verified, partitions [1 3]", r.Verified, r.Verification.Problem, r.Partitions,
			r.RestoredPartitions)
	}
	var checked []int32
	for _, p := range r.Verification.Partitions {
		checked = append(checked, p.Partition)
		if !p.OK || p.ExpectedKeys != live[p.Partition] || p.ActualKeys != live[p.Partition] {
			t.Errorf("partition %d: ok %v, %d keys against %d expected; want %d", p.Partition, p.OK, p.ActualKeys, p.ExpectedKeys, live[p.Partition])
		}
	}
	// Partition p holds 310*(p+1) records (a tenth of its keys deleted).
	if !slices.Equal(checked, []int32{1, 3}) || r.Records != 310*2+310*4 {
		t.Errorf("verified partitions %v, %d records restored; want [1 3], %d", checked, r.Records, 310*2+310*4)
	}
	var recorded []int32
	for _, o := range res.Fill.Offsets {
		recorded = append(recorded, o.Partition)
	}
	if !slices.Equal(recorded, []int32{1, 3}) || len(res.Fill.Expected) != 2 {
		t.Errorf("results.json's topic record: offsets of %v, %d expected partitions; want [1 3] only", recorded, len(res.Fill.Expected))
	}
	left, _ := filepath.Glob(filepath.Join(stateDir, "restorebench", "*_*"))
	if len(left) > 0 {
		t.Errorf("stores left behind: %v", left)
	}
}

// TestPlanMeasureSampleReadsEachPartitionOnce: plan --from-topic T
// --measure --sample 2 on a topic restorebench did not fill reads each
// sampled partition once, with the topic's shape, and verifies every
// restore against that read: no restore reads a partition again, and
// every saved restore is verified against the partition's live keys.
func TestPlanMeasureSampleReadsEachPartitionOnce(t *testing.T) {
	_, cfg, cl := fromTopicCluster(t)
	const topic = "user-app-store-changelog"
	live := sampleTopic(t, cl, topic)
	t.Chdir(t.TempDir())
	_, stderr, err := cliNoChdir("--brokers", strings.Join(cfg.Brokers, ","), "--data-dir", t.TempDir(), "--state-dir", t.TempDir(),
		"plan", "--from-topic", topic, "--measure", "--sample", "2", "--measure-engines", "model", "--measure-repeats", "1",
		"--instances", "1", "--rto", "10m")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "independently to verify the restore against") || !strings.Contains(stderr, "as read independently with the topic's shape") {
		t.Errorf("a restore read its partitions again, or not from the shape read:\n%s", stderr)
	}
	saved, _ := filepath.Glob(filepath.Join("results", "*-measure*", "results.json"))
	if len(saved) != 3 {
		t.Fatalf("saved %d runs, want 3: %v", len(saved), saved)
	}
	for _, p := range saved {
		res, err := runs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Restores {
			if !r.Verified || r.Verification.Mode != "expected-state" {
				t.Errorf("%s: restore of %v verified %v (%s), want verified against the read", p, r.RestoredPartitions, r.Verified, r.Verification.Mode)
			}
			for _, v := range r.Verification.Partitions {
				if v.ExpectedKeys != live[v.Partition] || v.ActualKeys != live[v.Partition] {
					t.Errorf("%s: partition %d: %d keys against %d expected; want %d", p, v.Partition, v.ActualKeys, v.ExpectedKeys, live[v.Partition])
				}
			}
		}
	}
}
