package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/internal/testkafka"
)

// TestStartRefusedOnAFullDisk: a start needing more than the agent's
// state directory has free is refused, with one error naming the agent,
// the free and the needed bytes, and nothing starts; one needing less
// starts, and disk_usage counts what its state directory holds.
func TestStartRefusedOnAFullDisk(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "d1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"d1"}, Run: "rund"})
	ctx := context.Background()
	free, err := freeBytes(ta.dir)
	if err != nil {
		t.Fatal(err)
	}
	need := free + 1<<40
	spec := ProcessSpec{Fleet: "app", Instance: "i0", Properties: map[string]string{"application.id": "app"}, NeedBytes: need}
	_, err = co.Start(ctx, "d1", spec)
	if err == nil {
		t.Fatal("started on a disk without the space the instance needs")
	}
	for _, want := range []string{"agent d1", "not starting instance i0", "bytes (", "free, the instance needs " + strconv.FormatInt(need, 10)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if errors.Is(err, ErrAgentLost) || co.Lost("d1") != nil {
		t.Errorf("a refused start lost the agent: %v", err)
	}
	if ta.a.Processes() != 0 {
		t.Fatalf("%d processes run after the refusal", ta.a.Processes())
	}
	spec.NeedBytes = 1
	p, err := co.Start(ctx, "d1", spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	state := filepath.Join(ta.dir, "rund", "app", "i0", "state")
	if err := os.WriteFile(filepath.Join(state, "blob"), make([]byte, 12345), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := co.DiskUsage(ctx, "d1", "app", "i0")
	if err != nil || n < 12345 {
		t.Fatalf("disk usage %d, %v: want at least the 12345 bytes written", n, err)
	}
}
