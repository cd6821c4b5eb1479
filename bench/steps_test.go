package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// TestSchema1LoadsWithTheStepsARunWrites: a run's records, written as
// schema 1 named them (no step, schema_version 1), load with the very
// steps the run gave them: a sweep's sizes, a warm restart's and a
// standby's steps with their parameters.
func TestSchema1LoadsWithTheStepsARunWrites(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {keys: 3000, partitions: 2}
sizes: [200KB, 600KB]
cases:
  - name: c
  - name: w
    scenario: warm
    warm: {changed: [0, 500]}
  - name: s
    scenario: standby
    standby: {rates: [1500.5], duration: 1s, sample: 100ms, pauses: [1s], pause_rate: 1000, find_max: false}
`), "steps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	out := filepath.Join(t.TempDir(), "out")
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	want := []runs.Step{
		{Case: "c", Size: "200KB", Kind: runs.StepRestore},
		{Case: "w", Size: "200KB", Kind: runs.StepCold},
		{Case: "w", Size: "200KB", Kind: runs.StepWarm},
		{Case: "w", Size: "200KB", Kind: runs.StepWarm, Changed: 500},
		{Case: "w", Size: "200KB", Kind: runs.StepFallback},
		{Case: "s", Size: "200KB", Kind: runs.StepInitial},
		{Case: "s", Size: "200KB", Kind: runs.StepRate, Rate: 1500.5},
		{Case: "s", Size: "200KB", Kind: runs.StepPause, PauseSeconds: 1},
		{Case: "c", Size: "600KB", Kind: runs.StepRestore},
	}
	if len(res.Restores) != len(want) {
		t.Fatalf("%d records, want %d", len(res.Restores), len(want))
	}
	for i, r := range res.Restores {
		if r.Step == nil || *r.Step != want[i] || r.Case != want[i].Name() {
			t.Errorf("restores[%d] %q: step %+v, want %+v", i, r.Case, r.Step, want[i])
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["schema_version"] = 1
	for _, rec := range m["restores"].([]any) {
		delete(rec.(map[string]any), "step")
		flatten(rec.(map[string]any))
	}
	old := filepath.Join(t.TempDir(), "results.json")
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(old, b, 0o644)
	upgraded, err := runs.Load(old)
	if err != nil {
		t.Fatalf("as schema 1: %v", err)
	}
	for i, r := range upgraded.Restores {
		if *r.Step != *res.Restores[i].Step || r.Case != res.Restores[i].Case {
			t.Errorf("restores[%d] %q as schema 1: step %+v, the run wrote %+v", i, r.Case, *r.Step, *res.Restores[i].Step)
		}
	}
}

// flatten puts a schema-4 record's figures back where schemas 1 to 3 held
// them: flat fields of the record.
func flatten(rec map[string]any) {
	moved := map[string]map[string]string{
		"restore": {"seconds": "duration_seconds", "total_seconds": "total_seconds", "records_per_sec": "records_per_sec",
			"mb_per_sec": "mb_per_sec", "cpu_seconds": "cpu_seconds", "peak_rss_bytes": "peak_rss_bytes", "disk_bytes": "disk_bytes", "limits": "limits"},
		"model": {"load_seconds": "load_seconds", "finish_seconds": "finish_seconds", "poll_wait": "poll_wait", "batch_write": "batch_write",
			"rocksdb": "rocksdb", "ready": "ready"},
	}
	for sub, fields := range moved {
		m, _ := rec[sub].(map[string]any)
		for from, to := range fields {
			if v, ok := m[from]; ok {
				rec[to] = v
			}
		}
		delete(rec, sub)
	}
}
