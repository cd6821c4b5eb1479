package bench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// kindsWarmProfile restarts a timestamped, a window and a session store
// warm: 8 h of events, 30 min windows, 2 h retention, so the warm steps'
// records (which continue the fill's event times) move stream time on and
// expire windows and sessions the cold restore kept.
const kindsWarmProfile = `
name: kinds-warm
store_kinds: [timestamped-key-value, window, session]
fill: {records: 12000, keys: 300, value_size: 20-60, tombstone_ratio: 0.02, partitions: 2, time_range: 8h, window_size: 30m, retention: 2h}
cases:
  - name: warm
    scenario: warm
    warm: {changed: [1500, 25%], fallback: true}
`

// TestWarmRestartOfEachStoreKind: on the model engine each kind restarts
// warm, restoring only the records written since its stores' committed
// offsets through its own conversion (timestamps before values, segments
// and stream time), and each restart verifies against what the changelog
// holds then; the fallback step, below a deleted prefix, verifies too.
func TestWarmRestartOfEachStoreKind(t *testing.T) {
	plan, err := profiles.Parse([]byte(kindsWarmProfile), "kinds-warm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restores) != 3*4 {
		t.Fatalf("%d records, want 3 kinds × (cold + 2 warm + fallback)", len(res.Restores))
	}
	want := []struct {
		step    runs.StepKind
		records int64
	}{{runs.StepCold, 12000}, {runs.StepWarm, 1500}, {runs.StepWarm, 3000}, {runs.StepFallback, 0}}
	for i, r := range res.Restores {
		w := want[i%4]
		if !r.Verified || r.Warm == nil || r.Warm.Step != w.step {
			t.Fatalf("%s record %d: verified=%v warm=%+v (%s)", r.Case, i, r.Verified, r.Warm, r.Error)
		}
		switch w.step {
		case runs.StepCold:
			// A window or session restore seeks past the records already
			// expired by retention; a timestamped one reads them all.
			if r.Records > w.records || (r.Records != w.records && strings.Contains(r.Case, "timestamped")) {
				t.Errorf("%s cold: %d records of %d", r.Case, r.Records, w.records)
			}
		case runs.StepWarm:
			if r.Records != w.records || r.Warm.WarmTasks != 2 || r.Warm.FallbackTasks != 0 {
				t.Errorf("%s warm: %d records (want %d), %+v", r.Case, r.Records, w.records, r.Warm)
			}
		case runs.StepFallback:
			if r.Warm.FallbackTasks == 0 || !strings.Contains(strings.Join(r.Warm.Fallbacks, " "), "below the log start") {
				t.Errorf("%s fallback: %+v", r.Case, r.Warm)
			}
		}
	}
}
