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
			wantOut: []string{"cannot answer:", "needs a standby run", "Largest changelog per task"}},
		{args: []string{from, "--write-rate", "20MB/s"}, wantErr: "whether a standby keeps up with 20.0 MB/s of writes"},
		{args: []string{from, "--partitions", "8"}, wantErr: "per-task restore time", wantOut: []string{"--partitions needs --state"}},
		{args: []string{from, "--partitions", "-1"}, wantErr: "--partitions: -1 must be at least 0", noOutput: true},
		{args: []string{from, "--rto", "0s"}, wantErr: "--rto: 0s must be positive", noOutput: true},
		{args: []string{from, "--state", "48GB", "--partitions", "16", "--threads", "4", "--instances", "6", "--rto", "1m,5m"},
			wantOut: []string{"Cold restore of one task (3.00 GB of changelog)", "meets the 1 min RTO; meets the 5 min RTO", "Instances needed for an instance's tasks to restore within 1 min"}},
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
	dirs := syntheticRunDirs(t)
	flags := []string{"--state", "48GB", "--partitions", "16", "--threads", "4", "--instances", "6", "--rto", "1m,5m"}
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
	if n < 10 {
		t.Errorf("compared %d answers, want the full deployment's (10 or more)", n)
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
