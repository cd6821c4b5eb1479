package integration

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
)

// TestKafkaStreamsRestoreLeavesTheUsersApplicationAlone: on the real
// broker, a user's application APP (group APP committed at 50/50 on
// APP-S-input, which holds 60/60: 20 records pending; changelog
// APP-S-changelog of 3,000 records). A kafka-streams restore of the
// changelog under --application-id APP is refused, naming the group and
// another --application-id, and the group's offsets, the input and the
// changelog are as they were; the way around, the same restore under
// another application id, restores the topic (through the table
// topology, in restorebench's own group) and still changes nothing of
// the user's.
func TestKafkaStreamsRestoreLeavesTheUsersApplicationAlone(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	ctx := context.Background()
	app := ksApp(t, env) // its changelog and input topic and group are deleted at the end
	changelog, input := config.ChangelogTopic(app, ksStore), fleet.InputTopic(app, ksStore)
	foreignTopic(t, env, changelog, 2, 3000)
	if _, err := adm.CreateTopic(ctx, 2, -1, nil, input); err != nil {
		t.Fatal(err)
	}
	if err := cluster.AwaitTopic(ctx, adm, input, 2); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(input))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 120 {
		r := &kgo.Record{Partition: int32(i % 2), Key: fmt.Appendf(nil, "order-%d", i), Value: []byte("placed")}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var offs kadm.Offsets
	offs.AddOffset(input, 0, 50, -1)
	offs.AddOffset(input, 1, 50, -1)
	if err := adm.CommitAllOffsets(ctx, app, offs); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		t.Helper()
		var parts []string
		held, err := adm.FetchOffsets(ctx, app)
		if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			t.Fatal(err)
		}
		held.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At >= 0 {
				parts = append(parts, fmt.Sprintf("group %s/%d@%d", o.Topic, o.Partition, o.At))
			}
		})
		for _, topic := range []string{changelog, input} {
			o := testkafkaOffsets(t, env, topic)
			parts = append(parts, fmt.Sprintf("%s %d-%d %d-%d", topic, o.Start[0], o.End[0], o.Start[1], o.End[1]))
		}
		sort.Strings(parts)
		return strings.Join(parts, "; ")
	}
	before := state()
	if !strings.Contains(before, input+"/0@50") || !strings.Contains(before, input+" 0-60 0-60") {
		t.Fatalf("the user's application is not set up as meant: %s", before)
	}
	_, err = env.RestoreTopic(ctx, bench.RestoreTopicOptions{Topic: changelog, AppID: app, StoreName: ksStore,
		Case: ksCase("restore", 1), Repeats: 1, OutDir: t.TempDir()})
	for _, want := range []string{"consumer group " + app, input + " 0@50, 1@50", "another --application-id"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("restore under the user's application id: error %v does not name %q", err, want)
		}
	}
	if after := state(); after != before {
		t.Fatalf("the refused restore changed the user's application:\nbefore %s\nafter  %s", before, after)
	}
	// The way around: another application id, restorebench's own.
	own := app + "-rb"
	res, err := env.RestoreTopic(ctx, bench.RestoreTopicOptions{Topic: changelog, AppID: own, StoreName: ksStore,
		Case: ksCase("restore", 1), Repeats: 1, OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("restore under another application id: %v", err)
	}
	if r := res.Restores[0]; r.Records != 3000 || r.Error != "" {
		t.Fatalf("restore under another application id: %d records, error %q; want the 3000 restored", r.Records, r.Error)
	}
	if after := state(); after != before {
		t.Fatalf("the restore under another application id changed the user's application:\nbefore %s\nafter  %s", before, after)
	}
	checkGroupGone(t, env, own)
}
