package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// predict runs `predict ARGS...` and returns its output.
func predict(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newPredictCmd()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(new(bytes.Buffer))
	err := cmd.Execute()
	return out.String(), err
}

// TestPredictScaleOutFromFlags: 48 tasks of 20 GB (the question was asked of 200; fewer keep it quick under -race),
// 6 -> 12 instances, answered as a labelled prediction with its inputs.
func TestPredictScaleOutFromFlags(t *testing.T) {
	out, err := predict(t, "scaleout", "--tasks", "48", "--task-size", "20GB", "--before", "6", "--after", "12",
		"--restore-rate", "50MB/s", "--write-records", "2000", "--samples", "6")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PREDICTION (warmup model, not measured)", "6 -> 12 instances, 48 tasks", "20.0 GB per task",
		"restore 50000 offsets/s per stream thread (50.0 MB/s)", "probing.rebalance.interval.ms 600000", "6 random process-id orders",
		"predicted warmup-assignment time", "probing"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestPredictScaleOutTakesTheRateFromAResultsFile: --from a run of cold
// restores gives the restore rate per thread and the record size.
func TestPredictScaleOutTakesTheRateFromAResultsFile(t *testing.T) {
	c := config.DefaultCase()
	c.Threads = 2
	res := &runs.Results{SchemaVersion: runs.SchemaVersion, Restores: []runs.Restore{
		{Case: "a", Step: &runs.Step{Case: "a", Kind: runs.StepRestore}, Repeat: 1, Params: c, Verified: true, Records: 1_000_000, Bytes: 500_000_000,
			Phase:        &runs.RestorePhase{Seconds: 10, TotalSeconds: 10, RecordsPerSec: 100_000, MBPerSec: 50},
			Verification: verify.Result{Mode: verify.ModeExpectedState, Partitions: []verify.PartitionCheck{{ExpectedKeys: 10, ActualKeys: 10, OK: true}}}},
	}}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := res.Save(path); err != nil {
		t.Fatal(err)
	}
	out, err := predict(t, "scaleout", "--from", path, "--tasks", "8", "--task-size", "20MB", "--before", "2", "--after", "4",
		"--probing-interval", "1m", "--samples", "10")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "restore 50000 offsets/s per stream thread (25.0 MB/s), from 1 verified cold restores on the model engine") ||
		!strings.Contains(out, "tasks 8, 40000 offsets each (500 bytes/record") {
		t.Fatalf("output:\n%s", out)
	}
	if _, err := predict(t, "scaleout", "--from", path); err == nil || !strings.Contains(err.Error(), "no scale-out with a prediction") {
		t.Fatalf("replay of a run without scale-outs: %v", err)
	}
}

func TestPredictScaleOutNamesTheBadFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scaleout", "--before", "2", "--after", "4", "--task-size", "1GB", "--restore-rate", "10MB"}, "--tasks"},
		{[]string{"scaleout", "--tasks", "8", "--before", "2", "--after", "4", "--task-size", "1GB"}, "--restore-rate"},
		{[]string{"scaleout", "--tasks", "8", "--before", "2", "--after", "4", "--task-size", "1GB", "--restore-rate", "fast"}, "--restore-rate"},
		{[]string{"scaleout", "--tasks", "8", "--before", "2", "--after", "4", "--task-size", "1GB", "--restore-rate", "10MB", "--probing-interval", "30s"}, "minimum of 60s"},
		{[]string{"scaleout", "--tasks", "8", "--before", "4", "--after", "4", "--task-size", "1GB", "--restore-rate", "10MB"}, "after"},
	} {
		if _, err := predict(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}
