package bench

import (
	"testing"
)

// queriesProfile restores one fill three ways under a query load: without
// stale reads (Kafka Streams' default), with them, and with a bulk load
// that has no store to read until it finishes.
const queriesProfile = `
name: queries-test
fill:
  records: 150000
  keys: 30000
  value_size: 50-200
  tombstone_ratio: 0.05
  partitions: 3
cases:
  - name: default
    queries: {rate: 4000, after: 1s}
  - name: stale
    queries: {rate: 4000, stale: true, after: 1s}
  - name: bulk
    strategy: bulk
    queries: {rate: 4000, after: 1s}
`

// TestLookupsDuringARestore is issue 21's model read path: lookups beside
// a cold restore are refused while a store restores unless stale reads
// are allowed, every answer is judged against the fill and none is wrong,
// a restored store answers only final values, and every lookup is
// answered again by the time the last store is restored.
func TestLookupsDuringARestore(t *testing.T) {
	res := runYAML(t, queriesProfile, "q.yaml")
	for _, r := range res.Restores {
		q := r.Queries
		if q == nil || !r.Verified {
			t.Fatalf("%s: queries %+v, verified %v (%s)", r.Case, q, r.Verified, r.Error)
		}
		if q.Wrong != 0 || q.Answered != q.Correct+q.StaleReads || q.Lookups != q.Answered+q.Refused || q.After.Count == 0 {
			t.Errorf("%s: %+v", r.Case, q)
		}
		if q.ServedAgainSeconds == nil || *q.ServedAgainSeconds > q.RestoredSeconds+0.05 {
			t.Errorf("%s: served again at %v, the last store restored at %.3f s", r.Case, q.ServedAgainSeconds, q.RestoredSeconds)
		}
		switch r.Case {
		case "default", "bulk":
			if q.StaleReads != 0 || q.Refused == 0 {
				t.Errorf("%s: %d stale reads, %d refused: a restoring store serves no reads without stale stores", r.Case, q.StaleReads, q.Refused)
			}
		case "stale":
			if *q.FirstAnsweredSeconds >= q.RestoredSeconds || q.During.Count == 0 {
				t.Errorf("stale: first answer at %.3f s, restored at %.3f s, %d answers during: stale reads are served while restoring", *q.FirstAnsweredSeconds, q.RestoredSeconds, q.During.Count)
			}
		}
	}
}

// TestLookupsDuringAWarmRestart: with stale reads, a warm restart's
// reopened stores answer at once, with the values they held when stopped
// (stale for the keys written while they were down) until they catch up,
// and never a wrong one; the fallback step runs no lookups.
func TestLookupsDuringAWarmRestart(t *testing.T) {
	res := runYAML(t, `
name: queries-warm
fill:
  records: 100000
  keys: 20000
  value_size: 50-200
  partitions: 2
cases:
  - name: warm
    scenario: warm
    warm:
      changed: [60000]
    queries: {rate: 4000, stale: true, after: 500ms}
`, "qw.yaml")
	var warm int
	for _, r := range res.Restores {
		q := r.Queries
		if r.Step.Kind == "fallback" {
			if q != nil || !r.Verified {
				t.Errorf("fallback: verified %v, queries %+v", r.Verified, q)
			}
			continue
		}
		if q == nil || !r.Verified || q.Wrong != 0 || q.Answered != q.Correct+q.StaleReads {
			t.Fatalf("%s: verified %v, queries %+v (%s)", r.Case, r.Verified, q, r.Error)
		}
		if r.Step.Kind == "warm" {
			warm++
			// Answered before the changes were restored (not timed against a
			// wall-clock bound, which a busy machine misses).
			if *q.FirstAnsweredSeconds >= q.RestoredSeconds || q.StaleReads == 0 || q.MaxStaleBehind == 0 {
				t.Errorf("warm step: first answer at %.3f s, restored at %.3f s, %d stale reads (max %d records behind): the reopened stores answer at once, with what they held",
					*q.FirstAnsweredSeconds, q.RestoredSeconds, q.StaleReads, q.MaxStaleBehind)
			}
		}
	}
	if warm != 1 {
		t.Fatalf("%d warm steps with queries, want 1", warm)
	}
}
