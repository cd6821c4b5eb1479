package bench

import (
	"context"
	"io"
	"testing"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/runs"
)

// TestTwoRunsHoldingOneTopic: two hold_cleaner runs of one data directory
// on one topic overlap (as two `restorebench run`s of the calibration
// profiles, reusing one fill, do). While either still holds, the topic
// stays at the held value, so neither run's restores go unheld while its
// record says held; once both released, the topic's own
// min.compaction.lag.ms is back exactly, whichever run released first.
// Both runs record the topic's own setting, not the first run's hold.
func TestTwoRunsHoldingOneTopic(t *testing.T) {
	for _, c := range []struct {
		name string
		// own is the topic's min.compaction.lag.ms before the runs ("":
		// none); created: the first run's fill created the topic (held
		// from creation), so the first hold finds it at the held value.
		own          string
		created      bool
		firstRelease int
	}{
		{name: "own setting, first run releases first", own: "7777", firstRelease: 0},
		{name: "own setting, second run releases first", own: "7777", firstRelease: 1},
		{name: "no setting of its own", own: "", firstRelease: 0},
		{name: "created held by the first run's fill", created: true, firstRelease: 0},
		{name: "created held, second run releases first", created: true, firstRelease: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := testkafka.Embedded(t)
			dataDir := t.TempDir()
			ctx := context.Background()
			var envs [2]*Env
			for i := range envs {
				env, err := Connect(ctx, Options{Brokers: cfg.Brokers, DataDir: dataDir, Log: io.Discard, Quiet: true})
				if err != nil {
					t.Fatal(err)
				}
				defer env.Close()
				envs[i] = env
			}
			const topic = "shared-changelog"
			configs := map[string]string{}
			if c.own != "" {
				configs["min.compaction.lag.ms"] = c.own
			}
			if c.created {
				configs = heldFromCreation(true)
			}
			adm, done, err := envs[0].Admin()
			if err != nil {
				t.Fatal(err)
			}
			defer done()
			if err := cluster.CreateChangelog(ctx, adm, topic, 1, configs); err != nil {
				t.Fatal(err)
			}
			var releases [2]func()
			var fills [2]runs.Fill
			for i, env := range envs {
				fills[i].Reused = !(c.created && i == 0)
				if releases[i], err = env.holdCleaner(ctx, topic, &fills[i]); err != nil {
					t.Fatalf("run %d's hold: %v", i+1, err)
				}
				if got := lagOverride(t, env, topic); got != cluster.HoldLag {
					t.Fatalf("held by run %d: min.compaction.lag.ms %q", i+1, got)
				}
				if fills[i].CleanerHold == nil || fills[i].CleanerHold.Previous != c.own {
					t.Errorf("run %d records the hold %+v, want the topic's own setting %q as previous", i+1, fills[i].CleanerHold, c.own)
				}
			}
			releases[c.firstRelease]()
			if got := lagOverride(t, envs[0], topic); got != cluster.HoldLag {
				t.Errorf("run %d released, run %d still restoring: min.compaction.lag.ms %q, want still held", c.firstRelease+1, 2-c.firstRelease, got)
			}
			releases[1-c.firstRelease]()
			if got := lagOverride(t, envs[0], topic); got != c.own {
				t.Fatalf("both released: min.compaction.lag.ms %q, want the topic's own %q", got, c.own)
			}
		})
	}
}
