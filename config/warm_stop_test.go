package config

import (
	"errors"
	"strings"
	"testing"
)

// TestWarmStop: a warm case stops its instance cleanly unless it says
// kill (on the model engine an emulated crash); anything else is refused
// at warm.stop.
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
	m := DefaultCase()
	m.Scenario, m.Warm = ScenarioWarm, DefaultWarm()
	m.Warm.Stop = WarmStopKill
	if err := m.Finalize(); err != nil || !m.Warm.Kills() {
		t.Fatalf("kill on the model: %v", err)
	}
	for _, tc := range []struct {
		engine Engine
		stop   WarmStop
		want   string
	}{
		{EngineKafkaStreams, "sigterm", `"sigterm" is not clean or kill`},
		{EngineModel, "", ""},
	} {
		c := DefaultCase()
		c.Engine, c.Scenario = tc.engine, ScenarioWarm
		c.Warm = DefaultWarm()
		c.Warm.Stop = tc.stop
		err := c.Finalize()
		if tc.want == "" {
			if err != nil || c.Warm.Kills() {
				t.Errorf("%s stop %q: %v, kills %v", tc.engine, tc.stop, err, c.Warm.Kills())
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "warm.stop" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s stop %q: %v, want warm.stop: %s", tc.engine, tc.stop, err, tc.want)
		}
	}
}

// TestTransactionalStateStoresSetting: enable.transactional.statestores is
// true or false, true only under exactly_once_v2 and, on kafka-streams,
// only on a version that has it (4.4); the model engine takes it for its
// crash rule.
func TestTransactionalStateStoresSetting(t *testing.T) {
	for _, tc := range []struct {
		engine            Engine
		version, value, g string
		want              string
	}{
		{EngineKafkaStreams, "4.4.0", "true", ExactlyOnceV2, ""},
		{EngineModel, "", "true", ExactlyOnceV2, ""},
		{EngineModel, "", "false", "", ""},
		{EngineKafkaStreams, "4.3.1", "true", ExactlyOnceV2, "true on Kafka Streams 4.3.1 (kafka_streams_version): it needs transactional state stores"},
		{EngineKafkaStreams, "4.4.0", "true", "", "true takes effect under processing.guarantee exactly_once_v2 only; this case runs at_least_once"},
		{EngineModel, "", "yes", ExactlyOnceV2, `"yes" is not true or false`},
	} {
		c := DefaultCase()
		c.Engine, c.KafkaStreamsVersion = tc.engine, tc.version
		c.Streams = map[string]string{PropTransactionalStateStores: tc.value}
		if tc.g != "" {
			c.Streams[PropProcessingGuarantee] = tc.g
		}
		err := c.Finalize()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "streams."+PropTransactionalStateStores || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want streams.%s: %s", tc, err, PropTransactionalStateStores, tc.want)
		}
	}
}

// TestWarmCrashRule: warm.crash_rule names the Kafka Streams version whose
// crash rule a model case's kill follows (default the driver's); it is
// refused on kafka-streams cases, without stop kill, and for a version
// without a rule or without the case's settings.
func TestWarmCrashRule(t *testing.T) {
	m := DefaultCase()
	m.Scenario, m.Warm = ScenarioWarm, DefaultWarm()
	m.Warm.Stop = WarmStopKill
	if err := m.Finalize(); err != nil || m.Warm.CrashRuleVersion() != DriverKafkaStreamsVersion {
		t.Fatalf("default rule: %v, %q", err, m.Warm.CrashRuleVersion())
	}
	m.Warm.CrashRule = "3.9.1"
	if err := m.Finalize(); err != nil || m.Warm.CrashRuleVersion() != "3.9.1" {
		t.Fatalf("3.9.1's rule: %v", err)
	}
	for _, tc := range []struct {
		engine  Engine
		stop    WarmStop
		rule    string
		streams map[string]string
		want    string
	}{
		{EngineKafkaStreams, WarmStopKill, "3.9.1", nil, "crash_rule names the rule the model engine emulates"},
		{EngineModel, WarmStopClean, "3.9.1", nil, "3.9.1 is set only with stop: kill"},
		{EngineModel, WarmStopKill, "3.6.2", nil, `Kafka Streams "3.6.2": no crash rule`},
		{EngineModel, WarmStopKill, "4.3.1", map[string]string{PropProcessingGuarantee: ExactlyOnceV2, PropTransactionalStateStores: "true"},
			"4.3.1 has no transactional state stores"},
	} {
		c := DefaultCase()
		c.Engine, c.Scenario, c.Streams = tc.engine, ScenarioWarm, tc.streams
		c.Warm = DefaultWarm()
		c.Warm.Stop, c.Warm.CrashRule = tc.stop, tc.rule
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "warm.crash_rule" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want warm.crash_rule: %s", tc, err, tc.want)
		}
	}
}
