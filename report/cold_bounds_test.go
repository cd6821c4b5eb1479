package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// TestColdTableStatesTheCPUAwareBound: a cold case with measured limits
// gets a line under the table with the bound's three terms, which one
// bounds, and the efficiency over it beside the wall-only one.
func TestColdTableStatesTheCPUAwareBound(t *testing.T) {
	l := runs.NewLimits(measure.Limit{Duration: 8 * time.Second, CPU: 9 * time.Second, Bytes: 1e9},
		measure.Limit{Duration: 10 * time.Second, CPU: 14 * time.Second, Bytes: 1e9}, 2, 2)
	r := runs.Restore{Case: "put", Phase: &runs.RestorePhase{Seconds: 12.5, TotalSeconds: 12.5, MBPerSec: 80}, Verified: true}
	r.Phase.Limits = l.For(r.Phase.MBPerSec)
	plain := runs.Restore{Case: "no-limits", Phase: &runs.RestorePhase{Seconds: 12, TotalSeconds: 12, MBPerSec: 83}, Verified: true}
	var buf bytes.Buffer
	printCold(&buf, []runs.Restore{r, plain})
	out := buf.String()
	want := "put: max(8.00, 10.00, (9.00 + 14.00) / 2 = 11.50) = 11.50 s (cpu), 87.0 MB/s; efficiency 80%, over the CPU-aware bound 92%"
	if !strings.Contains(out, want) {
		t.Fatalf("cold table lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "no-limits: max(") {
		t.Fatalf("a case without limits got a bound line:\n%s", out)
	}
}
