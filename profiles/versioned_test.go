package profiles

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// TestVersionedProfileReachesSpecAndCases: the built-in versioned profile
// fills a versioned store's changelog with 30 minutes of history
// retention, and every case restores that kind with it, with Kafka
// Streams' default segments or the case's.
func TestVersionedProfileReachesSpecAndCases(t *testing.T) {
	p, err := Load("versioned")
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Spec; s.StoreKind != loadgen.KindVersionedKeyValue || s.RetentionMs != 1_800_000 || s.WindowSizeMs != 0 || s.EventStepMicros <= 0 {
		t.Fatalf("spec %+v", s)
	}
	want := map[string]time.Duration{"default-segments": 150 * time.Second, "minute-segments": time.Minute, "ten-minute-segments": 10 * time.Minute}
	for _, c := range p.Cases {
		if c.StoreKind != config.StoreVersionedKeyValue || c.Retention.D() != 30*time.Minute || c.VersionedSegmentInterval() != want[c.Name] {
			t.Errorf("case %s: kind %s, history %s, segments %s (want %s)", c.Name, c.StoreKind, c.Retention, c.VersionedSegmentInterval(), want[c.Name])
		}
	}
	if len(p.Cases) != len(want) {
		t.Errorf("%d cases, want %d", len(p.Cases), len(want))
	}
}

// TestVersionedCasesOnKafkaStreams: a versioned case on the kafka-streams
// engine gives the driver the store kind, its history retention and a
// non-default segment interval; one with an in-memory store is refused
// naming the field and line.
func TestVersionedCasesOnKafkaStreams(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 1000\n  store_kind: versioned-key-value\n  retention: 10m\nrestore:\n  engine: kafka-streams\ncases:\n  - name: a\n  - name: b\n    segment_interval: 1m\n"), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Cases {
		props := c.KafkaStreamsProperties()
		if props[ksdriver.PropStoreKind] != "versioned-key-value" || props[ksdriver.PropStoreRetentionMs] != "600000" {
			t.Errorf("case %s: driver properties %v", c.Name, props)
		}
		if iv, ok := props[ksdriver.PropStoreSegmentIntervalMs]; (i == 1) != ok || (ok && iv != "60000") {
			t.Errorf("case %s: segment interval property %q (set: %v)", c.Name, iv, ok)
		}
	}
	_, err = Parse([]byte("fill:\n  records: 10\n  store_kind: versioned-key-value\ncases:\n  - name: m\n    strategy: memory\n    store: memory\n"), "v.yaml")
	if err == nil || !strings.Contains(err.Error(), "no in-memory versioned store") || !strings.Contains(err.Error(), "line ") {
		t.Errorf("an in-memory versioned case: %v", err)
	}
}
