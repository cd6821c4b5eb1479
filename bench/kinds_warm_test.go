package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
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
    warm: {changed: [0, 1500, 25%], fallback: true}
`

// TestWarmRestartOfEachStoreKind: on the model engine each kind restarts
// warm, restoring only the records written since its stores' committed
// offsets through its own conversion (timestamps before values, segments
// and stream time), and each restart verifies against what the changelog
// holds then; the fallback step, below a deleted prefix, verifies too. A
// window or session store skips the restart with nothing written (its
// stream time would be unknown).
func TestWarmRestartOfEachStoreKind(t *testing.T) {
	res := runYAML(t, kindsWarmProfile, "kinds-warm.yaml")
	steps := map[config.StoreKind][]string{}
	for _, r := range res.Restores {
		if !r.Verified || r.Warm == nil {
			t.Fatalf("%s: verified=%v warm=%+v (%s)", r.Case, r.Verified, r.Warm, r.Error)
		}
		k := r.Params.StoreKind
		steps[k] = append(steps[k], string(r.Warm.Step))
		checkKindWarmStep(t, r)
	}
	want := map[config.StoreKind]string{
		config.StoreTimestampedKeyValue: "cold warm warm warm fallback",
		config.StoreWindow:              "cold warm warm fallback",
		config.StoreSession:             "cold warm warm fallback",
	}
	for k, w := range want {
		if got := strings.Join(steps[k], " "); got != w {
			t.Errorf("%s steps %q, want %q", k, got, w)
		}
	}
}

// checkKindWarmStep checks one verified restore of kindsWarmProfile: a
// cold one reads at most the fill (a window or session restore seeks past
// the records retention expired; a timestamped one reads them all), a warm
// one exactly the records written, every task resuming, a fallback one
// from the log start.
func checkKindWarmStep(t *testing.T, r runs.Restore) {
	t.Helper()
	switch r.Warm.Step {
	case runs.StepCold:
		if r.Records > 12000 || (r.Records != 12000 && r.Params.StoreKind == config.StoreTimestampedKeyValue) {
			t.Errorf("%s cold: %d records of 12000", r.Case, r.Records)
		}
	case runs.StepWarm:
		if r.Records != r.Warm.Changed || r.Warm.WarmTasks != 2 || r.Warm.FallbackTasks != 0 {
			t.Errorf("%s warm: %d records, %+v", r.Case, r.Records, r.Warm)
		}
	case runs.StepFallback:
		if r.Warm.FallbackTasks == 0 || !strings.Contains(strings.Join(r.Warm.Fallbacks, " "), "below the log start") {
			t.Errorf("%s fallback: %+v", r.Case, r.Warm)
		}
	}
}

// kindsStandbyProfile keeps a model standby of a window store: 4 h of
// events, 10 min windows, 1 h retention; the standby's writes continue the
// fill's event times, so expiry goes on while it follows. (Session stores
// do not run standbys yet: config refuses them.)
const kindsStandbyProfile = `
name: kinds-standby
store_kinds: [window]
fill: {records: 20000, keys: 400, value_size: 20-60, partitions: 2, time_range: 4h, window_size: 10m, retention: 1h}
cases:
  - name: standby
    scenario: standby
    standby: {rates: [3000], duration: 2s, pauses: [1s], pause_rate: 3000, find_max: false}
`

// TestStandbyOfSegmentedStores: a model standby of a window store
// restores, follows the changelog written at a rate, stops with its
// segments kept and catches up, and verifies against what the
// changelog holds after every step.
func TestStandbyOfSegmentedStores(t *testing.T) {
	res := runYAML(t, kindsStandbyProfile, "kinds-standby.yaml")
	want := "window:initial window:rate window:pause"
	var got []string
	for _, r := range res.Restores {
		if !r.Verified || r.Standby == nil {
			t.Fatalf("%s: verified=%v %+v (%s)", r.Case, r.Verified, r.Standby, r.Error)
		}
		got = append(got, string(r.Params.StoreKind)+":"+string(r.Standby.Step))
		if r.Standby.Step == runs.StepPause && (r.Standby.CatchUpSeconds <= 0 || !r.Standby.Sustained) {
			t.Errorf("%s pause step: %+v", r.Case, r.Standby)
		}
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("steps %q, want %q", g, want)
	}
}
