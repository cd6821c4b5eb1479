package capacity

import (
	"strings"
	"testing"
)

// TestEvidenceRegistersOnceAndDerivesOnce: a second registration of a
// name panics, as a scenario registered twice would; an evidence kind is
// derived once per analysis however often it is asked, and a kind that
// derives from itself panics instead of recursing.
func TestEvidenceRegistersOnceAndDerivesOnce(t *testing.T) {
	mustPanic := func(what, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if s, _ := r.(string); !strings.Contains(s, want) {
				t.Fatalf("%s: panic %v, want one naming %q", what, r, want)
			}
		}()
		f()
	}
	mustPanic("warm registered again", "registered twice", func() {
		RegisterEvidence(EvidenceDef{Name: "warm", Derive: func(*Analysis) (any, error) { return nil, nil }})
	})
	calls := 0
	RegisterEvidence(EvidenceDef{Name: "test-counted", Derive: func(*Analysis) (any, error) { calls++; return 7, nil }})
	RegisterEvidence(EvidenceDef{Name: "test-cycle", Derive: func(a *Analysis) (any, error) { return a.evidence("test-cycle") }})
	defer func() { delete(evidenceDefs, "test-counted"); delete(evidenceDefs, "test-cycle") }()
	a := &Analysis{}
	for range 3 {
		if v, err := evidenceAs[int](a, "test-counted"); v != 7 || err != nil {
			t.Fatalf("evidence %v, %v: want 7", v, err)
		}
	}
	if calls != 1 {
		t.Fatalf("derived %d times, want once", calls)
	}
	mustPanic("a cycle", "derives from itself", func() { _, _ = a.evidence("test-cycle") })
	mustPanic("an unregistered kind", "no evidence", func() { _, _ = a.evidence("test-missing") })
}

// TestAnalyzeDerivesEveryScenariosEvidence: Analyze leaves each
// registered kind derived, so reports only read an Analysis; the synthetic
// scenario runs give the warm rate, standby, failover, scale-out and
// compaction evidence through their accessors.
func TestAnalyzeDerivesEveryScenariosEvidence(t *testing.T) {
	a := Analyze(scenarioRuns(), Options{})
	for name := range evidenceDefs {
		if d, ok := a.derived[name]; !ok || d.deriving {
			t.Errorf("evidence %s not derived by Analyze", name)
		}
	}
	if w, err := a.Warm(); w == nil || err != nil {
		t.Errorf("warm rate %v, %v", w, err)
	}
	if a.Standby() == nil || a.Failover() == nil || len(a.ScaleOuts()) == 0 || len(a.Amplifications()) == 0 {
		t.Errorf("standby %v, failover %v, scale-outs %d, amplifications %d: want each from the synthetic scenario runs",
			a.Standby(), a.Failover(), len(a.ScaleOuts()), len(a.Amplifications()))
	}
}
