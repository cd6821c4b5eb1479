package runs

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/verify"
)

// TestFailoverKillsAreSeparateRecords: a failover records one record per
// kill under one case and repeat; those are distinct, the same kill twice
// is not.
func TestFailoverKillsAreSeparateRecords(t *testing.T) {
	rec := func(kill int) Restore {
		return Restore{Case: "f", Step: &Step{Case: "f", Kind: StepKill, Kill: kill}, Repeat: 1, Params: config.Case{Scenario: config.ScenarioFailover},
			Verified: true, Verification: verify.Result{Mode: VerificationLedger}, Failover: &FailoverRecord{Kill: kill, Kills: 2}}
	}
	r := &Results{RunID: "x", Restores: []Restore{rec(1), rec(2)}}
	if err := r.Check(); err != nil {
		t.Fatalf("two kills of one sequence: %v", err)
	}
	r.Restores = append(r.Restores, rec(2))
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), `restores[2] (case "f" repeat 1 kill 2) repeats restores[1]`) {
		t.Fatalf("the same kill twice: %v", err)
	}
}

// TestFailedIsDerivedFromTheRecord: a record fails when it errored or did
// not verify, except where only counted or judged by its ledger.
func TestFailedIsDerivedFromTheRecord(t *testing.T) {
	for _, c := range []struct {
		r    Restore
		want bool
	}{
		{Restore{Verified: true, Verification: verify.Result{Mode: verify.ModeExpectedState}}, false},
		{Restore{Verified: false, Verification: verify.Result{Mode: verify.ModeExpectedState}}, true},
		{Restore{Error: "boom"}, true},
		{Restore{Verification: verify.Result{Mode: verify.ModeUnverified}}, false},
		{Restore{Error: "scan failed", Verification: verify.Result{Mode: verify.ModeUnverified}}, true},
		{Restore{Error: "ledger not verified: at-least-once", Verification: verify.Result{Mode: VerificationLedger}, Failover: &FailoverRecord{Kill: 1}}, false},
		{Restore{Verification: verify.Result{Mode: VerificationLedger}}, true},
	} {
		if got := c.r.Failed(); got != c.want {
			t.Errorf("%+v: Failed() = %t, want %t", c.r, got, c.want)
		}
	}
}
