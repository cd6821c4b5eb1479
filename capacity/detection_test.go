package capacity

import (
	"math"
	"testing"

	"github.com/restorebench/restorebench/warmup"
)

// The planner and the audit price failure detection with one model: at
// Kafka's defaults and one surviving member it is the 45 s session timeout
// the planner has always assumed, within session ± heartbeat; more
// surviving threads wait longer for the last to hear of the rebalance, as
// the audit says (3 threads: 3/4 of an interval after expiry on average).
func TestFailureDetectionOneModel(t *testing.T) {
	if DefaultFailureDetectionSeconds != 45 {
		t.Errorf("the planner's default detection %v s, want Kafka's 45 s session timeout", DefaultFailureDetectionSeconds)
	}
	d := FailureDetection(warmup.DefaultSessionTimeout.Seconds(), warmup.DefaultHeartbeatInterval.Seconds(), 1)
	if d.Value != 45 || d.Lo != 42 || d.Hi != 48 || d.Unit != UnitSeconds {
		t.Errorf("one member at the defaults: %+v, want 45 s in 42-48 s", d)
	}
	if d := FailureDetection(10, 2, 3); math.Abs(d.Value-(10-1+2*3.0/4)) > 1e-12 || d.Lo != 8 || d.Hi != 12 {
		t.Errorf("three members, 10 s session, 2 s heartbeat: %+v", d)
	}
	if a, b := FailureDetection(10, 2, 0), FailureDetection(10, 2, 1); a != b {
		t.Errorf("no member counted %+v, one %+v: at least one is", a, b)
	}
}
