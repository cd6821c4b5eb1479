package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionStoresRestoreColdOnBothEngines: a session case restores cold
// on either engine, in RocksDB or in memory, with the put or memory
// strategy; a segment interval is the model's only (Kafka Streams' session
// supplier fixes it), and other scenarios and strategies are refused
// naming the setting.
func TestSessionStoresRestoreColdOnBothEngines(t *testing.T) {
	for _, e := range []Engine{EngineModel, EngineKafkaStreams} {
		for _, store := range []StoreType{StoreRocksDB, StoreMemory} {
			cs := DefaultCase()
			cs.StoreKind, cs.Engine, cs.Store, cs.Retention = StoreSession, e, store, Duration(time.Hour)
			if store == StoreMemory {
				cs.Strategy = StrategyMemory
			}
			if err := cs.Validate(); err != nil {
				t.Errorf("a cold %s session store on %s: %v", store, e, err)
			}
			if p := cs.KafkaStreamsProperties(); e == EngineKafkaStreams && (p["restorebench.store.kind"] != "session" || p["restorebench.store.retention.ms"] != "3600000") {
				t.Errorf("driver keys %v", p)
			}
		}
	}
	cs := DefaultCase()
	cs.StoreKind, cs.Retention, cs.SegmentInterval = StoreSession, Duration(time.Hour), Duration(5*time.Minute)
	if err := cs.Validate(); err != nil || cs.SegmentIntervalOf() != 5*time.Minute {
		t.Errorf("a model session store's own segment interval: %v", err)
	}
	for _, c := range []struct {
		set  func(*Case)
		path string
		want string
	}{
		{func(c *Case) { c.Engine, c.SegmentInterval = EngineKafkaStreams, Duration(time.Minute) }, "segment_interval", "session stores take no segment interval"},
		{func(c *Case) { c.Scenario = ScenarioRolling }, "store_kind", "session stores run scenarios " + KindScenarios(StoreSession) + " only so far, not rolling"},
		{func(c *Case) { c.Strategy = StrategyBulk }, "strategy", "session stores restore with put or memory"},
		{func(c *Case) { c.Queries = &QueryLoad{Rate: 10} }, "queries", "session fetches are not built yet"},
	} {
		cs := DefaultCase()
		cs.StoreKind, cs.Retention = StoreSession, Duration(time.Hour)
		c.set(&cs)
		err := cs.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want a %s error containing %q", err, c.path, c.want)
		}
	}
}
