package profiles

import (
	"strings"
	"testing"
)

// TestScenarioSettingsKeepTheirDefaults: a case that names a few of its
// scenario's settings keeps the defaults of the others; cases do not share
// settings; unknown or ill-typed nested settings name their path and line.
func TestScenarioSettingsKeepTheirDefaults(t *testing.T) {
	p, err := Parse([]byte("fill: {records: 200000}\ncases:\n  - name: w\n    scenario: warm\n    warm: {rate: 5}\n  - name: w2\n    scenario: warm\n  - name: s\n    scenario: standby\n    standby: {rates: [100]}\n  - name: c\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, w2, s, c := p.Cases[0], p.Cases[1], p.Cases[2], p.Cases[3]
	if w.Warm == nil || w.Warm.Rate != 5 || len(w.Warm.Changed) != 5 || !w.Warm.Fallback {
		t.Fatalf("warm settings %+v", w.Warm)
	}
	if w2.Warm == nil || w2.Warm.Rate != 0 || w.Warm == w2.Warm {
		t.Fatalf("second warm case %+v shares or lost its settings", w2.Warm)
	}
	if s.Standby == nil || len(s.Standby.Rates) != 1 || s.Standby.AcceptableRecoveryLag != 10000 || len(s.Standby.Pauses) != 2 {
		t.Fatalf("standby settings %+v", s.Standby)
	}
	if c.Warm != nil || c.Standby != nil || w.Standby != nil {
		t.Fatal("settings of another scenario kept")
	}
	for _, bad := range []struct{ yaml, want string }{
		{"fill: {records: 1}\ncases:\n  - name: w\n    scenario: warm\n    warm:\n      chnged: [1]\n", "line 6: cases[0].warm.chnged: unknown field (did you mean changed?)"},
		{"fill: {records: 1}\ncases:\n  - name: w\n    scenario: warm\n    warm:\n      changed: [lots]\n", "line 6: cases[0].warm.changed"},
		{"fill: {records: 1}\ncases:\n  - name: s\n    scenario: standby\n    standby:\n      duration: forever\n", "line 6: cases[0].standby.duration"},
		{"fill: {records: 1}\ncases:\n  - name: f\n    scenario: failover\n", "cases[0].engine: scenario failover runs on the kafka-streams engine only"},
		{"fill: {records: 1}\ncases:\n  - name: w\n    scenario: warm\n    strategy: ingest\n", "cases[0].strategy"},
		{"fill: {records: 1}\ncases:\n  - name: c\n    warm: {changed: [10]}\n", "line 4: cases[0].warm: settings of scenario warm, but this case's scenario is cold"},
		{"fill: {records: 1}\ncases:\n  - name: s\n    scenario: warm\n    standby: {rates: [10]}\n", "line 5: cases[0].standby: settings of scenario standby, but this case's scenario is warm"},
		{"fill: {records: 1}\ncases:\n  - name: g\n    streams: {processing.guarantee: exactly_once}\n", "cases[0].streams.processing.guarantee"},
	} {
		_, err := Parse([]byte(bad.yaml), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want %q", bad.yaml, err, bad.want)
		}
	}
}
