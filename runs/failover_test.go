package runs

import (
	"slices"
	"testing"
)

// failoverKill is a kill record of case c, repeat rep, with max gap gap.
func failoverKill(c string, rep int, gap float64, takeover string, ledger *LedgerCheck) Restore {
	return Restore{Case: c, Repeat: rep, Failover: &FailoverRecord{
		Tasks: []FailoverTask{{Task: "0_0", GapSeconds: gap}}, MaxGapSeconds: gap, Takeover: takeover,
		DetectionSeconds: gap - 0.5, RunningSeconds: gap - 0.2, Guarantee: "at_least_once", Standby: true, Persistent: true, Ledger: ledger,
	}}
}

func TestSummarizeFailover(t *testing.T) {
	rs := []Restore{
		{Case: "cold"}, // another scenario: left out
		failoverKill("alos", 1, 6, TakeoverPromoted, nil),
		failoverKill("alos", 1, 8, TakeoverPromoted, nil),
		failoverKill("alos", 1, 7, TakeoverMixed, &LedgerCheck{Acked: 1000, Counted: 1040, Duplicates: 40, Mismatched: 30}),
		failoverKill("alos", 2, 5, TakeoverPromoted, &LedgerCheck{Acked: 900, Counted: 900, Exact: true}),
		failoverKill("eos", 1, 9, TakeoverRestored, &LedgerCheck{Acked: 800, Counted: 800, Exact: true}),
	}
	ss := SummarizeFailover(rs)
	if len(ss) != 2 {
		t.Fatalf("%d summaries, want alos and eos", len(ss))
	}
	a := ss[0]
	if a.Case != "alos" || a.Kills != 4 || !slices.Equal(a.Gaps, []float64{6, 8, 7, 5}) || a.MedianGap != 6.5 || a.MinGap != 5 || a.MaxGap != 8 {
		t.Fatalf("alos gaps %+v", a)
	}
	if a.MedianDetection != 6 || a.MedianRunning != 6.3 || a.Takeovers[TakeoverPromoted] != 3 || a.Takeovers[TakeoverMixed] != 1 {
		t.Fatalf("alos times and takeovers %+v", a)
	}
	if a.Sequences != 2 || a.Checked != 2 || a.Exact != 1 || a.Acked != 1900 || a.Duplicates != 40 || a.Verdict() != "40 duplicates" {
		t.Fatalf("alos ledger %+v verdict %q", a, a.Verdict())
	}
	if e := ss[1]; e.Verdict() != "verified" || e.Kills != 1 || e.MedianGap != 9 {
		t.Fatalf("eos %+v verdict %q", e, e.Verdict())
	}
	if SummarizeFailover([]Restore{{Case: "cold"}}) != nil {
		t.Fatal("a summary without failover records")
	}
}

func TestFailoverVerdicts(t *testing.T) {
	for _, c := range []struct {
		s    FailoverSummary
		want string
	}{
		{FailoverSummary{Sequences: 1, Checked: 1, Lost: 3, Duplicates: 2}, "2 duplicates, LOST 3"},
		{FailoverSummary{Sequences: 2, Checked: 1, Exact: 1}, "verified, 1 unchecked"},
		{FailoverSummary{Sequences: 1}, "1 unchecked"},
		{FailoverSummary{Sequences: 1, Checked: 1}, "MISMATCH"},
	} {
		if got := c.s.Verdict(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

// TestFailoverGapWithinTheClocksBoundIsLeftOut: across hosts, a kill
// whose gap is no longer than the clocks' bound measures nothing: the
// summary counts it apart and keeps it out of the gaps.
func TestFailoverGapWithinTheClocksBoundIsLeftOut(t *testing.T) {
	tiny := failoverKill("hosts", 1, 0.004, TakeoverPromoted, nil)
	tiny.Failover.ClockBoundSeconds = 0.005
	wide := failoverKill("hosts", 1, 3, TakeoverPromoted, nil)
	wide.Failover.ClockBoundSeconds = 0.005
	if tiny.Failover.GapResolved() || !wide.Failover.GapResolved() || !failoverKill("one", 1, 0.001, TakeoverPromoted, nil).Failover.GapResolved() {
		t.Fatal("GapResolved: want false only for a gap within a positive bound")
	}
	s := SummarizeFailover([]Restore{tiny, wide})[0]
	if s.Kills != 2 || s.Unresolved != 1 || !slices.Equal(s.Gaps, []float64{3}) || s.MinGap != 3 || s.Takeovers[TakeoverPromoted] != 1 {
		t.Fatalf("summary %+v: want 2 kills, 1 left out, gaps [3]", s)
	}
}

// TestSummarizeFailoverCountsVerifiedStores: a failover with a query load
// has no ledger; its last kill's verification of the stores against the
// fill and the write load is its check, verified or not.
func TestSummarizeFailoverCountsVerifiedStores(t *testing.T) {
	kill := func(k int, verified bool) Restore {
		r := Restore{Case: "q", Repeat: 1, Verified: verified, Queries: &QueryFigures{Rate: 10},
			Failover: &FailoverRecord{Kill: k, Kills: 2, MaxGapSeconds: 7, Tasks: []FailoverTask{{Task: "0_0", GapSeconds: 7}}, Takeover: TakeoverPromoted}}
		r.Verification.Mode = "expected-state"
		return r
	}
	for _, tc := range []struct {
		verified bool
		want     string
	}{{true, "verified"}, {false, "MISMATCH"}} {
		s := SummarizeFailover([]Restore{kill(1, tc.verified), kill(2, tc.verified)})
		if len(s) != 1 || s[0].Checked != 1 || s[0].Verdict() != tc.want {
			t.Errorf("verified %v: summary %+v, verdict %q, want %q", tc.verified, s, s[0].Verdict(), tc.want)
		}
	}
}
