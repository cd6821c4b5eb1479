package main

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// TestIncompleteReasonTellsFailuresFromStops: a run that went on to its end
// past failed measurements is not reported as stopped early.
func TestIncompleteReasonTellsFailuresFromStops(t *testing.T) {
	failed := incompleteReason(&runs.Results{RunID: "r", Failed: 1, Error: "1 restore(s) failed: a #1: restore did not verify"})
	if !strings.Contains(failed, "ran every case") || strings.Contains(failed, "stopped early") {
		t.Errorf("failed measurements: %q", failed)
	}
	stopped := incompleteReason(&runs.Results{RunID: "r", Error: "interrupted during case a #1: context canceled"})
	if !strings.Contains(stopped, "stopped early") {
		t.Errorf("interrupted: %q", stopped)
	}
}
