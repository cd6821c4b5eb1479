package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/runs"
)

// run executes the CLI in-process with args and returns its error.
func run(t *testing.T, args ...string) error {
	t.Helper()
	t.Chdir(t.TempDir()) // default output paths land there, not in the source tree
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return cmd.ExecuteContext(ctx)
}

func TestBadInputGetsOneClearError(t *testing.T) {
	dir := t.TempDir()
	badProfile := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badProfile, []byte("fill:\n  size: 1MB\n  partitons: 3\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "nosuch"}, `profile "nosuch": no such file`},
		{[]string{"run", badProfile}, `line 3: fill.partitons: unknown field (did you mean partitions?)`},
		{[]string{"fill", "--size", "-2GiB"}, "--size:"},
		{[]string{"fill", "--size", "1MB", "--value-size", "9-3"}, "--value-size:"},
		{[]string{"restore", "--batch-records", "-1"}, "--batch-records:"},
		{[]string{"restore", "--strategy", "turbo"}, "--strategy:"},
		{[]string{"--brokers", "nocolon", "restore"}, `--brokers: broker address "nocolon" is not host:port`},
		{[]string{"--brokers", "127.0.0.1:1", "--connect-timeout", "2s", "--data-dir", dir, "restore"}, "127.0.0.1:1"},
		{[]string{"--sasl-mechanism", "GSSAPI", "--security-protocol", "SASL_SSL", "--sasl-username", "u", "--brokers", "127.0.0.1:1", "restore"}, "GSSAPI"},
		{[]string{"compare", filepath.Join(dir, "missing.json")}, "missing.json"},
	}
	for _, c := range cases {
		err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestFillRunAndPlotEndToEnd drives the CLI as a user would on the embedded
// broker: run a tiny profile, then re-plot its results from the file alone.
func TestFillRunAndPlotEndToEnd(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(profile, []byte("name: tiny\nfill:\n  records: 20000\n  keys: 3000\n  partitions: 2\ncases:\n  - name: a\n  - name: b\n    batch_records: 100\n"), 0o644)
	out := filepath.Join(dir, "out")
	if err := run(t, "-q", "--data-dir", filepath.Join(dir, "data"), "run", profile, "--out", out); err != nil {
		t.Fatal(err)
	}
	res, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Restores) != 2 || !res.Restores[0].Verified || !res.Restores[1].Verified {
		t.Fatalf("run: complete=%v restores=%d", res.Complete, len(res.Restores))
	}
	replot := filepath.Join(dir, "replot")
	if err := run(t, "plot", filepath.Join(out, "results.json"), "--out", replot); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"restore-throughput.png", "restore-time-per-case.svg", "restore-phases.png"} {
		if st, err := os.Stat(filepath.Join(replot, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	cmp := filepath.Join(dir, "cmp.md")
	if err := run(t, "compare", out, "--format", "markdown", "--out", cmp); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cmp); !strings.Contains(string(b), "| b vs a |") {
		t.Fatalf("compare markdown lacks case b:\n%s", b)
	}
}
