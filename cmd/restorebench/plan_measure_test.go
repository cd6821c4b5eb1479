package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanMeasureAnswersFromTheTopicsOwnRestore: plan --from-topic
// --measure, with no --from run at all, restores the topic itself (here on
// the model engine, the embedded broker), saves the restores as a run and
// answers from them: the rate line rests on that run's restores, measured
// at the topic's own record size, with no shape warning and no NaN.
func TestPlanMeasureAnswersFromTheTopicsOwnRestore(t *testing.T) {
	data := t.TempDir()
	t.Chdir(t.TempDir()) // --measure saves its runs under ./results
	if _, err := rootOut(t, "--data-dir", data, "-q", "fill", "--records", "30000", "--keys", "5000", "--value-size", "8",
		"--partitions", "2", "--topic", "word-counts-changelog"); err != nil {
		t.Fatal(err)
	}
	out, err := rootOut(t, "--data-dir", data, "-q", "plan", "--from-topic", "word-counts-changelog", "--measure",
		"--measure-engines", "model", "--measure-repeats", "2", "--instances", "2", "--rto", "1m")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"Your changelog word-counts-changelog restored cold on the model engine (measured)",
		"median of 2 restores",
		"measured on changelogs of 6.0 records per live key, 24.0 B a record",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, bad := range []string{"NaN", "WARNING: the rate was measured at", "Inf"} {
		if strings.Contains(out, bad) {
			t.Errorf("plan --measure printed %q:\n%s", bad, out)
		}
	}
	runsDir, _ := filepath.Glob(filepath.Join("results", "*-measure", "results.json"))
	if len(runsDir) != 1 {
		t.Errorf("--measure saved %d runs under results/, want 1 (one engine)", len(runsDir))
	}
	// As a DSL count's store, of a topic restorebench did not fill (its
	// manifest gone): the store's kind is not a setting that keeps the
	// answers from resting on the topic's own restores.
	if err := os.RemoveAll(filepath.Join(data, "fills")); err != nil {
		t.Fatal(err)
	}
	// Beside a --from run, the measured run and it are two inputs, R1 and R2.
	out, err = rootOut(t, "--data-dir", data, "-q", "plan", "--from-topic", "word-counts-changelog", "--measure", "--from", runsDir[0],
		"--measure-store-kind", "timestamped-key-value", "--measure-engines", "model", "--measure-repeats", "1", "--instances", "2", "--rto", "1m")
	if err != nil || !strings.Contains(out, "Your changelog word-counts-changelog restored cold on the model engine (measured)") ||
		!strings.Contains(out, "R2 = "+runsDir[0]) {
		t.Fatalf("plan --measure of a timestamped store beside a --from run: %v\n%s", err, out)
	}
	// report takes the same flags: --measure restores the topic there too,
	// and the report answers from it.
	report := t.TempDir()
	if out, err := rootOut(t, "--data-dir", data, "-q", "report", runsDir[0], "--out", report, "--from-topic", "word-counts-changelog", "--measure",
		"--measure-store-kind", "timestamped-key-value", "--measure-engines", "model", "--measure-repeats", "1", "--instances", "2", "--rto", "1m"); err != nil {
		t.Fatalf("report --measure: %v\n%s", err, out)
	}
	measures, _ := filepath.Glob(filepath.Join("results", "*-measure*")) // a run id taken this second gets -2
	if len(measures) != 3 {
		t.Fatalf("after two plans and a report with --measure, results/ holds %d measuring runs, want 3: %v", len(measures), measures)
	}
	md, err := os.ReadFile(filepath.Join(report, "report.md"))
	if newest := filepath.Base(measures[2]); err != nil || !strings.Contains(string(md), newest) ||
		!strings.Contains(string(md), "restored cold on the model engine (measured)") {
		t.Fatalf("report --measure does not answer from its own restore of the topic, run %s (%v):\n%s", newest, err, md)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--measure", "--rto", "1m"}, "--measure: it restores the topic --from-topic names"},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-engines", "jvm"}, `--measure-engines: "jvm" is not an engine`},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-store-kind", "versioned-key-value"}, "--measure-store-kind \"versioned-key-value\""},
		{[]string{"plan", "--from-topic", "word-counts-changelog", "--measure", "--measure-repeats", "0"}, "--measure-repeats: 0 must be between 1"},
	} {
		_, err := rootOut(t, append([]string{"--data-dir", data, "-q"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestPlanMeasureSample: plan --from-topic --measure --sample 2 reads and
// restores two of the topic's partitions only (the largest and the
// smallest), each alone at its full size, saved as runs that say so; the
// per-task answer is that restore, decisive; the instance answer is
// composed from the tasks and, with no composition measured on this host,
// INCONCLUSIVE, saying why; the state is the sample's scaled to the topic.
func TestPlanMeasureSample(t *testing.T) {
	data := t.TempDir()
	t.Chdir(t.TempDir())
	if _, err := rootOut(t, "--data-dir", data, "-q", "fill", "--records", "40000", "--keys", "8000", "--value-size", "50",
		"--partitions", "6", "--topic", "sampled-changelog"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := cliNoChdir("--data-dir", data, "plan", "--from-topic", "sampled-changelog", "--measure", "--sample", "2",
		"--measure-engines", "model", "--measure-repeats", "2", "--instances", "1", "--rto", "10m", "--format", "json")
	out := stderr + stdout
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"sample of sampled-changelog (--sample 2): partitions", "of its 6",
		`"cold_restore_task"`, `"cold_restore_instance"`, "2 of 6 tasks restored at full size",
		"no composition measured for 1 thread", "scaled by the partitions' log segments"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	saved, _ := filepath.Glob(filepath.Join("results", "*-measure*", "results.json"))
	if len(saved) != 2 {
		t.Fatalf("--measure --sample 2 saved %d runs, want one per sampled partition: %v", len(saved), saved)
	}
	for _, p := range saved {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"restored_partitions": [`) {
			t.Errorf("%s restored no sample of partitions", p)
		}
	}
}
