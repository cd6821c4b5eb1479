package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rootOut executes the CLI in-process and returns its stdout.
func rootOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(new(bytes.Buffer))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// TestPlanFromTopicTakesTheChangelogsOwnShape: plan --from-topic reads the
// user's changelog and answers for its size, partitions and records per
// live key, warning where the rate was measured on another shape; a flag
// given wins over what the topic holds.
func TestPlanFromTopicTakesTheChangelogsOwnShape(t *testing.T) {
	data := t.TempDir()
	capacityRun, err := filepath.Abs(filepath.Join("..", "..", "testdata", "results", "capacity"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rootOut(t, "--data-dir", data, "-q", "fill", "--records", "40000", "--keys", "10000", "--key-order", "sequential", "--partitions", "3", "--topic", "my-app-store-changelog"); err != nil {
		t.Fatal(err)
	}
	out, err := rootOut(t, "--data-dir", data, "-q", "plan", "--from", capacityRun, "--from-topic", "my-app-store-changelog", "--rto", "2m")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Your changelog (topic my-app-store-changelog)",
		"in 40,000 records over 3 partitions; 4.00 records per live key",
		"live keys 10,000",
		"taken for this plan: state 4.64 MB, 3 partitions, 4.00 records per live key",
		"your 3 partitions",
		// The capacity run's rate was measured at 8.4 records per live key
		// of 511 B: these 116 B records are 4.4 times smaller.
		"WARNING: the rate was measured at 8.4 records per live key, yours is 4.0 (1/2 of it); 511 B a record, yours is 116 B (1/4 of it)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --from-topic: missing %q in\n%s", want, out)
		}
	}
	out, err = rootOut(t, "--data-dir", data, "-q", "plan", "--from", capacityRun, "--from-topic", "my-app-store-changelog", "--rto", "2m", "--partitions", "12", "--records-per-key", "8")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "taken for this plan: state 4.64 MB\n") || !strings.Contains(out, "your 12 partitions") {
		t.Errorf("flags given must win over the topic's figures:\n%s", out)
	}
	for _, c := range []struct{ topic, want string }{
		{"no-such-changelog", "topic no-such-changelog: topic not found"},
		{"bad/name", `--from-topic: "bad/name" is not a legal Kafka topic name`},
	} {
		_, err := rootOut(t, "--data-dir", data, "-q", "plan", "--from", capacityRun, "--from-topic", c.topic)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--from-topic %s: got %v, want an error containing %q", c.topic, err, c.want)
		}
	}
}
