package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// windowCase is a kafka-streams window case of an hour's retention.
func windowCase(memory bool) config.Case {
	c := config.DefaultCase()
	c.Name, c.Engine, c.StoreKind, c.Retention = "w", config.EngineKafkaStreams, config.StoreWindow, config.Duration(time.Hour)
	if memory {
		c.Store, c.Strategy = config.StoreMemory, config.StrategyMemory
	}
	return c
}

// TestKafkaStreamsWindowStoreRecord: a window store's record on the
// kafka-streams engine says its counts are not observed, holds its
// retention and segment interval, and counts the RocksDB segments left
// in every task directory (a file or a directory of another name is not
// one); an in-memory store has none; a timestamped store keeps every
// record restored; a key-value store has no record.
func TestKafkaStreamsWindowStoreRecord(t *testing.T) {
	app := t.TempDir()
	for _, d := range []string{"0_0/s/s.0", "0_0/s/s.1800000", "0_1/s/s.1800000", "0_1/s/s.tmp", "0_1/rocksdb/s", "0_1/s/x.0"} {
		if err := os.MkdirAll(filepath.Join(app, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(app, "0_0", "s", "s.3600000"), nil, 0o644)
	sr := fleet.KSStoreRecord(windowCase(false), 100, app, "s")
	if sr.Kind != config.StoreWindow || !sr.Uncounted || sr.Segments != 3 || sr.RetentionSeconds != 3600 || sr.SegmentIntervalSeconds != 1800 || sr.RecordsKept != 0 {
		t.Fatalf("rocksdb window store record %+v", sr)
	}
	if sr := fleet.KSStoreRecord(windowCase(true), 100, app, "s"); sr.Segments != 0 || sr.SegmentIntervalSeconds != 0 || !sr.Uncounted {
		t.Fatalf("in-memory window store record %+v", sr)
	}
	c := config.DefaultCase()
	if sr := fleet.KSStoreRecord(c, 100, app, "s"); sr != nil {
		t.Fatalf("key-value store record %+v", sr)
	}
	c.StoreKind = config.StoreTimestampedKeyValue
	if sr := fleet.KSStoreRecord(c, 100, app, "s"); sr.Uncounted || sr.RecordsKept != 100 {
		t.Fatalf("timestamped store record %+v", sr)
	}
}

// TestKafkaStreamsWindowStoreTakesTheFillsWindowSize: a window store's
// instance is given its fill's window size, and a restore without a
// window fill's spec is refused naming the case; a window store over a
// topic not named after it (the table topology's) is refused before any
// topic or group is touched.
func TestKafkaStreamsWindowStoreTakesTheFillsWindowSize(t *testing.T) {
	props := map[string]string{}
	spec := loadgen.Spec{WindowSizeMs: 300_000}
	if err := fleet.AddKindProperties(props, fleet.Request{Case: windowCase(false), Spec: &spec}); err != nil || props[ksdriver.PropStoreWindowSizeMs] != "300000" {
		t.Fatalf("props %v, err %v", props, err)
	}
	if err := fleet.AddKindProperties(map[string]string{}, fleet.Request{Case: windowCase(false)}); err == nil || !strings.Contains(err.Error(), "case w") {
		t.Fatalf("without a spec: %v", err)
	}
	kv := map[string]string{}
	if err := fleet.AddKindProperties(kv, fleet.Request{Case: config.DefaultCase()}); err != nil || len(kv) != 0 {
		t.Fatalf("a key-value case: %v %v", kv, err)
	}
	// Over a topic restorebench did not fill: a read-only window store
	// over it (the table topology), of the case's retention, a minute's
	// window (a restore never reads it).
	props, err := coldProperties(context.Background(), &fleet.Env{}, fleet.Target{Topic: "copy", AppID: "app", StoreName: "s"}, fleet.Request{Case: windowCase(false)}, 2)
	if err != nil || props[ksdriver.PropTopology] != ksdriver.TopologyTable || props[ksdriver.PropStoreKind] != "window" ||
		props[ksdriver.PropStoreRetentionMs] != "3600000" || props[ksdriver.PropStoreWindowSizeMs] != "60000" {
		t.Fatalf("a window store over another topic: %v, %v", props, err)
	}
	// A session store likewise; a versioned store's is refused, naming
	// the changelog it restores from.
	session := windowCase(false)
	session.StoreKind = config.StoreSession
	props, err = coldProperties(context.Background(), &fleet.Env{}, fleet.Target{Topic: "copy", AppID: "app", StoreName: "s"}, fleet.Request{Case: session}, 2)
	if err != nil || props[ksdriver.PropTopology] != ksdriver.TopologyTable || props[ksdriver.PropStoreKind] != "session" ||
		props[ksdriver.PropStoreRetentionMs] != "3600000" || props[ksdriver.PropStoreWindowSizeMs] != "60000" {
		t.Fatalf("a session store over another topic: %v, %v", props, err)
	}
	versioned := config.DefaultCase()
	versioned.Name, versioned.Engine, versioned.StoreKind, versioned.Retention = "v", config.EngineKafkaStreams, config.StoreVersionedKeyValue, config.Duration(time.Hour)
	_, err = coldProperties(context.Background(), &fleet.Env{}, fleet.Target{Topic: "copy", AppID: "app", StoreName: "s"}, fleet.Request{Case: versioned}, 2)
	if err == nil || !strings.Contains(err.Error(), "app-s-changelog") {
		t.Fatalf("a versioned store over another topic: %v", err)
	}
}
