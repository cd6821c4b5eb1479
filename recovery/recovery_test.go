package recovery_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/recovery"
)

// TestEveryDriverVersionHasARule: each version a kafka-streams case can run
// has a crash rule under both guarantees, and transactional stores exactly
// where the version has them, so no crash answer goes without one.
func TestEveryDriverVersionHasARule(t *testing.T) {
	if got, want := recovery.Versions(), config.KafkaStreamsVersionNames(); !slices.Equal(got, want) {
		t.Fatalf("rules for %v, the driver builds %v", got, want)
	}
	for _, v := range recovery.Versions() {
		for _, g := range []string{recovery.AtLeastOnce, recovery.ExactlyOnceV2} {
			if _, err := recovery.AfterCrash(v, g, false); err != nil {
				t.Errorf("%s %s: %v", v, g, err)
			}
		}
		_, err := recovery.AfterCrash(v, recovery.ExactlyOnceV2, true)
		if has := recovery.HasTransactionalStores(v); has != (err == nil) {
			t.Errorf("%s with transactional stores: %v (has them: %v)", v, err, has)
		}
	}
}

// TestCrashRulesAsMeasured: the rules the crash matrix measured on the real
// client: exactly-once restores the store whole on every version, with
// transactional stores too on 4.4.0; at-least-once restores since its last
// checkpoint; the rule says what it rests on.
func TestCrashRulesAsMeasured(t *testing.T) {
	for _, c := range []struct {
		version, guarantee string
		transactional      bool
		want               recovery.Restores
		why                string
	}{
		{"3.9.1", recovery.ExactlyOnceV2, false, recovery.Whole, "TaskCorruptedException"},
		{"4.3.1", recovery.ExactlyOnceV2, false, recovery.Whole, "TaskCorruptedException"},
		{"4.4.0", recovery.ExactlyOnceV2, true, recovery.Whole, "createStartupTaskStateManager"},
		{"3.9.1", recovery.AtLeastOnce, false, recovery.SinceCheckpoint, ".checkpoint file"},
		{"4.4.0", "", false, recovery.SinceCheckpoint, "KIP-1035"},
		{"4.3.0", recovery.AtLeastOnce, false, recovery.SinceCheckpoint, "KAFKA-20663"},
	} {
		r, err := recovery.AfterCrash(c.version, c.guarantee, c.transactional)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if r.Restores != c.want || !strings.Contains(r.Why, c.why) || !strings.HasPrefix(r.Evidence, "measured") {
			t.Errorf("%s %s transactional=%v: %+v, want %s because of %s, measured", c.version, c.guarantee, c.transactional, r, c.want, c.why)
		}
	}
	if r, _ := recovery.AfterCrash("4.0.2", recovery.ExactlyOnceV2, false); !strings.Contains(r.Evidence, "not measured") {
		t.Errorf("4.0.2's rule claims a measurement: %s", r.Evidence)
	}
}

// TestCrashRuleRefusals: what has no rule is an error naming why.
func TestCrashRuleRefusals(t *testing.T) {
	for _, c := range []struct {
		version, guarantee string
		transactional      bool
		want               string
	}{
		{"3.6.2", recovery.AtLeastOnce, false, `Kafka Streams "3.6.2": no crash rule`},
		{"4.4.0", "exactly_once", false, `"exactly_once" is not at_least_once or exactly_once_v2`},
		{"4.3.1", recovery.ExactlyOnceV2, true, "4.3.1 has no transactional state stores"},
		{"4.4.0", recovery.AtLeastOnce, true, "under exactly_once_v2 only"},
	} {
		if _, err := recovery.AfterCrash(c.version, c.guarantee, c.transactional); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
}
