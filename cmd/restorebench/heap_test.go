package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHeapRefusesWhatItCannotSearch: a heap search names the problem
// before it connects or fills: a case that is not the profile's, one on
// the model engine (no JVM), one of another scenario, a profile of several
// fills, and bounds that cannot make a search.
func TestHeapRefusesWhatItCannotSearch(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "p.yaml")
	os.WriteFile(profile, []byte(`
fill: {records: 1000}
cases:
  - {name: model-cold}
  - {name: ks-cold, engine: kafka-streams}
  - {name: ks-warm, engine: kafka-streams, scenario: warm}
`), 0o644)
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("fill: {keys: 100}\nsizes: [1MB, 2MB]\ncases:\n  - {name: ks-cold, engine: kafka-streams}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"heap", profile, "--case", "nope"}, `heap: --case "nope" is not a case of profile p (its cases: model-cold, ks-cold, ks-warm)`},
		{[]string{"heap", profile, "--case", "model-cold"}, "heap: case model-cold runs on the model engine, which has no JVM heap"},
		{[]string{"heap", profile, "--case", "ks-warm"}, "heap: case ks-warm runs scenario warm; a heap search runs cold or standby"},
		{[]string{"heap", sweep, "--case", "ks-cold"}, "heap: profile sweep sweeps 2 fills; a heap search runs one"},
		{[]string{"heap", profile, "--case", "ks-cold", "--low", "8MiB"}, "--low: 8 MiB is under 16 MiB"},
		{[]string{"heap", profile, "--case", "ks-cold", "--low", "1GiB", "--high", "512MiB"}, "--high: 512 MiB is not above --low 1024 MiB"},
		{[]string{"heap", profile, "--case", "ks-cold", "--low", "0"}, "--low: 0 is under 16 MiB, the least it may be"},
		{[]string{"heap", profile, "--case", "ks-cold", "--high", "0"}, "--high: 0 is under 16 MiB, the least it may be"},
		{[]string{"heap", profile, "--case", "ks-cold", "--resolution", "0"}, "--resolution: 0 is under 1 MiB"},
		{[]string{"heap", profile, "--case", "ks-cold", "--high", "100TiB"}, "--high: 104857600 MiB is over "},
		{[]string{"heap", profile}, `required flag(s) "case" not set`},
	} {
		_, _, err := cli(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args[1:], err, c.want)
		}
	}
}

// TestOOMExcerpt: an out-of-memory step is printed as the instance that
// exited and the JVM's own error.
func TestOOMExcerpt(t *testing.T) {
	msg := "1 restore(s) failed: standby #1 failed: case standby #1: instance i0 exited: kafka-streams instance i0 exited (exit status 3); " +
		"the JVM ran out of memory (Terminating due to java.lang.OutOfMemoryError: Java heap space): raise the case's jvm_heap"
	if got, want := oomExcerpt(msg), "instance i0: java.lang.OutOfMemoryError: Java heap space"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := oomExcerpt("broker gone\nmore"); got != "broker gone" {
		t.Errorf("%q", got)
	}
}

// TestPlanHeapFileErrors: plan --heap names the file and what is wrong
// with it: not JSON, another schema, no step.
func TestPlanHeapFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, c := range []struct{ path, want string }{
		{write("bad.json", "{"), "not a heap search's JSON"},
		{write("other.json", `{"schema": "restorebench.audit/v1"}`), `schema "restorebench.audit/v1", want "restorebench.heap/v1"`},
		{write("empty.json", `{"schema": "restorebench.heap/v1", "steps": []}`), "it holds no step of a search"},
		{filepath.Join(dir, "missing.json"), "--heap: "},
	} {
		if _, err := loadHeap(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if h, err := loadHeap(""); h != nil || err != nil {
		t.Errorf("no --heap: %v, %v", h, err)
	}
	// An interrupted search's heap.json, as heap wrote it before it said
	// so: only --high ran, yet "verified with 1024 MiB, the smallest heap
	// tried (--low)". plan takes it as inconclusive.
	h, err := loadHeap(write("interrupted.json", `{"schema": "restorebench.heap/v1", "profile": "p", "case": "c",
		"config": {"low_bytes": 67108864, "high_bytes": 1073741824, "resolution_bytes": 16777216},
		"steps": [{"heap_bytes": 1073741824, "outcome": "verified", "seconds": 30}],
		"smallest_verified_heap_bytes": 1073741824, "largest_out_of_memory_heap_bytes": 0,
		"answer": "it completed and verified with 1024 MiB, the smallest heap tried (--low); a smaller one may do", "inconclusive": false}`))
	if err != nil || !h.Inconclusive || !strings.HasPrefix(h.Answer, "inconclusive: ") || strings.Contains(h.Answer, "(--low)") {
		t.Errorf("an interrupted search's heap.json: %v, %+v", err, h)
	}
}

// TestHeapRefusesAnotherSearchsOutput: heap --out refuses a directory
// holding another search's heap.json or step directories (a symlink to
// elsewhere among them), naming them, before any step: nothing there, nor
// what a link points to, is replaced or mixed with this search's steps.
func TestHeapRefusesAnotherSearchsOutput(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "p.yaml")
	os.WriteFile(profile, []byte("fill: {records: 1000}\ncases:\n  - {name: ks-cold, engine: kafka-streams}\n"), 0o644)
	elsewhere := filepath.Join(dir, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	os.WriteFile(filepath.Join(elsewhere, "results.json"), []byte("theirs"), 0o644)
	linked := filepath.Join(dir, "linked")
	os.MkdirAll(linked, 0o755)
	os.Symlink(elsewhere, filepath.Join(linked, "heap-2048MiB"))
	earlier := filepath.Join(dir, "earlier")
	os.MkdirAll(filepath.Join(earlier, "heap-512MiB"), 0o755)
	os.WriteFile(filepath.Join(earlier, "heap.json"), []byte("earlier search"), 0o644)
	for out, want := range map[string][]string{
		linked:  {"--out " + linked, "heap-2048MiB", "another run's output"},
		earlier: {"--out " + earlier, "heap-512MiB", "heap.json", "choose another directory"},
	} {
		_, _, err := cliWithin(t, 30*time.Second, "-q", "--data-dir", dir, "heap", profile, "--case", "ks-cold", "--out", out)
		wantErr(t, out, err, want...)
	}
	if b, _ := os.ReadFile(filepath.Join(elsewhere, "results.json")); string(b) != "theirs" {
		t.Errorf("the step directory's link was written through: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(earlier, "heap.json")); string(b) != "earlier search" {
		t.Errorf("the earlier search's heap.json was replaced: %q", b)
	}
}
