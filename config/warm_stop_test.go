package config

import (
	"errors"
	"strings"
	"testing"
)

// TestWarmStop: a warm case stops its instance cleanly unless it says
// kill, which only the kafka-streams engine can do; anything else is
// refused at warm.stop.
func TestWarmStop(t *testing.T) {
	c := ksCase()
	c.Scenario = ScenarioWarm
	if err := c.Finalize(); err != nil || c.Warm.Stop != WarmStopClean || c.Warm.Kills() {
		t.Fatalf("default: %v, stop %q", err, c.Warm.Stop)
	}
	c.Warm.Stop = WarmStopKill
	if err := c.Finalize(); err != nil || !c.Warm.Kills() {
		t.Fatalf("kill on kafka-streams: %v", err)
	}
	for _, tc := range []struct {
		engine Engine
		stop   WarmStop
		want   string
	}{
		{EngineModel, WarmStopKill, "kill runs on the kafka-streams engine only"},
		{EngineKafkaStreams, "sigterm", `"sigterm" is not clean or kill`},
	} {
		c := DefaultCase()
		c.Engine, c.Scenario = tc.engine, ScenarioWarm
		c.Warm = DefaultWarm()
		c.Warm.Stop = tc.stop
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "warm.stop" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s stop %q: %v, want warm.stop: %s", tc.engine, tc.stop, err, tc.want)
		}
	}
}
