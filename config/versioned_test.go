package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// versionedCase is a valid cold restore of a versioned store with an
// hour of history.
func versionedCase() Case {
	c := DefaultCase()
	c.StoreKind, c.Retention = StoreVersionedKeyValue, Duration(time.Hour)
	return c
}

// TestVersionedCaseRefusesWhatKafkaStreamsCannotBuild: a versioned store
// restores cold, into RocksDB by put, with a positive history retention;
// an in-memory store (which Kafka Streams does not have), another
// strategy or scenario is refused naming the setting.
func TestVersionedCaseRefusesWhatKafkaStreamsCannotBuild(t *testing.T) {
	for _, engine := range []Engine{EngineModel, EngineKafkaStreams} {
		c := versionedCase()
		c.Engine = engine
		if err := c.Validate(); err != nil {
			t.Errorf("%s: a cold versioned restore is refused: %v", engine, err)
		}
	}
	for _, tc := range []struct {
		set        func(*Case)
		path, want string
	}{
		{func(c *Case) { c.Store, c.Strategy = StoreMemory, StrategyMemory }, "store", "no in-memory versioned store"},
		{func(c *Case) { c.Strategy = StrategyMemory }, "store", "no in-memory versioned store"},
		{func(c *Case) { c.Strategy = StrategyIngest }, "strategy", "put only"},
		{func(c *Case) { c.Scenario = ScenarioWarm }, "store_kind", "cold only so far, not warm"},
		{func(c *Case) { c.Retention = 0 }, "retention", "must be positive"},
		{func(c *Case) { c.SegmentInterval = Duration(time.Microsecond) }, "segment_interval", "under a millisecond"},
	} {
		c := versionedCase()
		tc.set(&c)
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want a %s error containing %q", err, tc.path, tc.want)
		}
	}
}

// TestVersionedSegmentIntervalIsKafkaStreamsDefault: without a
// segment_interval the versioned store's segments are as wide as
// RocksDbVersionedKeyValueBytesStoreSupplier makes them for the history
// retention; a case's own interval wins.
func TestVersionedSegmentIntervalIsKafkaStreamsDefault(t *testing.T) {
	for retention, want := range map[time.Duration]time.Duration{
		3 * time.Second:  2 * time.Second,   // a third, at least 2 s
		time.Minute:      20 * time.Second,  // a third
		2 * time.Minute:  24 * time.Second,  // a fifth
		5 * time.Minute:  time.Minute,       // a fifth
		30 * time.Minute: 150 * time.Second, // a twelfth
		time.Hour:        5 * time.Minute,   // a twelfth
		2 * time.Hour:    5 * time.Minute,   // a 24th, at least 5 min
		24 * time.Hour:   time.Hour,         // a 24th
	} {
		c := versionedCase()
		c.Retention = Duration(retention)
		if got := c.VersionedSegmentInterval(); got != want {
			t.Errorf("history %s: segment interval %s, want %s", retention, got, want)
		}
	}
	c := versionedCase()
	c.SegmentInterval = Duration(7 * time.Minute)
	if got := c.VersionedSegmentInterval(); got != 7*time.Minute {
		t.Errorf("segment_interval 7m: %s", got)
	}
}

// TestVersionedFillTakesRetentionAsHistory: a versioned fill's retention
// (default 1 h) is its store's history retention; a window size is
// refused.
func TestVersionedFillTakesRetentionAsHistory(t *testing.T) {
	n := int64(1000)
	f := DefaultFill()
	f.Records, f.StoreKind = &n, StoreVersionedKeyValue
	spec, err := f.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if spec.RetentionMs != time.Hour.Milliseconds() || spec.EventStepMicros != time.Hour.Microseconds()/1000 {
		t.Errorf("spec %+v: want an hour of history and of event time", spec)
	}
	f.Retention = Duration(10 * time.Minute)
	if spec, err = f.Spec(); err != nil || spec.RetentionMs != 600_000 {
		t.Errorf("retention 10m: %+v %v", spec, err)
	}
	f.WindowSize = Duration(time.Minute)
	var fe *FieldError
	if _, err := f.Spec(); !errors.As(err, &fe) || fe.Path != "window_size" {
		t.Errorf("window_size on a versioned fill: %v", err)
	}
}
