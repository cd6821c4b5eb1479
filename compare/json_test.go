package compare

import "testing"

// TestJSONNamesEveryVerdictAndUnit: every verdict has its id in the JSON
// and every metric its unit, so a new one cannot be written as "".
func TestJSONNamesEveryVerdictAndUnit(t *testing.T) {
	for v := VerdictCaseMissing; v <= VerdictExceedsSpread; v++ {
		if verdictIDs[v] == "" {
			t.Errorf("verdict %d (%q) has no id", v, MetricDiff{Verdict: v}.VerdictText())
		}
	}
	for _, m := range CompareMetrics {
		if m.Unit() == "" {
			t.Errorf("metric %s has no unit", m)
		}
	}
}
