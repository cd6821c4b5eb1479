package profiles

import (
	"os"
	"strings"
	"testing"
)

func TestBuiltinsParse(t *testing.T) {
	names := Builtins()
	if len(names) < 2 {
		t.Fatalf("built-in profiles %v, want at least quick and large", names)
	}
	for _, n := range names {
		p, err := Load(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if len(p.Cases) == 0 || p.Spec.TargetBytes == 0 && p.Spec.Records == 0 {
			t.Fatalf("%s: expanded to %+v", n, p)
		}
	}
	// Every calibration profile compares restores of one log: each holds
	// the log cleaner for its run.
	for _, n := range []string{"calibrate", "calibrate-sizes", "calibrate-sizes-20g", "calibrate-sizes-zipf", "large-calibrate"} {
		if p, err := Load(n); err != nil || !p.HoldCleaner {
			t.Errorf("%s: hold_cleaner %v (%v), want true", n, p != nil && p.HoldCleaner, err)
		}
	}
	q, err := Load("profiles/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != "quick" || q.Topic != "restorebench-balances-changelog" || q.Cases[1].Threads != 2 || q.Cases[0].BatchRecords != 1000 {
		t.Fatalf("quick expanded to %+v", q)
	}
}

func TestProfileErrorsNameTheField(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"fill:\n  size: 1MB\n  sizee: 2\n", `line 3: fill.sizee: unknown field (did you mean size?)`},
		{"fill:\n  size: 1MB\n  keys: lots\n", `line 3: fill.keys: "lots" is not an integer`},
		{"fill: {keys: \"lots\", size: 1MB}\n", `line 1: fill.keys: "lots" is not an integer`},
		{"fill:\n  size: 1MB\n  keys: 0\n", "line 3: fill.keys: 0 must be positive"},
		{"fill:\n  size: 1MB\n  partitions: 0\n", "line 3: fill.partitions: 0 must be positive"},
		{"fill:\n  size: 0\n", "line 2: fill.size: 0 must be positive"},
		{"fill:\n  records: 0\n", "line 2: fill.records: 0 must be positive"},
		{"fill:\n  size: 1MB\nrepeats: 0\n", "line 3: repeats: 0 must be positive"},
		{"fill:\n  size: 1MB\nrestore:\n  batch_records: 0\n", "line 4: restore.batch_records: 0 must be positive"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    batch_records: 0\n", "line 5: cases[0].batch_records: 0 must be positive"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    threads: x\n", `line 5: cases[0].threads: "x" is not an integer`},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    level0_slowdown_writes_trigger: 0\n", "line 5: cases[0].level0_slowdown_writes_trigger: 0 must be positive"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    sort_buffer: 10KiB\n", "line 5: cases[0].sort_buffer: 10KiB is under 1 MiB"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    engine: jvm\n", `line 5: cases[0].engine: "jvm" is not one of model, kafka-streams`},
		{"fill:\n  size: 1MB\napplication_id: a/b\n", `line 3: application_id: "a/b" may hold only`},
		{"restore: {}\n", "fill: missing"},
		{"fill:\n  size: -2GiB\n", "fill.size"},
		{"fill:\n  size: lots\n", "fill.size"},
		{"fill:\n  keys: 10\n", "fill.size"},
		{"fill:\n  size: 1MB\n  value_size: 500-100\n", "fill.value_size"},
		{"fill:\n  size: 1MB\n  key_order: random\n", "fill.key_order"},
		{"fill:\n  size: 1MB\n  tombstone_ratio: 2\n", "fill.tombstone_ratio"},
		{"fill:\n  size: 1MB\n  compression: brotli\n", "fill.compression"},
		{"fill:\n  size: 1MB\n  partitions: -1\n", "fill.partitions"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    threads: -2\n", "cases[0].threads"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n  - name: a\n", "cases[1].name"},
		{"fill:\n  size: 1MB\ncases:\n  - threads: 2\n", "cases[0].name"},
		{"fill:\n  size: 1MB\ncases:\n  - name: a\n    rocksdb: turbo\n", "cases[0].rocksdb"},
		{"fill:\n  size: 1MB\nrepeats: -1\n", "repeats"},
		{"", "empty"},
		{"fill:\n  size: 1MB\nhold_cleaner: true\ncases:\n  - name: a\n    scenario: compaction\n",
			"line 3: hold_cleaner: case a runs scenario compaction, which measures what the log cleaner leaves: it cannot run with the cleaner held"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml), "test.yaml")
		if err == nil {
			t.Errorf("%q: no error, want one naming %s", c.yaml, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "profile test.yaml: ") {
			t.Errorf("%q: error %q does not name %s", c.yaml, err, c.want)
		}
	}
}

func TestCasesInheritRestoreDefaults(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 10\nrestore:\n  batch_records: 500\ncases:\n  - name: a\n  - name: b\n    threads: 3\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Cases[0].BatchRecords != 500 || p.Cases[1].BatchRecords != 500 || p.Cases[1].Threads != 3 || p.Cases[0].Threads != 1 {
		t.Fatalf("cases %+v", p.Cases)
	}
	if p.Name != "x" || p.Repeats != 1 || p.Spec.Records != 10 {
		t.Fatalf("plan %+v", p)
	}
}

func TestMatrixExpandsWithExcludes(t *testing.T) {
	p, err := Parse([]byte(`
fill: {records: 10}
restore: {threads: 2}
matrix:
  strategy: [put, ingest]
  batch_records: [100, 1000]
  compaction_style: [universal, level]
exclude:
  - {strategy: ingest, batch_records: "100"}
cases:
  - name: extra
    write_buffer_size: 64MiB
`), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range p.Cases {
		names = append(names, c.Name)
	}
	want := "put-b100-universal put-b100-level put-b1000-universal put-b1000-level ingest-b1000-universal ingest-b1000-level extra"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("cases %q, want %q", got, want)
	}
	c := p.Cases[3]
	if c.Strategy != "put" || c.BatchRecords != 1000 || c.RocksDB.CompactionStyle != "level" || c.Threads != 2 {
		t.Fatalf("put-b1000-level resolved to %+v", c)
	}
	if e := p.Cases[6]; e.RocksDB.WriteBufferSize != 64<<20 || e.RocksDB.CompactionStyle != "universal" {
		t.Fatalf("extra resolved to %+v", e.RocksDB)
	}
}

func TestMatrixErrorsNameTheField(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"fill: {records: 1}\nmatrix:\n  batch_size: [1, 2]\n", `line 3: matrix.batch_size: unknown field`},
		{"fill: {records: 1}\nmatrix:\n  strategy: put\n", "line 3: matrix.strategy: want a non-empty list"},
		{"fill: {records: 1}\nmatrix:\n  strategy: [put, turbo]\n", `line 3: matrix[turbo].strategy: "turbo" is not one of`},
		{"fill: {records: 1}\nmatrix:\n  batch_records: [10, -1]\n", "line 3: matrix[b-1].batch_records: -1 must be positive"},
		{"fill: {records: 1}\nmatrix:\n  batch_records:\n    - 10\n    - 0\n", "line 5: matrix[b0].batch_records: 0 must be positive"},
		{"fill: {records: 1}\nmatrix:\n  strategy: [put]\nexclude:\n  - {strategy: put}\n", "every matrix combination is excluded"},
		{"fill: {records: 1}\nexclude:\n  - {strategy: put}\n", "exclude: there is no matrix"},
		{"fill: {records: 1}\ncases:\n  - {name: a, write_buffer_size: lots}\n", "cases[0].write_buffer_size"},
		{"fill: {records: 1}\ncases:\n  - {name: a, compaction_style: fifo}\n", "cases[0].compaction_style"},
		{"fill: {records: 1}\ncases:\n  - {name: a, strategy: ingest, store: memory}\n", "cases[0].strategy"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml), "m.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.yaml, err, c.want)
		}
	}
}

// TestBuiltinNameBesideADirectoryOfThatName: from the repository root a
// directory named like a built-in (capacity/) must not hide the profile;
// a directory that matches no built-in is one clear error.
func TestBuiltinNameBesideADirectoryOfThatName(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, d := range []string{"capacity", "mine"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := Load("capacity"); err != nil || len(p.Cases) == 0 {
		t.Fatalf("Load(capacity) beside a capacity/ directory: %v", err)
	}
	if _, err := Load("mine"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Load(mine) of a directory: got %v, want an error saying it is a directory", err)
	}
}
