package integration

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/scenario"
)

// TestAuditStreamsProtocolGroup: an application on the streams group
// protocol (KIP-1071) is audited for what the classic DescribeGroups can
// see: its changelog, and a message saying its members, tasks and lags
// cannot be seen; the command succeeds, having read something.
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
	for _, want := range []string{changelog, "streams protocol (KIP-1071)", "cannot be seen"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("audit's answer lacks %q", want)
		}
	}
}
