package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/capacity/capacitytest"
)

// execCmd runs one command (not yet wired into the root) with args.
func execCmd(t *testing.T, cmd *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

// syntheticRunDirs writes capacitytest's four runs as run directories.
func syntheticRunDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := capacitytest.Write(t.TempDir(), capacitytest.Runs())
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// scenarioRunDirs are syntheticRunDirs and capacitytest's scenario run
// (warm restarts, standby steps, failovers, a scale-out, compaction).
func scenarioRunDirs(t *testing.T) []string {
	t.Helper()
	rs := append(capacitytest.Runs(), capacitytest.ScenarioRun(len(capacitytest.Sizes)))
	dirs, err := capacitytest.Write(t.TempDir(), rs)
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestPlanScenarioFlags: --standbys, --write-rate and --live-state are
// answered when the runs hold failover, standby and compaction records,
// and plan exits non-zero naming what is missing when they do not.
func TestPlanScenarioFlags(t *testing.T) {
	cold := "--from=" + strings.Join(syntheticRunDirs(t), ",")
	all := "--from=" + strings.Join(scenarioRunDirs(t), ",")
	cases := []struct {
		args    []string
		wantErr string
		wantOut []string
	}{
		{args: []string{all, "--standbys", "1"}, wantOut: []string{"Failover with num.standby.replicas=1 (SIGKILL of an active instance)\n  = 9.60 s processing gap (median 8.10 s), any state size  (meets the 1 min RTO by 50.4 s; meets the 5 min RTO by 4.84 min; meets the 15 min RTO by 14.8 min)",
			"runs:   R5 eos-standby #1 kills 1-3"}},
		{args: []string{all, "--write-rate", "20MB/s"}, wantOut: []string{"Does a standby keep up with 20.0 MB/s of writes?\n  = yes: 41.3 MB/s (80,000 records/s) measured"}},
		{args: []string{all, "--write-rate", "100MB/s"}, wantOut: []string{"= no: it sustained 41.3 MB/s"}},
		{args: []string{cold, "--write-rate", "20MB/s"}, wantErr: "whether a standby keeps up with 20.0 MB/s of writes", wantOut: []string{"needs a standby run"}},
		{args: []string{all, "--live-state", "10GB", "--partitions", "16", "--instances", "4", "--standbys", "1", "--rto", "1m,5m"},
			wantOut: []string{"Changelog to restore for 10.0 GB of live state\n  = 37.2 GB (the bound of these settings", "Is a standby needed for the RTO?", "Cold restore of one task (2.32 GB of changelog)"}},
		{args: []string{cold, "--live-state", "10GB", "--partitions", "16"}, wantOut: []string{"(WORST CASE these settings allow, not measured)"}},
		{args: []string{cold, "--live-state", "10GB"}, wantErr: "Changelog to restore for 10.0 GB of live state", wantOut: []string{"needs --partitions"}},
		{args: []string{all, "--live-state", "10GB", "--cleaner", "segment.bytes=8388608,min.cleanable.dirty.ratio=0.1"}, wantOut: []string{"= 13.6 GB (measured amplification ×1.36)"}},
		{args: []string{all, "--live-state", "10GB", "--state", "20GB"}, wantErr: "--state and --live-state: give one"},
		{args: []string{all, "--live-state", "1GB", "--cleaner", "segment.bytes=big"}, wantErr: "--cleaner segment.bytes=big: \"big\": want a whole number"},
		{args: []string{all, "--cleaner", "segment.bytes=1"}, wantErr: "--cleaner: the cleaner settings turn --live-state"},
	}
	for _, c := range cases {
		out, _, err := execCmd(t, newPlanCmd(), c.args...)
		name := strings.Join(c.args[1:], " ")
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("plan %s: %v", name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("plan %s: error %v, want one containing %q", name, err, c.wantErr)
		}
		for _, w := range c.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("plan %s: output lacks %q:\n%s", name, w, out)
			}
		}
	}
}

// TestPlanExitCodesAndMessages: plan answers what its inputs can answer,
// and fails with a message naming what is missing otherwise.
func TestPlanExitCodesAndMessages(t *testing.T) {
	dirs := syntheticRunDirs(t)
	from := "--from=" + strings.Join(dirs, ",")
	cases := []struct {
		args     []string
		wantErr  string // "" for success
		wantOut  []string
		noOutput bool
	}{
		{args: nil, wantErr: "plan needs measured restore rates: give --from RUN", noOutput: true},
		{args: []string{"--from", filepath.Join(t.TempDir(), "missing")}, wantErr: "no such results file or run directory", noOutput: true},
		{args: []string{"--from", t.TempDir()}, wantErr: "is a directory without results.json", noOutput: true},
		{args: []string{from}, wantOut: []string{"Cold-restore rate (kstreams-default (model, Kafka Streams defaults))", "Largest changelog per task restored within 5 min", "runs:   R1, R2, R3, R4"}},
		{args: []string{from, "--case", "nosuch"}, wantErr: `no verified cold restore of case "nosuch" in the inputs (cases: kstreams-default, threads-2, ingest)`, noOutput: true},
		{args: []string{from, "--standbys", "1"}, wantErr: "1 question(s) cannot be answered from the inputs: failover with num.standby.replicas=1",
			wantOut: []string{"cannot answer:", "needs a failover run with a standby", "Largest changelog per task"}},
		{args: []string{from, "--write-rate", "20MB/s"}, wantErr: "whether a standby keeps up with 20.0 MB/s of writes"},
		{args: []string{from, "--partitions", "8"}, wantErr: "per-task restore time", wantOut: []string{"--partitions needs --state"}},
		{args: []string{from, "--partitions", "-1"}, wantErr: "--partitions: -1 must be at least 0", noOutput: true},
		{args: []string{from, "--rto", "0s"}, wantErr: "--rto: 0s must be positive", noOutput: true},
		{args: []string{from, "--state", "48GB", "--partitions", "16", "--threads", "4", "--instances", "6", "--rto", "1m,5m"},
			wantOut: []string{"Cold restore of one task (3.00 GB of changelog)", "meets the 1 min RTO by at least 28.6 s; meets the 5 min RTO by at least 4.48 min", "Instances needed for an instance's tasks to restore within 1 min"}},
	}
	for _, c := range cases {
		out, _, err := execCmd(t, newPlanCmd(), c.args...)
		name := strings.Join(c.args, " ")
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("plan %s: %v", name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("plan %s: error %v, want one containing %q", name, err, c.wantErr)
		}
		if c.noOutput && out != "" {
			t.Errorf("plan %s printed answers although it failed up front:\n%s", name, out)
		}
		for _, w := range c.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("plan %s: output lacks %q:\n%s", name, w, out)
			}
		}
	}
}

// TestPlanAndReportGiveTheSameNumbers: every answer plan prints appears,
// with the same value, in the report made with the same flags.
func TestPlanAndReportGiveTheSameNumbers(t *testing.T) {
	dirs := scenarioRunDirs(t)
	flags := []string{"--live-state", "20GB", "--cleaner", "segment.bytes=8388608,min.cleanable.dirty.ratio=0.1", "--partitions", "16", "--threads", "4", "--instances", "6",
		"--standbys", "1", "--write-rate", "20MB/s", "--rto", "1m,5m"}
	out, _, err := execCmd(t, newPlanCmd(), append([]string{"--from", strings.Join(dirs, ",")}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, _, err := execCmd(t, newReportCmd(), append(append(append([]string(nil), dirs...), "--out", dir), flags...)...); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	n := 0
	for i, l := range lines {
		value, ok := strings.CutPrefix(l, "  = ")
		if !ok || i == 0 {
			continue
		}
		value, _, _ = strings.Cut(value, "  (")
		row := "| " + lines[i-1] + " | " + value
		if !strings.Contains(string(md), row) {
			t.Errorf("report.md has no row %q", row)
		}
		n++
	}
	if n < 20 {
		t.Errorf("compared %d answers, want the full deployment's with every scenario (20 or more)", n)
	}
}

// TestReportCommand writes the report into the first run's directory when
// --out is not given, and says so.
func TestReportCommand(t *testing.T) {
	dirs := syntheticRunDirs(t)
	out, errOut, err := execCmd(t, newReportCmd(), dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "writing into the first run's directory "+dirs[0]) || !strings.Contains(out, "wrote report.md and report.html (4 charts)") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	for _, f := range []string{"report.md", "report.html", "report-fit-changelog.svg"} {
		if st, err := os.Stat(filepath.Join(dirs[0], f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, _, err := execCmd(t, newReportCmd()); err == nil || !strings.Contains(err.Error(), "requires at least 1 arg") {
		t.Errorf("report without runs: %v", err)
	}
}
