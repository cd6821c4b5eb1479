package main

// Answers as a user reads them (issue: answers you can trust): each test
// builds the results file for one misleading answer and asserts what the
// user is told.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/runs"
)

// TestCompactedFillIsSaidWhereItsSizeIsPrinted: a reused fill that the
// log cleaner compacted since holds fewer records than the fill wrote;
// summary, report and compare say so next to the fill's size.
func TestCompactedFillIsSaidWhereItsSizeIsPrinted(t *testing.T) {
	r := capacitytest.Run(0, 128e6, capacitytest.Cases)
	r.Fill.Reused = true
	for i := range r.Restores {
		rec := &r.Restores[i]
		rec.Records, rec.Bytes = r.Fill.Records*43/100, r.Fill.Bytes*43/100
		rec.Phase.MBPerSec, rec.Phase.RecordsPerSec = runs.MBPerSec(rec.Bytes, rec.Phase.Seconds), runs.PerSec(rec.Records, rec.Phase.Seconds)
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

// TestStandbyVerdictCountsDetectionAndSaysInconclusive: the standby verdict
// adds failure detection (Kafka's 45 s default, labelled assumed, when no
// failover run measured it), shows its margin, and is inconclusive when it
// rests on a wide extrapolation.
func TestStandbyVerdictCountsDetectionAndSaysInconclusive(t *testing.T) {
	dir := writeRaw(t, t.TempDir(), "quick", capacitytest.Run(0, 512e6, capacitytest.Cases))
	plan := func(args ...string) string {
		out, _, err := cli(t, append([]string{"plan", "--from", dir, "--partitions", "16", "--instances", "4"}, args...)...)
		if err != nil && !strings.Contains(err.Error(), "cannot be answered") {
			t.Fatalf("plan %v: %v", args, err)
		}
		return out
	}
	answer := func(out, question string) string {
		i := strings.Index(out, question+"\n  = ")
		if i < 0 {
			t.Fatalf("no answer to %q:\n%s", question, out)
		}
		line := out[i+len(question)+5:]
		return line[:strings.Index(line, "\n")]
	}
	// 4 GiB over 16 tasks: the survivors restore about what was measured;
	// the restore alone fits 50 s, detection makes it miss.
	out := plan("--state", "4GiB", "--rto", "50s,2m")
	if !strings.Contains(out, "plus failure detection, 45.0 s ASSUMED: Kafka's default session timeout") {
		t.Errorf("detection not counted as Kafka's default:\n%s", out)
	}
	if got := answer(out, "Is a standby needed for the RTO?"); !strings.HasPrefix(got, "yes for 50 s (without one it misses by ") || !strings.Contains(got, "no for 2 min (") {
		t.Errorf("standby needed: %q", got)
	}
	// 50 GiB from a 512 MB run: 13 times beyond the size measured decides nothing.
	out = plan("--state", "50GiB", "--rto", "2m")
	if got := answer(out, "Is a standby needed for the RTO?"); !strings.HasPrefix(got, "inconclusive for 2 min (") || !strings.Contains(got, "beyond the sizes measured") {
		t.Errorf("standby needed from a 13× extrapolation: %q", got)
	}
	if got := answer(out, "Recovery after an instance fails, without a standby"); !strings.Contains(got, "INCONCLUSIVE for the 2 min RTO") {
		t.Errorf("recovery verdict from a 13× extrapolation: %q", got)
	}
}

// TestWriteRateMeansBytesEverywhere: --write-rate is bytes a second in
// predict as in plan and report ("5MB/s" works); records a second are
// --write-records, and both give the same prediction.
func TestWriteRateMeansBytesEverywhere(t *testing.T) {
	base := []string{"predict", "scaleout", "--tasks", "8", "--task-size", "100MB", "--before", "2", "--after", "4",
		"--restore-rate", "50MB", "--record-size", "500", "--samples", "5", "--json"}
	bytesOut, _, err := cli(t, append(base, "--write-rate", "5MB/s")...)
	if err != nil {
		t.Fatalf("--write-rate 5MB/s: %v", err)
	}
	recordsOut, _, err := cli(t, append(base, "--write-records", "10000")...)
	if err != nil {
		t.Fatal(err)
	}
	if bytesOut != recordsOut {
		t.Errorf("5 MB/s of 500-byte records and 10,000 records/s predict differently:\n%s\n%s", bytesOut, recordsOut)
	}
	if !strings.Contains(bytesOut, `"write_records_per_sec": 10000,`) {
		t.Errorf("the prediction's inputs do not show 10,000 records/s:\n%s", bytesOut)
	}
}

// TestPlanAndReportShareTheirDefaults: --rto means the same objectives in
// plan and report when not given.
func TestPlanAndReportShareTheirDefaults(t *testing.T) {
	p, r := newPlanCmd().Flags().Lookup("rto"), newReportCmd().Flags().Lookup("rto")
	if p == nil || r == nil || p.DefValue != r.DefValue {
		t.Fatalf("--rto defaults: plan %v, report %v", p, r)
	}
}

// TestRatesSayWhatTheyWereMeasuredOn: the rate names the records per live
// key (and record size, tombstone share) of the changelogs it was measured
// on, and every answer from it warns when --records-per-key is far off.
func TestRatesSayWhatTheyWereMeasuredOn(t *testing.T) {
	dir := writeRaw(t, t.TempDir(), "run", capacitytest.Run(0, 512e6, capacitytest.Cases))
	out, _, err := cli(t, "plan", "--from", dir, "--state", "4GiB", "--partitions", "16")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "measured on changelogs of 2.4 records per live key, 516 B a record, 2% tombstones") {
		t.Errorf("the rate does not say what it was measured on:\n%s", out)
	}
	if strings.Contains(out, "WARNING: the rate was measured at") {
		t.Errorf("a warning without --records-per-key:\n%s", out)
	}
	out, _, err = cli(t, "plan", "--from", dir, "--state", "4GiB", "--partitions", "16", "--records-per-key", "8")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "WARNING: the rate was measured at 2.4 records per live key, yours is 8.0"); n < 3 {
		t.Errorf("%d answers warn of the far shape, want every rate-based one:\n%s", n, out)
	}
	_, _, err = cli(t, "plan", "--from", dir, "--records-per-key", "0.5")
	wantErr(t, "--records-per-key 0.5", err, "--records-per-key", "at least 1")
}

// TestProfilesNamesWhatEachCaseVaries: `profiles NAME` ends with the
// expanded cases and the settings each varies (a matrix over a RocksDB
// option names it), as comments, so the output is still a profile.
func TestProfilesNamesWhatEachCaseVaries(t *testing.T) {
	out, _, err := cli(t, "profiles", "tuning")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# expands to ", "#   put-wb64m: model, max_write_buffer_number=4, write_buffer_size=67108864", "#   put-2-threads: model, threads=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("profiles tuning lacks %q:\n%s", want, out)
		}
	}
	p := filepath.Join(t.TempDir(), "copy.yaml")
	os.WriteFile(p, []byte(out), 0o644)
	if _, _, err := cli(t, "profiles", p); err != nil {
		t.Errorf("the printed profile does not read back: %v", err)
	}
}

// TestPlanAsJSON: plan --format json gives the same answers as the text,
// with each check's margin and verdict, for scripts.
func TestPlanAsJSON(t *testing.T) {
	dir := writeRaw(t, t.TempDir(), "run", capacitytest.Run(0, 512e6, capacitytest.Cases))
	args := []string{"plan", "--from", dir, "--state", "4GiB", "--partitions", "16", "--instances", "4", "--rto", "50s,2m"}
	text, _, _ := cli(t, args...)
	out, _, _ := cli(t, append(args, "--format", "json")...)
	var doc struct {
		Runs []struct {
			RunID string `json:"run_id"`
		}
		Answers []struct {
			Question string `json:"question"`
			Value    string `json:"text"`
			Checks   []struct {
				RTOSeconds    float64 `json:"rto_seconds"`
				MarginSeconds float64 `json:"margin_seconds"`
				Meets         bool    `json:"meets"`
				AtLeast       bool    `json:"at_least"`
				Verdict       string  `json:"text"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Runs) != 1 || len(doc.Answers) == 0 {
		t.Fatalf("runs %v, %d answers", doc.Runs, len(doc.Answers))
	}
	for _, a := range doc.Answers {
		if !strings.Contains(text, a.Question+"\n  = "+a.Value) {
			t.Errorf("answer %q = %q is not the text's", a.Question, a.Value)
		}
		for _, c := range a.Checks {
			if !strings.Contains(text, c.Verdict) || (c.Meets != (c.MarginSeconds >= 0)) {
				t.Errorf("check %+v of %q", c, a.Question)
			}
			// A margin taken at an interval's near end says so: a script
			// must not read it as the point estimate's.
			if c.AtLeast != strings.Contains(c.Verdict, "by at least") {
				t.Errorf("check %+v of %q: AtLeast is not the verdict's", c, a.Question)
			}
		}
	}
	_, _, err := cli(t, append(args, "--format", "yaml")...)
	wantErr(t, "--format yaml", err, "--format", "text or json")
}

// TestSummaryForScripts: summary --format csv is one row per record with
// units in the header; --format json the cold cases' medians.
func TestSummaryForScripts(t *testing.T) {
	r := capacitytest.Run(0, 128e6, capacitytest.Cases)
	dir := writeRaw(t, t.TempDir(), "run", r)
	out, _, err := cli(t, "summary", dir, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(r.Restores)+1 || !strings.HasPrefix(lines[0], "case,repeat,scenario,engine,verified,error,duration_seconds,") {
		t.Fatalf("csv: %d lines for %d records:\n%s", len(lines), len(r.Restores), out)
	}
	out, _, err = cli(t, "summary", dir, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		RunID string `json:"run_id"`
		Cases []struct {
			Case          string  `json:"case"`
			Verified      int     `json:"verified"`
			MedianSeconds float64 `json:"median_restore_seconds"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.RunID != r.RunID || len(doc.Cases) != len(capacitytest.Cases) || doc.Cases[0].Verified != 4 {
		t.Fatalf("json (%v): %+v", err, doc)
	}
}
