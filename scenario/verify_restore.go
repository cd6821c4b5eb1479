package scenario

import (
	"fmt"

	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// Verifying what a restore holds, the same for both engines and every
// placement: the model's scanned stores and an instance's digest alike.

// verifyInto checks what a restore holds against the target's expected
// state and records the outcome; a topic without one is only counted.
func verifyInto(rec *runs.Restore, t Target, actual []loadgen.PartitionState) (runs.Restore, error) {
	if t.Expected == nil {
		rec.Verification = verify.Census(actual)
		return *rec, nil
	}
	ok, v := verify.Check(t.Expected, actual)
	rec.Verified, rec.Verification = ok, v
	if !ok {
		if rec.Read != nil && rec.Read.Note != "" {
			v.Problem += " (restored " + rec.Read.Note + ")"
			rec.Verification = v
		}
		rec.Error = "verification failed: " + v.Problem
		return *rec, fmt.Errorf("%w: case %s #%d: %s", ErrUnverified, rec.Case, rec.Repeat, v.Problem)
	}
	return *rec, nil
}
