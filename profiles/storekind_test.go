package profiles

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
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
		{"fill:\n  records: 10\n  store_kind: timestamped-key-value\n  window_size: 5m\n", "fill.window_size: windows and retention are set only with store_kind window"},
		{"fill:\n  records: 10\ncases:\n  - name: w\n    store_kind: window\n", "case w restores a window store, but the fill writes a key-value changelog"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: w\n    scenario: warm\n", "window stores run scenario cold only so far"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: w\n    engine: kafka-streams\n", "model engine only so far"},
		{"fill:\n  records: 10\ncases:\n  - name: w\n    segment_interval: 1m\n", "segment_interval: set only for window stores"},
	} {
		_, err := Parse([]byte(tc.yaml), "k.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}
