package main

// Hostile results files: crafted or corrupted results.json files given to
// every command that reads them. A file the tool could not have written is
// refused, naming the record; a partial run is said to be partial wherever
// an answer is drawn from it.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// writeRaw writes r as dir/<name>/results.json without the checks Save
// makes, as a crafted file would be, and returns the run directory.
func writeRaw(t *testing.T, dir, name string, r *runs.Results) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// readers are the commands that read a results file, as argument lists
// ending in the file's place.
var readers = [][]string{
	{"summary"},
	{"compare"},
	{"calibration"},
	{"plan", "--state", "50GiB", "--partitions", "16", "--from"},
	{"report", "--out", "OUT"},
	{"plot", "--out", "OUT"},
}

// runReaders runs every reader on dir and returns each one's error.
func runReaders(t *testing.T, dir string) map[string]error {
	t.Helper()
	out := map[string]error{}
	for _, r := range readers {
		args := append([]string(nil), r...)
		for i, a := range args {
			if a == "OUT" {
				args[i] = t.TempDir()
			}
		}
		_, _, err := cli(t, append(args, dir)...)
		out[r[0]] = err
	}
	return out
}

// TestHostileResultsContradictions: a record repeated, a verdict its own
// verification contradicts, or figures no measurement gives are refused by
// every reader with an error naming the record and the field.
func TestHostileResultsContradictions(t *testing.T) {
	base := func() *runs.Results { return capacitytest.Run(0, 128e6, capacitytest.Cases) }
	cases := []struct {
		name   string
		modify func(*runs.Results)
		want   []string
	}{
		{"duplicate case and repeat", func(r *runs.Results) {
			r.Restores = append(r.Restores, r.Restores[1])
		}, []string{"repeats restores[1]", `case "kstreams-default" repeat 2`}},
		{"verified but every partition not ok", func(r *runs.Results) {
			v := &r.Restores[0].Verification
			for i := range v.Partitions {
				v.Partitions[i].OK, v.Partitions[i].ActualKeys = false, 0
				v.Partitions[i].ActualDigest ^= 0xff
			}
		}, []string{"restores[0]", "says verified", "partition 0 holds 0 keys"}},
		{"verified and ok but digest differs", func(r *runs.Results) {
			r.Restores[2].Verification.Partitions[1].ActualDigest ^= 1 << 40
		}, []string{"restores[2]", "partition 1"}},
		{"verified with no partition checked", func(r *runs.Results) {
			r.Restores[0].Verification.Partitions = nil
		}, []string{"restores[0]", "checked no partition"}},
		{"verified with an error", func(r *runs.Results) {
			r.Restores[1].Error = "restore did not finish"
		}, []string{"restores[1]", "restore did not finish"}},
		{"verified but counted only", func(r *runs.Results) {
			r.Restores[1].Verification.Mode = "unverified"
		}, []string{"restores[1]", "only counted"}},
		{"negative duration", func(r *runs.Results) {
			r.Restores[0].Phase.Seconds, r.Restores[0].Phase.TotalSeconds = -9.95, -9.65
		}, []string{"restores[0]", "restore.seconds is -9.95", "never negative"}},
		{"absurd duration", func(r *runs.Results) {
			r.Restores[3].Phase.TotalSeconds = 1e308
		}, []string{"restores[3]", "total_seconds", "plausible"}},
		{"absurd bytes", func(r *runs.Results) {
			r.Restores[3].Bytes = math.MaxInt64
		}, []string{"restores[3]", "bytes"}},
		{"negative records", func(r *runs.Results) {
			r.Restores[2].Records = -1
		}, []string{"restores[2]", "records is -1"}},
		{"restored partitions not its partition count", func(r *runs.Results) {
			r.Restores[2].RestoredPartitions = []int32{3}
		}, []string{"restores[2]", "restored_partitions lists 1 partitions, but it restored"}},
		{"restored partitions twice", func(r *runs.Results) {
			r.Restores[2].Partitions, r.Restores[2].RestoredPartitions = 2, []int32{3, 3}
		}, []string{"restores[2]", "restored_partitions [3 3]: not distinct"}},
		{"sample copy of a whole restore", func(r *runs.Results) {
			r.Restores[2].SampleCopy = &runs.SampleCopy{Topic: "app-sample-t", Records: 10, Bytes: 100, Seconds: 1}
		}, []string{"restores[2]", "sample_copy on a restore of every partition"}},
		{"sample copy negative seconds", func(r *runs.Results) {
			r.Restores[2].Partitions, r.Restores[2].RestoredPartitions = 1, []int32{3}
			r.Restores[2].SampleCopy = &runs.SampleCopy{Topic: "app-sample-t", Records: 10, Bytes: 100, Seconds: -1}
		}, []string{"restores[2]", "sample_copy.seconds is -1"}},
		{"negative fill", func(r *runs.Results) {
			r.Fill.Bytes = -5
		}, []string{"fill: bytes is -5"}},
		{"repeat zero", func(r *runs.Results) {
			r.Restores[0].Repeat = 0
		}, []string{"restores[0]", "repeat 0"}},
		{"one partition of two checked", func(r *runs.Results) {
			v := &r.Restores[0].Verification
			v.Partitions = v.Partitions[:1]
		}, []string{"restores[0]", "checked 1 of the fill's 4 partitions"}},
		{"a partition checked twice", func(r *runs.Results) {
			v := &r.Restores[0].Verification
			v.Partitions[1] = v.Partitions[0]
		}, []string{"restores[0]", "lists partition 0 twice"}},
		{"a partition the fill has not", func(r *runs.Results) {
			r.Restores[0].Verification.Partitions[3].Partition = 99
		}, []string{"restores[0]", "partition 99 of a fill of 4 partitions"}},
		{"checked against its own expected state", func(r *runs.Results) {
			p := &r.Restores[0].Verification.Partitions[2]
			p.ExpectedKeys, p.ActualKeys, p.ExpectedDigest, p.ActualDigest = 5, 5, 0xdeadbeef, 0xdeadbeef
		}, []string{"restores[0]", "partition 2 was checked against 5 keys", "not the fill's expected state"}},
		{"fewer records read than keys restored", func(r *runs.Results) {
			rec := &r.Restores[1]
			rec.Records, rec.Phase.RecordsPerSec = 5, 5/rec.Phase.Seconds
		}, []string{"restores[1]", "read 5 records but restored"}},
		{"partitions unlike the fill's", func(r *runs.Results) {
			r.Restores[0].Partitions = 7
		}, []string{"restores[0]", "restored 7 partitions of a fill of 4"}},
		{"verified on a topic not filled", func(r *runs.Results) {
			r.Restores[0].Topic = "someone-elses"
		}, []string{"restores[0]", `topic "someone-elses" is not a fill`}},
		{"counted only on the run's own fill", func(r *runs.Results) {
			r.Restores[0].Verified, r.Restores[0].Verification.Mode = false, "unverified"
		}, []string{"restores[0]", "mode unverified on topic"}},
		{"a ledger verdict on a cold restore", func(r *runs.Results) {
			r.Restores[0].Verification = verify.Result{Mode: runs.VerificationLedger}
		}, []string{"restores[0]", "belongs to a failover measurement"}},
		{"records in no time", func(r *runs.Results) {
			rec := &r.Restores[0]
			rec.Phase.Seconds, rec.Model.LoadSeconds, rec.Phase.MBPerSec, rec.Phase.RecordsPerSec = 0, 0, 0, 0
		}, []string{"restores[0]", "a restore takes time"}},
		{"a rate its bytes and time do not give", func(r *runs.Results) {
			r.Restores[0].Phase.MBPerSec = 9e8
		}, []string{"restores[0]", "mb_per_sec 9e+08, but"}},
		{"negative latency", func(r *runs.Results) {
			r.Restores[0].Model.BatchWrite.P99Ms = -5
		}, []string{"restores[0]", "batch_write.P99Ms is -5"}},
		{"negative RocksDB figure", func(r *runs.Results) {
			r.Restores[0].Model.RocksDB.StallSeconds = -4
		}, []string{"restores[0]", "rocksdb.StallSeconds is -4"}},
		{"a fill spec no fill has", func(r *runs.Results) {
			r.Fill.Spec.Keys = -5
		}, []string{"fill: spec", "keys"}},
		{"negative CPUs", func(r *runs.Results) {
			r.Host.CPUs = -2
		}, []string{"host: -2 CPUs"}},
		{"an engine this tool has not", func(r *runs.Results) {
			r.Restores[0].Params.Engine = "quantum"
		}, []string{"restores[0]", `engine "quantum" is not one of`}},
		{"a scenario this tool has not", func(r *runs.Results) {
			r.Restores[0].Params.Scenario = "bogus"
		}, []string{"restores[0]", `scenario "bogus" is not one of`}},
		{"negative threads", func(r *runs.Results) {
			r.Restores[0].Params.Threads = -3
		}, []string{"restores[0]", "threads -3"}},
		{"no case name", func(r *runs.Results) {
			r.Restores[0].Case = ""
		}, []string{"restores[0]", "no case name"}},
		{"a repeat the profile did not run", func(r *runs.Results) {
			extra := r.Restores[0]
			extra.Repeat = 5
			r.Restores = append(r.Restores, extra)
		}, []string{"repeat 5, but the run's profile ran 4 repeats"}},
		{"complete with a repeat missing", func(r *runs.Results) {
			r.Restores = r.Restores[1:]
		}, []string{`case "kstreams-default": the run says it is complete, but holds 3 of the 4 repeats`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := base()
			c.modify(r)
			dir := writeRaw(t, t.TempDir(), "run", r)
			for cmd, err := range runReaders(t, dir) {
				wantErr(t, cmd, err, c.want...)
			}
		})
	}
}

// TestHostileResultsSameRunTwice: the same run given twice (by two paths)
// to report or plan counts once or not at all: it is an error naming both.
func TestHostileResultsSameRunTwice(t *testing.T) {
	r := capacitytest.Run(0, 128e6, capacitytest.Cases)
	dir := t.TempDir()
	a := writeRaw(t, dir, "a", r)
	b := writeRaw(t, dir, "b", r)
	renamed := capacitytest.Run(0, 128e6, capacitytest.Cases)
	renamed.RunID += "-copy"
	c := writeRaw(t, dir, "c", renamed)
	for _, args := range [][]string{
		{"report", "--out", t.TempDir(), a, c},
		{"plan", "--from", a, "--from", c},
	} {
		_, _, err := cli(t, args...)
		wantErr(t, strings.Join(args, " ")+" (renamed)", err, "is the measurement", "the same run under another run id")
	}
	for _, args := range [][]string{
		{"report", "--out", t.TempDir(), a, a},
		{"report", "--out", t.TempDir(), a, b, a},
		{"plan", "--state", "10GB", "--from", a, "--from", b},
	} {
		_, _, err := cli(t, args...)
		wantErr(t, strings.Join(args, " "), err, "run "+r.RunID+" is given twice")
	}
}

// TestHostileRepeatedSteps: a size sweep, warm restart or standby that
// names a size or step twice would record it twice under one identity; the
// profile is refused, naming the repeated entry.
func TestHostileRepeatedSteps(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{"sizes: [1MB, 1000000B, 2MB]\nfill: {keys: 100, partitions: 1}\ncases:\n  - name: a\n", []string{"sizes[1]", "repeats sizes[0]"}},
		{"fill: {records: 1000, keys: 100}\ncases:\n  - name: a\n    scenario: warm\n    warm: {changed: [10, 5%, 10]}\n", []string{"warm.changed[2]", "repeats warm.changed[0]"}},
		{"fill: {records: 1000, keys: 100}\ncases:\n  - name: a\n    scenario: warm\n    warm: {changed: [5%, 5%]}\n", []string{"warm.changed[1]", "repeats warm.changed[0]"}},
		{"fill: {records: 1000, keys: 100}\ncases:\n  - name: a\n    scenario: standby\n    standby: {rates: [1000, 2000, 1000]}\n", []string{"standby.rates[2]", "repeats standby.rates[0]"}},
		{"fill: {records: 1000, keys: 100}\ncases:\n  - name: a\n    scenario: standby\n    standby: {rates: [1000], pauses: [5s, 5000ms]}\n", []string{"standby.pauses[1]", "repeats standby.pauses[0]"}},
	}
	for i, c := range cases {
		p := filepath.Join(t.TempDir(), "p.yaml")
		os.WriteFile(p, []byte("name: dup\nrepeats: 1\n"+c.body), 0o644)
		_, _, err := cli(t, "run", p)
		wantErr(t, fmt.Sprintf("case %d", i), err, c.want...)
	}
}

// TestHostilePartialRunsSaySo: a run that was killed, stopped or holds a
// failed measurement (even when it claims to be complete) is named as
// partial by plan and report, and summary exits non-zero on it.
func TestHostilePartialRunsSaySo(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*runs.Results)
		want   string
	}{
		{"killed", func(r *runs.Results) { r.Complete, r.Error = false, runs.ErrorInProgress }, "never finished"},
		{"stopped", func(r *runs.Results) { r.Complete, r.Error = false, "interrupted" }, "stopped early: interrupted"},
		{"complete with an error", func(r *runs.Results) { r.Error = "interrupted" }, "says it is complete, but records the error \"interrupted\""},
		{"complete with a failed record", func(r *runs.Results) {
			f := &r.Restores[len(r.Restores)-1]
			f.Verified, f.Error = false, "verification failed: partition 2 differs"
		}, "says it is complete, but 1 measurement(s) failed: ingest #4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sizes := []int64{128e6, 256e6, 512e6}
			dir := t.TempDir()
			var dirs []string
			for i, size := range sizes {
				r := capacitytest.Run(i, size, capacitytest.Cases)
				if i == 1 {
					c.modify(r)
				}
				dirs = append(dirs, writeRaw(t, dir, r.RunID, r))
			}
			out, _, err := cli(t, "summary", dirs[1])
			wantErr(t, "summary", err, c.want)
			if !strings.Contains(out, "INCOMPLETE: ") {
				t.Errorf("summary does not print INCOMPLETE:\n%s", out)
			}
			out, _, err = cli(t, "plan", "--state", "10GB", "--from", strings.Join(dirs, ","))
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if !strings.Contains(out, "INCOMPLETE INPUT R2: ") || !strings.Contains(out, c.want) {
				t.Errorf("plan does not say R2 is partial (%q):\n%s", c.want, out)
			}
			rep := t.TempDir()
			if _, _, err := cli(t, append([]string{"report", "--out", rep}, dirs...)...); err != nil {
				t.Fatalf("report: %v", err)
			}
			md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
			summary := string(md)
			if i := strings.Index(summary, "\n## "); i >= 0 {
				if j := strings.Index(summary[i+4:], "\n## "); j >= 0 {
					summary = summary[:i+4+j]
				}
			}
			if !strings.Contains(summary, "**Incomplete input:** R2 is partial") || !strings.Contains(summary, c.want) {
				t.Errorf("report's summary does not say R2 is partial (%q):\n%s", c.want, summary)
			}
		})
	}
}

// TestHostileImplausibleInputs: figures no measurement or deployment has
// (zero-byte restores as a rate, NaN or infinite rates, cleaner settings
// Kafka refuses, topic configs that are not numbers or not settings) give
// an error naming them, never an answer.
func TestHostileImplausibleInputs(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for i, size := range []int64{128e6, 256e6} {
		r := capacitytest.Run(i, size, capacitytest.Cases)
		for j := range r.Restores {
			r.Restores[j].Bytes, r.Restores[j].Phase.MBPerSec = 0, 0
		}
		dirs = append(dirs, writeRaw(t, dir, r.RunID, r))
	}
	zero := "--from=" + strings.Join(dirs, ",")
	good := "--from=" + strings.Join(syntheticRunDirs(t), ",")
	profile := func(topicConfigs string) string {
		p := filepath.Join(t.TempDir(), "p.yaml")
		os.WriteFile(p, []byte("name: tc\nrepeats: 1\nfill: {records: 1000, keys: 100, partitions: 1}\ncases:\n  - name: c\n    scenario: compaction\n    compaction:\n      topic_configs: {"+topicConfigs+"}\n"), 0o644)
		return p
	}
	auditFile := func(body string) string {
		p := filepath.Join(t.TempDir(), "audit.json")
		os.WriteFile(p, []byte(`{"schema": "restorebench.audit/v1", "application_id": "orders", `+body+`}`), 0o644)
		return p
	}
	reportAudit := func(body string) []string {
		return []string{"report", "--out", t.TempDir(), "--audit", auditFile(body), syntheticRunDirs(t)[0]}
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"plan", zero, "--state", "50GiB", "--partitions", "16", "--instances", "4", "--rto", "2m"}, []string{"no rate", "0 B"}},
		{[]string{"plan", good, "--write-rate", "NaN"}, []string{"--write-rate", "NaN"}},
		{[]string{"plan", good, "--write-rate", "Inf"}, []string{"--write-rate", "Inf"}},
		{[]string{"plan", good, "--write-rate", "1e30B/s"}, []string{"--write-rate"}},
		{[]string{"predict", "scaleout", "--tasks", "8", "--task-size", "1GB", "--before", "2", "--after", "4", "--restore-rate", "50MB", "--write-records", "NaN"}, []string{"write rate", "NaN"}},
		{[]string{"predict", "scaleout", "--tasks", "8", "--task-size", "1GB", "--before", "2", "--after", "4", "--restore-rate", "50MB", "--write-records", "+Inf"}, []string{"write rate", "Inf"}},
		{[]string{"predict", "scaleout", "--tasks", "8", "--task-size", "1GB", "--before", "2", "--after", "4", "--restore-rate", "50MB", "--write-rate", "NaN"}, []string{"--write-rate", "NaN"}},
		{[]string{"predict", "scaleout", "--tasks", "8", "--task-size", "1GB", "--before", "2", "--after", "4", "--restore-rate", "50MB", "--write-rate", "5MB/s", "--write-records", "10"}, []string{"--write-rate and --write-records: give one"}},
		{[]string{"plan", good, "--live-state", "10GB", "--cleaner", "min.cleanable.dirty.ratio=7"}, []string{"--cleaner min.cleanable.dirty.ratio=7", "outside [0, 1]"}},
		{[]string{"plan", good, "--live-state", "10GB", "--cleaner", "segment.bytes=-5"}, []string{"--cleaner segment.bytes=-5", "outside"}},
		{[]string{"plan", good, "--live-state", "10GB", "--cleaner", "segmnet.bytes=1048576"}, []string{"segmnet.bytes", "not a changelog topic setting"}},
		{[]string{"plan", good, "--live-state", "10GB", "--cleaner", "min.cleanable.dirty.ratio=NaN"}, []string{"min.cleanable.dirty.ratio=NaN", "want a number"}},
		{[]string{"run", profile(`segment.bytes: "abc"`)}, []string{"compaction.topic_configs.segment.bytes", "want a whole number"}},
		{[]string{"run", profile(`segmnet.bytes: "1048576"`)}, []string{"compaction.topic_configs.segmnet.bytes", "not a changelog topic setting"}},
		{[]string{"run", profile(`min.cleanable.dirty.ratio: "1.5"`)}, []string{"min.cleanable.dirty.ratio", "outside [0, 1]"}},
		{reportAudit(`"changelogs": [{"topic": "orders-s-changelog", "partitions": 1, "records": -5}]`),
			[]string{"--audit", "changelogs[0].records is -5"}},
		{reportAudit(`"instances": [{"process_id": "p", "if_it_fails": {"restore_bytes": -1e9}}]`),
			[]string{"--audit", "instances[0].if_it_fails.restore_bytes is -1e+09"}},
		{reportAudit(`"failure_detection_seconds": -45`), []string{"--audit", "failure_detection_seconds is -45"}},
		{reportAudit(`"handover": {"seconds": 1e999}`), []string{"--audit", "seconds"}},
		{reportAudit(`"handover": {"seconds": 0.5, "seconds_lo": -0.2, "seconds_hi": 1.5}`), []string{"--audit", "handover.seconds_lo is -0.2"}},
		{reportAudit(`"instances": [{"process_id": "p", "if_it_fails": {"detection": {"seconds": -3, "seconds_lo": 1, "seconds_hi": 5}}}]`),
			[]string{"--audit", "instances[0].if_it_fails.detection.seconds is -3"}},
		{reportAudit(`"instances": [{"process_id": "p", "if_it_fails": {"total_seconds": 30, "total_seconds_lo": -1, "total_seconds_hi": 40}}]`),
			[]string{"--audit", "instances[0].if_it_fails.total_seconds_lo is -1"}},
		{reportAudit(`"instances": [{"process_id": "p", "if_it_fails": {"total_seconds": 30}}]`),
			[]string{"--audit", "total_seconds, total_seconds_lo and total_seconds_hi are given together or not at all"}},
	}
	for _, c := range cases {
		_, _, err := cli(t, c.args...)
		wantErr(t, strings.Join(c.args, " "), err, c.want...)
	}
}

// TestOwnFilesAlwaysLoad: files the tool itself writes are never refused
// by its checks: an early schema-1 build's verified partitions without
// expected_live_bytes, a run whose wall clock stepped back, warm counts that
// resolve to the same step (500 and 10% of a 5,000-record fill) and
// standby rates that round alike.
func TestOwnFilesAlwaysLoad(t *testing.T) {
	r := capacitytest.Run(0, 128e6, capacitytest.Cases)
	for i := range r.Restores {
		for j := range r.Restores[i].Verification.Partitions {
			r.Restores[i].Verification.Partitions[j].ExpectedLiveBytes = 0
		}
	}
	r.FinishedAt = r.StartedAt.Add(-time.Minute)
	if _, _, err := cli(t, "summary", writeRaw(t, t.TempDir(), "old", r)); err != nil {
		t.Errorf("an early schema-1 file: %v", err)
	}
	for name, body := range map[string]string{
		"warm": "fill: {records: 5000, keys: 800, partitions: 2}\ncases:\n  - name: w\n    scenario: warm\n    warm: {changed: [500, 10%], fallback: false}\n",
		"standby": "fill: {records: 5000, keys: 800, partitions: 2}\ncases:\n  - name: s\n    scenario: standby\n" +
			"    standby: {rates: [200.4, 200.2], duration: 1s, sample: 100ms, pauses: [], find_max: false}\n",
	} {
		p := filepath.Join(t.TempDir(), name+".yaml")
		os.WriteFile(p, []byte("name: "+name+"\nrepeats: 1\n"+body), 0o644)
		out := filepath.Join(t.TempDir(), name)
		if _, _, err := cli(t, "run", p, "--out", out, "--no-plots"); err != nil {
			t.Errorf("run %s: %v", name, err)
			continue
		}
		if _, _, err := cli(t, "summary", out); err != nil {
			t.Errorf("summary of %s: %v", name, err)
		}
	}
}
