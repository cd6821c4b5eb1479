package failover

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/ledger"
	"github.com/restorebench/restorebench/runs"
)

// maxDifferences is how many differing accounts a ledger check lists.
const maxDifferences = 10

// checkLedger compares the balances the stores hold with the sums of the
// acknowledged transactions, account by account: an account missing from
// the stores counts as holding nothing, one the producer never wrote to as
// expecting nothing. Duplicates add up the counts above the expected ones,
// Lost those below.
func checkLedger(expected, actual map[string]ledger.Sum) runs.LedgerCheck {
	c := runs.LedgerCheck{Accounts: len(expected), AccountsQueried: len(actual)}
	all := map[string]bool{}
	for a, s := range expected {
		all[a] = true
		c.Acked += s.Count
	}
	for a, s := range actual {
		all[a] = true
		c.Counted += s.Count
	}
	accounts := make([]string, 0, len(all))
	for a := range all {
		accounts = append(accounts, a)
	}
	sort.Strings(accounts)
	for _, a := range accounts {
		want, got := expected[a], actual[a]
		if want == got {
			continue
		}
		c.Mismatched++
		if got.Count == want.Count {
			c.Unexplained++
		}
		if d := got.Count - want.Count; d > 0 {
			c.Duplicates += d
		} else {
			c.Lost -= d
		}
		if len(c.Differences) < maxDifferences {
			c.Differences = append(c.Differences, runs.AccountDifference{Account: a,
				Balance: got.Balance, ExpectedBalance: want.Balance, Count: got.Count, ExpectedCount: want.Count})
		}
	}
	c.Exact = c.Mismatched == 0
	return c
}

// ledgerVerdict decides what a ledger check means under a processing
// guarantee. verified is true only for an exact ledger. failed is true when
// the guarantee was broken: anything inexact under exactly-once, and under
// at-least-once a lost transaction or a balance that differs in an account
// whose count is right (a duplicate explains neither); duplicates alone are
// what at-least-once allows, reported and not verified, but not a failure.
// problem says what was found; for a failure it names the first differing
// accounts and by how much (results.json lists them for duplicates too).
func ledgerVerdict(c runs.LedgerCheck, guarantee string) (verified, failed bool, problem string) {
	if c.Exact {
		return true, false, ""
	}
	problem = fmt.Sprintf("%s: %d of %d accounts differ from the sums of the %d acknowledged transactions: %d counted twice, %d lost (%d counted)",
		guarantee, c.Mismatched, c.Accounts, c.Acked, c.Duplicates, c.Lost, c.Counted)
	if isExactlyOnce(guarantee) || c.Lost > 0 || c.Unexplained > 0 {
		return false, true, problem + "; " + describeDifferences(c.Differences, c.Mismatched)
	}
	return false, false, problem + " (at-least-once allows duplicates: not verified, not a failure)"
}

// describeDifferences lists differing accounts: balance and count found
// against expected, and by how much.
func describeDifferences(ds []runs.AccountDifference, total int) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s balance %d (expected %d, %+d) count %d (expected %d, %+d)",
			d.Account, d.Balance, d.ExpectedBalance, d.Balance-d.ExpectedBalance, d.Count, d.ExpectedCount, d.Count-d.ExpectedCount)
	}
	s := strings.Join(parts, "; ")
	if total > len(ds) {
		s += fmt.Sprintf("; and %d more", total-len(ds))
	}
	return s
}

// isExactlyOnce reports whether a processing.guarantee is an exactly-once one.
func isExactlyOnce(guarantee string) bool { return strings.HasPrefix(guarantee, "exactly_once") }
