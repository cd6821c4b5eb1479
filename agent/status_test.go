package agent

import (
	"context"
	"testing"
	"time"

	"github.com/restorebench/restorebench/internal/testkafka"
)

// TestStatus: a coordinator's status of its agent (heard, not lost, its
// clock estimated, a lease running out about LeaseTTL after the last one
// sent) and the agent's own (the run it follows, live, and its process),
// and both once the coordinator has gone (its lease expired, the process
// stopped).
func TestStatus(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", 200*time.Millisecond)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "run9", LeaseTTL: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := co.Start(ctx, "a1", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}}); err != nil {
		t.Fatal(err)
	}
	st := co.Status()
	if len(st) != 1 || st[0].Name != "a1" || !st[0].Heard || st[0].Lost || st[0].Clock.Samples == 0 || st[0].SinceHeard > 5*time.Second {
		t.Fatalf("coordinator's status %+v", st)
	}
	if left := time.Until(st[0].LeaseExpires); left <= 0 || left > time.Second {
		t.Errorf("lease runs out in %s, want within the 1 s TTL", left)
	}
	self := ta.a.Status()
	if self.Name != "a1" || self.Processes != 1 || len(self.Leases) != 1 || self.Leases[0].Run != "run9" || self.Leases[0].Expired {
		t.Fatalf("agent's status %+v", self)
	}
	co.Close()
	for {
		self = ta.a.Status()
		if self.Processes == 0 && len(self.Leases) == 1 && self.Leases[0].Expired {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("agent's status after its coordinator went: %+v", self)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
