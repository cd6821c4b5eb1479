package profiles

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// TestSessionProfileRestoresSessionStores: the built-in session profile's
// fill writes a session changelog of its window and retention, and every
// case restores a session store with that retention, Kafka Streams'
// default segment interval unless the case sets one.
func TestSessionProfileRestoresSessionStores(t *testing.T) {
	p, err := Load("session")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Spec
	if s.StoreKind != loadgen.KindSession || s.WindowSizeMs != 300_000 || s.RetentionMs != 3_750_000 || s.EventStepMicros <= 0 {
		t.Fatalf("spec %+v", s)
	}
	intervals := map[string]time.Duration{"default-segments": 1875 * time.Second, "window-segments": 5 * time.Minute, "in-memory": 1875 * time.Second}
	for _, c := range p.Cases {
		if c.StoreKind != config.StoreSession || c.Retention.D() != 3750*time.Second || c.SegmentIntervalOf() != intervals[c.Name] {
			t.Errorf("case %s: kind %s, retention %s, segments %s", c.Name, c.StoreKind, c.Retention, c.SegmentIntervalOf())
		}
	}
	if len(p.Cases) != len(intervals) {
		t.Errorf("%d cases, want %d", len(p.Cases), len(intervals))
	}
}

// TestSessionCasesOnKafkaStreams: a session fill's cold cases reach the
// driver as its store-kind keys (the kind and the retention); a case with
// a segment interval, which Kafka Streams' session stores do not take, is
// refused naming the field, and a session fill refuses a retention under
// its window.
func TestSessionCasesOnKafkaStreams(t *testing.T) {
	const fill = "fill:\n  records: 7200\n  store_kind: session\n  time_range: 2h\n  window_size: 10m\n  retention: 30m\n"
	p, err := Parse([]byte(fill+"cases:\n  - name: a\n    engine: kafka-streams\n  - name: m\n    engine: kafka-streams\n    strategy: memory\n    store: memory\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Cases {
		props := c.KafkaStreamsProperties()
		if props[ksdriver.PropStoreKind] != "session" || props[ksdriver.PropStoreRetentionMs] != "1800000" || props[ksdriver.PropStoreSegmentIntervalMs] != "" {
			t.Errorf("case %s: driver keys %v", c.Name, props)
		}
	}
	for _, tc := range []struct{ yaml, want string }{
		{fill + "cases:\n  - name: b\n    engine: kafka-streams\n    segment_interval: 5m\n", "segment_interval: Kafka Streams' session stores take no segment interval"},
		{"fill:\n  records: 10\n  store_kind: session\n  window_size: 2h\n  retention: 1h\n", "fill.retention: 3600000 ms is shorter than the window size"},
		{"fill:\n  records: 10\n  store_kind: session\ncases:\n  - name: w\n    scenario: rolling\n", "session stores run scenarios " + config.KindScenarios(config.StoreSession) + " only so far, not rolling"},
	} {
		if _, err := Parse([]byte(tc.yaml), "s.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}
