package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// crashModelProfile kills the model engine's instance before each restart
// (warm.stop: kill) under at_least_once, exactly_once_v2, and
// exactly_once_v2 with transactional state stores.
const crashModelProfile = `
name: crash-model
fill: {records: 8000, keys: 500, value_size: 20-60, tombstone_ratio: 0.02, partitions: 2}
cases:
  - name: alos
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill}
  - name: eos
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill}
    streams: {processing.guarantee: exactly_once_v2}
  - name: alos-3.9.1
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill, crash_rule: 3.9.1}
  - name: alos-flushed
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill}
    write_buffer_size: 64KiB
  - name: eos-tss
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill}
    streams: {processing.guarantee: exactly_once_v2, enable.transactional.statestores: "true"}
`

// TestModelCrashAppliesKafkaStreamsRule: after its emulated SIGKILL right
// after a restore the model engine restores as Kafka Streams 4.4.0 was
// measured to (the crash profile): every store wiped and restored whole,
// under at-least-once and exactly-once, transactional stores or not, the
// fill counted as restored again. Each restart verifies, and its record
// names the rule it applied.
func TestModelCrashAppliesKafkaStreamsRule(t *testing.T) {
	res := runYAML(t, crashModelProfile, "crash-model.yaml")
	seen := 0
	for _, r := range res.Restores {
		if !r.Verified || r.Warm == nil {
			t.Fatalf("%s: verified=%v warm=%+v (%s)", r.Case, r.Verified, r.Warm, r.Error)
		}
		if r.Warm.Step != runs.StepWarm {
			continue
		}
		seen++
		w := r.Warm
		if w.Stop != "kill" {
			t.Errorf("%s: stop %q", r.Case, w.Stop)
		}
		if r.Step.Case == "alos-3.9.1" {
			if r.Records != 1000 || w.WarmTasks != 2 || w.Behind != 0 || !strings.HasPrefix(w.CrashRule, "Kafka Streams 3.9.1, a crash right after a restore "+
				"under at_least_once: the store is kept and restores from its last checkpoint") {
				t.Errorf("alos-3.9.1: %d records, %+v; want the 1000 written since, both tasks resumed", r.Records, w)
			}
			continue
		}
		if r.Records != 9000 || w.FallbackTasks != 2 || w.Behind != 8000 || !strings.HasPrefix(w.CrashRule, "Kafka Streams 4.4.0, a crash right after a restore under ") ||
			!strings.Contains(strings.Join(w.Fallbacks, " "), "emulated SIGKILL") {
			t.Errorf("%s: %d records, %+v; want all 9000 restored, the fill's 8000 again", r.Step.Case, r.Records, w)
		}
	}
	if seen != 5 {
		t.Errorf("%d restarts after a kill, want 5", seen)
	}
}

// crashModelWindowProfile kills a window store's model instance under
// 4.3.1's rule (its restore reads the changelog from the log start) and
// 4.4.0's (it seeks past what the retention expired).
const crashModelWindowProfile = `
name: crash-model-window
store_kinds: [window]
fill: {records: 8000, keys: 300, value_size: 20-60, partitions: 2, time_range: 4h, window_size: 10m, retention: 1h}
cases:
  - name: w-4.3.1
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill, crash_rule: 4.3.1}
  - name: w-4.4.0
    scenario: warm
    warm: {changed: [1000], fallback: false, stop: kill, crash_rule: 4.4.0}
`

// TestModelCrashOfAWindowStoreReadsAsItsVersionDoes: restored whole after
// the emulated kill, a window store is read from the log start under
// 4.3.1's rule (the fill and the 1000 written since, all of it restored
// again) and from the first record within its retention under 4.4.0's;
// both verify, and "again" counts from where each restore started.
func TestModelCrashOfAWindowStoreReadsAsItsVersionDoes(t *testing.T) {
	res := runYAML(t, crashModelWindowProfile, "crash-model-window.yaml")
	got := map[string]runs.Restore{}
	for _, r := range res.Restores {
		if r.Warm != nil && r.Warm.Step == runs.StepWarm {
			got[r.Step.Case] = r
		}
	}
	old, now := got["w-4.3.1"], got["w-4.4.0"]
	if !old.Verified || !now.Verified || old.Records != 9000 || old.Warm.Behind != 8000 {
		t.Fatalf("4.3.1: verified %v, %d records, %d again; 4.4.0: verified %v", old.Verified, old.Records, old.Warm.Behind, now.Verified)
	}
	if now.Records >= old.Records || now.Warm.Behind != now.Records-1000 {
		t.Errorf("4.4.0: %d records, %d again; want fewer than 4.3.1's %d, all but the 1000 new restored again", now.Records, now.Warm.Behind, old.Records)
	}
}
