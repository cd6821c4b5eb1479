package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// failoverKills are n kill records of case c with max gaps from gap on,
// the last one carrying ledger.
func failoverKills(c, guarantee string, standby bool, gap float64, n int, ledger *runs.LedgerCheck) []runs.Restore {
	var out []runs.Restore
	for i := range n {
		g := gap + float64(i)
		f := &runs.FailoverRecord{Kill: i + 1, Kills: n, Tasks: []runs.FailoverTask{{Task: "0_0", GapSeconds: g}}, MaxGapSeconds: g,
			DetectionSeconds: g - 1, RunningSeconds: g - 0.5, Takeover: runs.TakeoverPromoted, Guarantee: guarantee, Standby: standby, Persistent: true}
		if i == n-1 {
			f.Ledger = ledger
		}
		out = append(out, runs.Restore{Case: c, Repeat: 1, Verified: ledger.Exact, Failover: f})
	}
	return out
}

func TestPrintFailover(t *testing.T) {
	res := &runs.Results{}
	res.Restores = append(res.Restores, failoverKills("eos-standby", "exactly_once_v2", true, 6, 3, &runs.LedgerCheck{Accounts: 50, Acked: 900, Counted: 900, Exact: true})...)
	res.Restores = append(res.Restores, failoverKills("alos", "at_least_once", false, 9, 2, &runs.LedgerCheck{Accounts: 50, Acked: 900, Counted: 912, Duplicates: 12, Mismatched: 10})...)
	lost := &runs.LedgerCheck{Accounts: 50, Acked: 900, Counted: 899, Lost: 1, Mismatched: 1,
		Differences: []runs.AccountDifference{{Account: "acct-000007", Balance: 100, ExpectedBalance: 150, Count: 2, ExpectedCount: 3}}}
	res.Restores = append(res.Restores, failoverKills("eos-broken", "exactly_once_v2", true, 6, 1, lost)...)
	win := failoverKills("win", "at_least_once", true, 5, 1, &runs.LedgerCheck{Exact: true})
	win[0].Failover.StoreKind, win[0].Failover.Ledger = "window", nil
	win[0].Verification.Mode = "expected-state" // the survivor's stores against fill and write load
	res.Restores = append(res.Restores, win...)
	var out bytes.Buffer
	printFailover(&out, res.Restores)
	s := out.String()
	rows := map[string]string{
		"eos-standby": "eos-standby key-value exactly_once_v2 on kept 3 7.00 6.00-8.00 6.00 6.50 promoted 3 900 verified",
		"alos":        "alos key-value at_least_once off kept 2 9.50 9.00-10.00 8.50 9.00 promoted 2 900 12 duplicates",
		"eos-broken":  "eos-broken key-value exactly_once_v2 on kept 1 6.00 6.00-6.00 5.00 5.50 promoted 1 900 LOST 1",
		"win":         "win window at_least_once on kept 1 5.00 5.00-5.00 4.00 4.50 promoted 1 0 verified",
	}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && rows[f[0]] != "" {
			if got := strings.Join(f, " "); got != rows[f[0]] {
				t.Errorf("row %q, want %q", got, rows[f[0]])
			}
			delete(rows, f[0])
		}
	}
	if len(rows) > 0 {
		t.Errorf("rows missing: %v\n%s", rows, s)
	}
	for _, want := range []string{
		"eos-broken #1: 1 of 50 accounts differ:",
		"acct-000007: balance 100 (expected 150, -50), count 2 (expected 3, -1)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "alos #1: ") {
		t.Errorf("duplicates alone are listed as a failed check:\n%s", s)
	}
	var none bytes.Buffer
	printFailover(&none, []runs.Restore{{Case: "cold"}})
	if none.Len() != 0 {
		t.Errorf("printed %q for a run without failovers", none.String())
	}
}
