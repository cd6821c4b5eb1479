package recovery_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/recovery"
)

// TestEveryDriverVersionHasARule: each version a kafka-streams case can run
// has a crash rule under both guarantees in both situations, and
// transactional stores exactly where the version has them, so no crash
// answer goes without one.
func TestEveryDriverVersionHasARule(t *testing.T) {
	if got, want := recovery.Versions(), config.KafkaStreamsVersionNames(); !slices.Equal(got, want) {
		t.Fatalf("rules for %v, the driver builds %v", got, want)
	}
	for _, v := range recovery.Versions() {
		for _, s := range []recovery.Situation{recovery.Processing, recovery.AfterRestore} {
			for _, g := range []string{recovery.AtLeastOnce, recovery.ExactlyOnceV2} {
				if _, err := recovery.AfterCrash(v, g, false, s); err != nil {
					t.Errorf("%s %s %s: %v", v, g, s, err)
				}
			}
			_, err := recovery.AfterCrash(v, recovery.ExactlyOnceV2, true, s)
			if has := recovery.HasTransactionalStores(v); has != (err == nil) {
				t.Errorf("%s %s with transactional stores: %v (has them: %v)", v, s, err, has)
			}
		}
	}
}

// TestCrashRulesAsMeasured: the rules measured on the real client. While
// processing, exactly-once without transactional stores restores the
// store whole on every version; before 4.3 at-least-once resumes from its
// last checkpoint; from 4.3 at-least-once, and transactional stores on
// 4.4.0, resume where the store last flushed (whole if it never did).
// Right after a restore, 3.9.1 resumes from the restore's checkpoint under
// both guarantees, 4.2.2 under at-least-once only. Each rule says what it
// rests on.
func TestCrashRulesAsMeasured(t *testing.T) {
	for _, c := range []struct {
		version, guarantee string
		transactional      bool
		situation          recovery.Situation
		want               recovery.Restores
		why                string
	}{
		{"3.9.1", recovery.ExactlyOnceV2, false, recovery.Processing, recovery.Whole, "TaskCorruptedException"},
		{"4.3.1", recovery.ExactlyOnceV2, false, recovery.Processing, recovery.Whole, "TaskCorruptedException"},
		{"4.4.0", recovery.ExactlyOnceV2, true, recovery.Processing, recovery.SinceFlush, "restored 362,017 of them"},
		{"4.4.0", recovery.ExactlyOnceV2, true, recovery.AfterRestore, recovery.SinceFlush, "KIP-892"},
		{"4.2.2", recovery.AtLeastOnce, false, recovery.Processing, recovery.SinceCheckpoint, "resumed from it"},
		{"3.9.1", "", false, recovery.Processing, recovery.SinceCheckpoint, "resumed from it"},
		{"4.3.1", recovery.AtLeastOnce, false, recovery.Processing, recovery.SinceFlush, "KIP-1035"},
		{"4.4.0", recovery.AtLeastOnce, false, recovery.Processing, recovery.SinceFlush, "last flushed"},
		{"3.9.1", recovery.ExactlyOnceV2, false, recovery.AfterRestore, recovery.SinceCheckpoint, "nothing was processed since"},
		{"3.9.1", recovery.AtLeastOnce, false, recovery.AfterRestore, recovery.SinceCheckpoint, "nothing was processed since"},
		{"4.2.2", recovery.AtLeastOnce, false, recovery.AfterRestore, recovery.SinceCheckpoint, "nothing was processed since"},
		{"4.2.2", recovery.ExactlyOnceV2, false, recovery.AfterRestore, recovery.Whole, "dropped once the task runs"},
		{"4.3.0", recovery.AtLeastOnce, false, recovery.AfterRestore, recovery.SinceFlush, "never flushed"},
		{"4.4.0", recovery.ExactlyOnceV2, false, recovery.AfterRestore, recovery.Whole, "dropped once the task runs"},
	} {
		r, err := recovery.AfterCrash(c.version, c.guarantee, c.transactional, c.situation)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if r.Restores != c.want || !strings.Contains(r.Why, c.why) || !strings.HasPrefix(r.Evidence, "measured on "+c.version) {
			t.Errorf("%+v: %+v, want %s because of %s, measured", c, r, c.want, c.why)
		}
	}
	r, _ := recovery.AfterCrash("4.0.2", recovery.ExactlyOnceV2, false, recovery.AfterRestore)
	if !strings.HasPrefix(r.Evidence, "not measured on 4.0.2: the rule measured on 4.2.2") {
		t.Errorf("4.0.2's rule claims a measurement: %s", r.Evidence)
	}
	if s := r.String(); !strings.HasPrefix(s, "Kafka Streams 4.0.2, a crash right after a restore under exactly_once_v2: the store is restored whole (") {
		t.Errorf("rule text: %s", s)
	}
}

// TestCrashRuleRefusals: what has no rule is an error naming why.
func TestCrashRuleRefusals(t *testing.T) {
	for _, c := range []struct {
		version, guarantee string
		transactional      bool
		situation          recovery.Situation
		want               string
	}{
		{"3.6.2", recovery.AtLeastOnce, false, recovery.Processing, `Kafka Streams "3.6.2": no crash rule`},
		{"4.4.0", "exactly_once", false, recovery.Processing, `"exactly_once" is not at_least_once or exactly_once_v2`},
		{"4.3.1", recovery.ExactlyOnceV2, true, recovery.Processing, "4.3.1 has no transactional state stores"},
		{"4.4.0", recovery.AtLeastOnce, true, recovery.Processing, "under exactly_once_v2 only"},
		{"4.4.0", recovery.AtLeastOnce, false, "idle", `situation "idle" is not processing or after-restore`},
	} {
		if _, err := recovery.AfterCrash(c.version, c.guarantee, c.transactional, c.situation); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
}
