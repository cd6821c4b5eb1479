package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/results/*/summary.golden from the current output")

// TestSavedRunsOfBuiltinProfiles: real results files of the built-in
// profiles, written by an earlier build (schema 1), still load everywhere:
// their summary is what summary.golden says, and plot and report draw them.
func TestSavedRunsOfBuiltinProfiles(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "results"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(root, "*", "results.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no saved runs under %s (%v)", root, err)
	}
	for _, saved := range dirs {
		name := filepath.Base(filepath.Dir(saved))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(saved)
			if err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(t.TempDir(), name)
			os.MkdirAll(run, 0o755)
			if err := os.WriteFile(filepath.Join(run, "results.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, err := cli(t, "summary", run)
			if err != nil {
				t.Fatalf("summary: %v", err)
			}
			out = strings.ReplaceAll(out, run, "RUN")
			golden := filepath.Join(filepath.Dir(saved), "summary.golden")
			if *updateGolden {
				os.WriteFile(golden, []byte(out), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if out != string(want) {
				t.Errorf("summary of %s differs from %s (rerun with -update if intended):\n%s", name, golden, out)
			}
			charts := t.TempDir()
			if _, _, err := cli(t, "plot", run, "--out", charts); err != nil {
				t.Fatalf("plot: %v", err)
			}
			if svgs, _ := filepath.Glob(filepath.Join(charts, "*.svg")); len(svgs) == 0 {
				t.Errorf("plot drew no chart of %s", name)
			}
			rep := t.TempDir()
			if _, _, err := cli(t, "report", "--out", rep, run); err != nil {
				t.Fatalf("report: %v", err)
			}
			if md, err := os.ReadFile(filepath.Join(rep, "report.md")); err != nil || !strings.Contains(string(md), "## Summary") {
				t.Errorf("report of %s: %v", name, err)
			}
		})
	}
}
