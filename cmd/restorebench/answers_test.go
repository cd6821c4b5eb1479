package main

// Answers as a user reads them (issue: answers you can trust): each test
// builds the results file for one misleading answer and asserts what the
// user is told.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity/capacitytest"
)

// TestCompactedFillIsSaidWhereItsSizeIsPrinted: a reused fill that the
// log cleaner compacted since holds fewer records than the fill wrote;
// summary, report and compare say so next to the fill's size.
func TestCompactedFillIsSaidWhereItsSizeIsPrinted(t *testing.T) {
	r := capacitytest.Run(0, 128e6, capacitytest.Cases)
	r.Fill.Reused = true
	for i := range r.Restores {
		r.Restores[i].Records = r.Fill.Records * 43 / 100
		r.Restores[i].Bytes = r.Fill.Bytes * 43 / 100
	}
	dir := writeRaw(t, t.TempDir(), "run", r)
	want := "compacted since the fill: the cold restores read 106666 of its 248062 records"
	out, _, err := cli(t, "summary", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, want) {
		t.Errorf("summary does not say the fill was compacted:\n%s", out)
	}
	out, _, err = cli(t, "compare", dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "base changelog "+want) {
		t.Errorf("compare does not say the fill was compacted:\n%s", out)
	}
	rep := t.TempDir()
	if _, _, err := cli(t, "report", "--out", rep, dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
	if !strings.Contains(string(md), want) {
		t.Errorf("report does not say the fill was compacted")
	}

	// A fill its restores read whole is not called compacted.
	full := writeRaw(t, t.TempDir(), "full", capacitytest.Run(0, 128e6, capacitytest.Cases))
	if out, _, _ := cli(t, "summary", full); strings.Contains(out, "compacted since") {
		t.Errorf("a whole fill is called compacted:\n%s", out)
	}
}
