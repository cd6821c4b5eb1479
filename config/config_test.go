package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{"100": 100, "1KB": 1000, "1KiB": 1024, "2GiB": 2 << 30, "1.5MB": 1_500_000, "256mb": 256e6, "3 G": 3 << 30}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "-2GiB", "GB", "1XB", "NaN"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
	lo, hi, err := ParseValueSize("100-1KiB")
	if err != nil || lo != 100 || hi != 1024 {
		t.Errorf("ParseValueSize = %d, %d, %v", lo, hi, err)
	}
}

// FuzzParseSize: the size parser never panics, never returns a negative
// size, and whatever it accepts prints (Size.String) as a size it reads back
// to the same number of bytes.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"100", "1KB", "1KiB", "2GiB", "1.5MB", "256mb", "3 G", "-1", "NaN", "1e3", "0x10", "1.5", "9999999999999TiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		back, err := ParseSize(Size(n).String())
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, printed %q, read back %d, %v", s, n, Size(n).String(), back, err)
		}
	})
}

// TestStoreKindIsNamedBeforeItIsBuilt: a case may name its store kind;
// the kinds not built yet are refused naming the setting, not run as
// key-value (Kafka Streams versions: ksversions_test.go). The timestamped
// and window kinds restore cold on both engines (a segment interval on
// kafka-streams only for RocksDB); their other scenarios:
// kinds_scenarios_test.go.
func TestStoreKindIsNamedBeforeItIsBuilt(t *testing.T) {
	for _, c := range []struct {
		set  func(*Case)
		path string
		want string
	}{
		{func(c *Case) { c.StoreKind, c.Engine, c.Scenario = StoreWindow, EngineKafkaStreams, ScenarioScaleOut }, "store_kind", KindScenarios(StoreWindow) + " only so far, not scaleout"},
		{func(c *Case) {
			c.StoreKind, c.Engine, c.Retention, c.SegmentInterval = StoreWindow, EngineKafkaStreams, Duration(time.Hour), Duration(time.Minute)
			c.Store, c.Strategy = StoreMemory, StrategyMemory
		}, "segment_interval", "has no segments"},
		{func(c *Case) { c.StoreKind, c.Scenario = StoreTimestampedKeyValue, ScenarioScaleOut }, "store_kind", KindScenarios(StoreTimestampedKeyValue) + " only so far, not scaleout"},
		{func(c *Case) {
			c.StoreKind, c.Scenario, c.Retention = StoreVersionedKeyValue, ScenarioWarm, Duration(time.Hour)
		}, "store_kind", "reopens a versioned store without its history segments"},
		{func(c *Case) { c.StoreKind, c.Strategy = StoreWindow, StrategyBulk }, "strategy", "put or memory"},
		{func(c *Case) { c.SegmentInterval = Duration(time.Hour) }, "segment_interval", "only for window and session stores"},
		{func(c *Case) { c.ReadExpired = true }, "read_expired", "set only for window and session stores"},
		{func(c *Case) {
			c.ReadExpired, c.StoreKind, c.Retention, c.Engine = true, StoreWindow, Duration(time.Hour), EngineKafkaStreams
		}, "read_expired", "reads as its kafka_streams_version does"},
		{func(c *Case) { c.StoreKind = "versioned" }, "store_kind", `"versioned" is not one of ` + list(StoreKinds)}, // every kind registered
		{func(c *Case) { c.StoreKind = "btree" }, "store_kind", `"btree" is not one of key-value`},
	} {
		cs := DefaultCase()
		c.set(&cs)
		err := cs.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want a %s error containing %q", err, c.path, c.want)
		}
	}
	for _, kind := range []StoreKind{StoreTimestampedKeyValue, StoreWindow} {
		for _, store := range []StoreType{StoreRocksDB, StoreMemory} {
			cs := DefaultCase()
			cs.StoreKind, cs.Engine, cs.Store = kind, EngineKafkaStreams, store
			if kind == StoreWindow {
				cs.Retention = Duration(time.Hour)
			}
			if store == StoreMemory {
				cs.Strategy = StrategyMemory
			}
			if err := cs.Validate(); err != nil {
				t.Errorf("a cold %s %s store on kafka-streams: %v", store, kind, err)
			}
		}
	}
	cs := DefaultCase()
	cs.StoreKind, cs.Engine, cs.Retention, cs.SegmentInterval = StoreWindow, EngineKafkaStreams, Duration(time.Hour), Duration(5*time.Minute)
	if err := cs.Validate(); err != nil {
		t.Errorf("a RocksDB window store's own segment interval on kafka-streams: %v", err)
	}
	cs = DefaultCase()
	if err := cs.Validate(); err != nil || cs.StoreKind != StoreKeyValue {
		t.Errorf("the default store kind %q: %v", cs.StoreKind, err)
	}
}
