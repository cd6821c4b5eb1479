package compare

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// benchLine is the Go benchmark format's result line as restorebench
// writes it: the name ("Benchmark" then a non-lower-case character, no
// whitespace), the iteration count, then value-unit pairs.
var benchLine = regexp.MustCompile(`^BenchmarkRestore/case=([A-Za-z0-9._+,:@~-]+)/strategy=([A-Za-z0-9._+,:@~-]+)/threads=(\d+)/batch=(\d+) 1((?: \S+ \S+)+)$`)

// configLine is a benchfmt configuration line: a key starting with a
// lower-case letter, without spaces or upper case, then ": value".
var configLine = regexp.MustCompile(`^[a-z][^\sA-Z:]*: \S.*$`)

func benchResults() *runs.Results {
	a1 := withReady(restore("put b1000", 1, 2.5, 100, 200), 3, 0.9)
	a2 := restore("put b1000", 2, 2.75, 90.5, 210)
	bad := restore("put b1000", 3, 1, 500, 210)
	bad.Verified = false
	bad.Verification.Problem = "key count\nmismatch"
	slash := restore("threads/2=x", 1, 1.25, 200, 300)
	slash.Params.Threads = 2
	return &runs.Results{
		SchemaVersion: runs.SchemaVersion, RunID: "run-1", Complete: true,
		Host:     runs.Host{Hostname: "vm", OS: "linux", Arch: "amd64", CPUs: 2, GoVersion: "go1.26.8", RocksDBVersion: "7.8.3"},
		Restores: []runs.Restore{a1, a2, bad, slash},
	}
}

func TestWriteBenchfmt(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, benchResults()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	var benches, configs []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "Benchmark"):
			benches = append(benches, l)
		case strings.HasPrefix(l, "#"), strings.HasPrefix(l, "Unit "):
		default:
			if !configLine.MatchString(l) {
				t.Fatalf("line %q is neither a benchmark, config, unit nor comment line", l)
			}
			configs = append(configs, l)
		}
	}
	if strings.Join(configs, "\n") != "goos: linux\ngoarch: amd64\npkg: "+BenchfmtPkg {
		t.Fatalf("config lines %q", configs)
	}
	if len(benches) != 3 {
		t.Fatalf("%d benchmark lines, want 3 (the unverified repeat excluded):\n%s", len(benches), out)
	}
	if !strings.Contains(out, "# excluded: case put b1000 repeat 3: not verified: key count mismatch\n") {
		t.Fatalf("excluded repeat not noted:\n%s", out)
	}
	type parsed struct {
		name   []string
		values map[string]float64
	}
	var got []parsed
	for _, l := range benches {
		m := benchLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q does not match the benchmark format", l)
		}
		p := parsed{name: m[1:5], values: map[string]float64{}}
		f := strings.Fields(m[5])
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				t.Fatalf("line %q: value %q: %v", l, f[i], err)
			}
			if _, dup := p.values[f[i+1]]; dup {
				t.Fatalf("line %q repeats unit %s", l, f[i+1])
			}
			p.values[f[i+1]] = v
		}
		got = append(got, p)
	}
	want := []struct {
		name   string
		values map[string]float64
	}{
		{"put_b1000 put 1 1000", map[string]float64{"ns/op": 2.5e9, "MB/s": 100, "records/s": 100000, "ready-ns/op": 3e9, "peak-RSS-B": 200 << 20, "efficiency": 0.9}},
		{"put_b1000 put 1 1000", map[string]float64{"ns/op": 2.75e9, "MB/s": 90.5, "records/s": 90500, "peak-RSS-B": 210 << 20}},
		{"threads_2_x put 2 1000", map[string]float64{"ns/op": 1.25e9, "MB/s": 200, "records/s": 200000, "peak-RSS-B": 300 << 20}},
	}
	for i, w := range want {
		if n := strings.Join(got[i].name, " "); n != w.name {
			t.Errorf("line %d name parts %q, want %q", i, n, w.name)
		}
		if len(got[i].values) != len(w.values) {
			t.Errorf("line %d units %v, want %v", i, got[i].values, w.values)
		}
		for u, v := range w.values {
			if g, ok := got[i].values[u]; !ok || !near(g, v) {
				t.Errorf("line %d %s = %v, want %v", i, u, g, v)
			}
		}
	}
}

func TestBenchfmtNames(t *testing.T) {
	for in, want := range map[string]string{
		"put-b1000":  "put-b1000",
		"a b\tc":     "a_b_c",
		"x/y=z":      "x_y_z",
		"ünïcode":    "_n_code",
		"":           "_",
		"ok.1+2,3:4": "ok.1+2,3:4",
	} {
		if got := BenchfmtSafe(in); got != want {
			t.Errorf("BenchfmtSafe(%q) = %q, want %q", in, got, want)
		}
	}
	names := benchfmtCaseNames([]string{"a b", "a_b", "a/b", "c"})
	if names["a_b"] != "a_b" || names["c"] != "c" {
		t.Fatalf("unchanged names altered: %v", names)
	}
	if !strings.HasPrefix(names["a b"], "a_b~") || !strings.HasPrefix(names["a/b"], "a_b~") || names["a b"] == names["a/b"] {
		t.Fatalf("colliding names not made distinct: %v", names)
	}
	for _, n := range names {
		if BenchfmtSafe(n) != n {
			t.Fatalf("name %q is not benchfmt-safe", n)
		}
	}
}

// TestBenchfmtHeadlineRecords: a failover kill, a scale-out and a rolling
// restart carry no restore time (schema 3); their benchmark line's ns/op
// is their scenario's own figure (the kill's longest gap, ...), never 0,
// so benchstat sees a regression of it.
func TestBenchfmtHeadlineRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  runs.Restore
		want string
	}{
		{"kill", runs.Restore{Failover: &runs.FailoverRecord{Kill: 1, MaxGapSeconds: 4.5}}, " 4500000000 ns/op"},
		{"scaleout", runs.Restore{ScaleOut: &runs.ScaleOutRecord{WarmupAssignmentSeconds: 62.5}}, " 62500000000 ns/op"},
		{"rolling", runs.Restore{Rolling: &runs.RollingRecord{DowntimeSeconds: 0.75}}, " 750000000 ns/op"},
	} {
		if got := BenchfmtLine("c", tc.rec); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}
