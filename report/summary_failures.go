package report

import (
	"fmt"
	"io"

	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// printFailures prints a FAILED line per record that was checked and did
// not verify, with its error. A ledger check's outcome is in the failover
// table (at-least-once duplicates are reported there, not as failures),
// and an unverified record was not checked, so neither prints here.
func printFailures(w io.Writer, restores []runs.Restore) {
	for _, r := range restores {
		if r.Verification.Mode == runs.VerificationLedger {
			continue
		}
		if r.Verification.Mode != verify.ModeUnverified && !r.Verified {
			fmt.Fprintf(w, "FAILED: %s #%d: %s\n", r.Case, r.Repeat, r.Error)
		}
	}
}
