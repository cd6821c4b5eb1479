package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/scenario"
)

// TestAuditStreamsProtocolGroup: an application on the streams group
// protocol (KIP-1071) is audited through StreamsGroupDescribe: its
// instance's tasks as the instance reports them, its changelog's
// subtopology from the group's topology, and a message saying the lags
// cannot be seen; nothing of the application changes.
func TestAuditStreamsProtocolGroup(t *testing.T) {
	needDriver(t)
	ctx := context.Background()
	lib, err := ksdriver.EnsureLib(ctx, ksdriver.DefaultKafkaStreamsVersion, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	bin := restorebenchBinary(t)
	env := connect(t, bench.Options{})
	adm := testAdmin(t, env)
	app := testkafka.TopicName(t)
	input := app + "-input"
	changelog := config.ChangelogTopic(app, "word-counts")
	t.Cleanup(func() { deleteUserApp(env, app, app+"-rb") })
	if _, err := adm.CreateTopic(ctx, 1, -1, nil, input); err != nil {
		t.Fatal(err)
	}
	if err := cluster.AwaitTopic(ctx, adm, input, 1); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(env.Cluster, kgo.DefaultProduceTopic(input))
	if err != nil {
		t.Fatal(err)
	}
	want := produceLines(t, cl, input, 1000)
	cl.Close()
	flags := append(scenario.JVMFlags(ksCase("app", 1)), "-Dstreams.group.protocol=streams")
	p := startUserApp(t, lib, flags, "restorebench.apps.WordCount", env.Cluster.Brokers, app, t.TempDir(), input)
	awaitChangelog(t, env, changelog, want, time.Minute, p)
	before := userAppState(t, env, app, input)
	cmd := exec.Command(bin, "--brokers", strings.Join(env.Cluster.Brokers, ","), "--quiet", "audit", "--application-id", app, "--max-read", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("audit of a streams-protocol group:\n%s%s", out, stderr.String())
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	if after := userAppState(t, env, app, input); after != before {
		t.Fatalf("audit changed the application:\nbefore %s\nafter  %s", before, after)
	}
	for _, want := range []string{changelog, "streams protocol (KIP-1071)", "cannot be seen", "group.streams.session.timeout.ms"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("audit's answer lacks %q", want)
		}
	}
	// StreamsGroupDescribe: the instance's tasks as it reports them, and
	// the changelog's subtopology from the group's topology.
	cmd = exec.Command(bin, "--brokers", strings.Join(env.Cluster.Brokers, ","), "--quiet", "audit", "--application-id", app,
		"--max-read", "0", "--format", "json")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("audit --format json: %v", err)
	}
	var rep audit.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	own := lastTasks(p)
	if own == nil || len(rep.Instances) != 1 {
		t.Fatalf("instances %+v; the instance says %+v", rep.Instances, own)
	}
	if in := rep.Instances[0]; !slices.Equal(in.Active, own.active) || !slices.Equal(in.Standby, own.standby) ||
		strings.Join(in.ClientIDs, ",") != own.consumers {
		t.Errorf("audit says %s active %v standby %v, the instance says %s active %v standby %v",
			in.ClientIDs, in.Active, in.Standby, own.consumers, own.active, own.standby)
	}
	if c := rep.Changelogs; len(c) != 1 || c[0].Subtopology == nil || *c[0].Subtopology != 1 || !strings.Contains(c[0].MappingNote, "topology") {
		t.Errorf("changelogs %+v: want subtopology 1 from the group's topology", c)
	}
}
