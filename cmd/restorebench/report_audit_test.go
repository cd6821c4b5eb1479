package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/topicshape"
)

// report --audit FILE puts the audit of a running application first:
// its instances with their tasks, each one's loss with the time and its
// interval, the most costly marked, adding one instance and what the
// audit assumed; a file that is not an audit is refused naming --audit.
func TestReportWithAudit(t *testing.T) {
	shapes, err := filepath.Abs("../../testdata/results/shapes")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := capacity.LoadRuns([]string{shapes})
	if err != nil {
		t.Fatal(err)
	}
	r := audit.Report{Schema: audit.Schema, Application: "orders", Changelogs: []audit.Changelog{{Topic: "orders-s-changelog", Partitions: 2,
		Records: 3000, PartitionRecords: []int64{1000, 2000}, EndOffsets: []int64{1000, 2000},
		Shape: &topicshape.Shape{Records: 3000, Bytes: 3000 * 64, RecordsPerKey: 3}}},
		Group: &audit.Group{State: "Stable", Type: "classic"}}
	for i, id := range []string{"one", "two"} {
		a := &audit.Assignment{Version: 11, Active: []audit.TaskID{{Subtopology: 0, Partition: int32(i)}}}
		s := &audit.Subscription{Version: 11, OffsetSums: map[audit.TaskID]int64{{Subtopology: 0, Partition: int32(i)}: audit.OffsetSumRunning}}
		s.ProcessID[0] = byte(i + 1)
		r.Group.Members = append(r.Group.Members, audit.Member{ClientID: id, ProcessID: s.ProcessIDString(), Assignment: a, Subscription: s})
	}
	audit.Answer(&r, audit.Options{Runs: rs, SessionTimeout: 6 * time.Second, HeartbeatInterval: time.Second})
	file := filepath.Join(t.TempDir(), "audit.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.WriteJSON(f, &r); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := t.TempDir()
	if d := os.Getenv("KEEP_REPORT"); d != "" {
		out = d
	}
	if _, stderr, err := cli(t, "report", "--out", out, "--audit", file, shapes); err != nil {
		t.Fatalf("report --audit: %v\n%s", err, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	worst := r.MostCostly
	if worst == "" || r.Instances[1].IfItFails.Total == nil {
		t.Fatalf("the audit has no most costly instance or no time: %+v", r.Instances[1].IfItFails)
	}
	for _, want := range []string{"Your running application", "Audit of `orders`", "`" + worst + "` \\*", "**If one instance is added** (2 → 3), PREDICTION",
		"session timeout 6.00 s", "What the audit assumed", "| restart on its state dir: time (interval) |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report.md lacks %q:\n%.4000s", want, doc)
		}
	}
	if i, j := strings.Index(doc, "## Your running application"), strings.Index(doc, "## Recommendations"); i < 0 || j < 0 || i > j {
		t.Errorf("the audit does not come first, after the summary")
	}
	if _, _, err := cli(t, "report", "--out", t.TempDir(), "--audit", filepath.Join(shapes, "results.json"), shapes); err == nil ||
		!strings.Contains(err.Error(), "--audit") || !strings.Contains(err.Error(), "restorebench.audit/v1") {
		t.Errorf("a results file as --audit: %v", err)
	}
}
