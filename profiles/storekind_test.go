package profiles

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// TestWindowFillReachesSpecAndCases: a window fill's kind, window and
// retention reach the fill's spec (its event step from the time range over
// the records), and every case restores that kind with that retention.
func TestWindowFillReachesSpecAndCases(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 7200\n  store_kind: window\n  time_range: 2h\n  window_size: 10m\n  retention: 30m\ncases:\n  - name: a\n  - name: b\n    segment_interval: 5m\n"), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Spec
	if s.StoreKind != loadgen.KindWindow || s.EventStepMicros != 1_000_000 || s.WindowSizeMs != 600_000 || s.RetentionMs != 1_800_000 {
		t.Fatalf("spec %+v", s)
	}
	for _, c := range p.Cases {
		if c.StoreKind != config.StoreWindow || c.Retention.D() != 30*time.Minute {
			t.Errorf("case %s: kind %s, retention %s", c.Name, c.StoreKind, c.Retention)
		}
	}
	if got := p.Cases[1].SegmentIntervalOf(); got != 5*time.Minute {
		t.Errorf("case b's segment interval %s, want 5m", got)
	}
	if got := p.Cases[0].SegmentIntervalOf(); got != 15*time.Minute {
		t.Errorf("case a's segment interval %s, want Kafka Streams' max(retention/2, 60 s) = 15m", got)
	}
}

// TestStoreKindErrorsNameFieldAndLine: settings a fill's kind does not
// read, a case of another kind than the fill's, and a window case on a
// scenario or engine not built yet are refused naming the field and line.
func TestStoreKindErrorsNameFieldAndLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"fill:\n  records: 10\n  retention: 1h\n", "line 3: fill.retention: is set only with store_kind"},
		{"fill:\n  records: 10\n  store_kind: window\n  window_size: 2h\n  retention: 1h\n", "fill.retention: 3600000 ms is shorter than the window size"},
		{"fill:\n  records: 10\n  store_kind: timestamped-key-value\n  window_size: 5m\n", "fill.window_size: windows and retention are set only with store_kind window, timestamped-window or session"},
		{"fill:\n  records: 10\ncases:\n  - name: w\n    store_kind: window\n", "case w restores a window store, but the fill writes a key-value changelog"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: w\n    scenario: scaleout\n", "window stores run scenarios " + config.KindScenarios(config.StoreWindow) + " only so far, not scaleout"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: w\n    engine: kafka-streams\n    scenario: rolling\n    rolling: {rate: 0}\n", "rolling.rate: 0 with a window store"},
		{"fill:\n  records: 10\n  store_kind: timestamped-key-value\ncases:\n  - name: w\n    engine: kafka-streams\n    scenario: scaleout\n", "timestamped-key-value stores run scenarios " + config.KindScenarios(config.StoreTimestampedKeyValue) + " only so far, not scaleout"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: w\n    engine: kafka-streams\n    strategy: memory\n    store: memory\n    segment_interval: 5m\n", "in-memory window store (Stores.inMemoryWindowStore) has no segments"},
		{"application_id: app\nfill:\n  records: 10\n  topic: copy\n  store_kind: window\ncases:\n  - name: w\n    engine: kafka-streams\n", "line 4: fill.topic: case w restores a window store on the kafka-streams engine, which builds it only over app-balances-changelog"},
		{"fill:\n  records: 10\ncases:\n  - name: w\n    segment_interval: 1m\n", "segment_interval: set only for window and session stores"},
	} {
		_, err := Parse([]byte(tc.yaml), "k.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestStoreKindsOnKafkaStreamsCold: a window and a timestamped fill's
// cold cases run on the kafka-streams engine, and reach the driver as its
// store-kind keys: the kind, a window store's retention and (when the case
// sets one) its segment interval, in milliseconds; an in-memory window
// store of the model may keep a segment interval.
func TestStoreKindsOnKafkaStreamsCold(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 7200\n  store_kind: window\n  time_range: 2h\n  window_size: 10m\n  retention: 30m\ncases:\n  - name: a\n    engine: kafka-streams\n  - name: b\n    engine: kafka-streams\n    segment_interval: 5m\n  - name: c\n    engine: kafka-streams\n    strategy: memory\n    store: memory\n  - name: m\n    strategy: memory\n    store: memory\n    segment_interval: 5m\n"), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{ksdriver.PropStoreKind: "window", ksdriver.PropStoreRetentionMs: "1800000"},
		{ksdriver.PropStoreKind: "window", ksdriver.PropStoreRetentionMs: "1800000", ksdriver.PropStoreSegmentIntervalMs: "300000"},
		{ksdriver.PropStoreKind: "window", ksdriver.PropStoreRetentionMs: "1800000", ksdriver.PropStoreType: "memory"},
	}
	for i, w := range want {
		got := p.Cases[i].KafkaStreamsProperties()
		for _, k := range []string{ksdriver.PropStoreKind, ksdriver.PropStoreRetentionMs, ksdriver.PropStoreSegmentIntervalMs, ksdriver.PropStoreType, ksdriver.PropStoreWindowSizeMs} {
			if got[k] != w[k] {
				t.Errorf("case %s: %s = %q, want %q", p.Cases[i].Name, k, got[k], w[k])
			}
		}
	}
	ts, err := Parse([]byte("fill:\n  records: 100\n  store_kind: timestamped-key-value\ncases:\n  - name: a\n    engine: kafka-streams\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	props := ts.Cases[0].KafkaStreamsProperties()
	if props[ksdriver.PropStoreKind] != "timestamped-key-value" || props[ksdriver.PropStoreRetentionMs] != "" {
		t.Errorf("timestamped case's driver keys %v", props)
	}
	kv, err := Parse([]byte("fill:\n  records: 100\ncases:\n  - name: a\n    engine: kafka-streams\n"), "kv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if props := kv.Cases[0].KafkaStreamsProperties(); props[ksdriver.PropStoreKind] != "" {
		t.Errorf("a key-value case names its kind: %v", props)
	}
}
