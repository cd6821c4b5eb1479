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

// TestRunNamesTheNextCommand: a run ends by naming the command that
// answers a capacity question from it, with its own directory.
func TestRunNamesTheNextCommand(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(p, []byte("name: tiny\nrepeats: 1\nfill: {records: 2000, keys: 300, partitions: 1}\ncases:\n  - name: a\n"), 0o644)
	out := filepath.Join(t.TempDir(), "run")
	stdout, _, err := cli(t, "run", p, "--out", out, "--no-plots")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"restorebench plan --from " + out + " --state", "restorebench report " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run's output lacks %q:\n%s", want, stdout)
		}
	}
	// The command it names reads the run and answers from it.
	planOut, _, err := cli(t, "plan", "--from", out, "--state", "50GiB", "--partitions", "16", "--instances", "4", "--rto", "2m")
	if err != nil && !strings.Contains(err.Error(), "cannot be answered from the inputs") {
		t.Fatalf("the plan it names: %v", err)
	}
	if !strings.Contains(planOut, "Cold-restore rate") {
		t.Errorf("the plan it names gives no rate:\n%s", planOut)
	}
}

// TestKafkaStreamsProfileWithoutTheDriverIsRefusedFirst: a profile with a
// kafka-streams case is refused before any fill when the driver is not
// built, naming the case and the way out.
func TestKafkaStreamsProfileWithoutTheDriverIsRefusedFirst(t *testing.T) {
	t.Setenv("RESTOREBENCH_KSTREAMS_LIB", t.TempDir())
	p := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(p, []byte("name: ks\nrepeats: 1\nfill: {records: 2000000, keys: 300, partitions: 1}\ncases:\n  - name: model\n  - name: real\n    engine: kafka-streams\n"), 0o644)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, err := cli(t, "run", p, "--out", out)
	wantErr(t, "run", err, "case real runs on the kafka-streams engine", "make kstreams")
	if strings.Contains(stderr, "fill: writing") {
		t.Errorf("the fill started before the refusal:\n%s", stderr)
	}
}
