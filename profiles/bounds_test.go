package profiles

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestProfileNameIsOnePathElement: a profile's name becomes the run id and
// so a directory under results/ and the state dir; one that could climb out
// of them or make nested directories is refused, naming the field and line.
func TestProfileNameIsOnePathElement(t *testing.T) {
	for _, name := range []string{
		"../../../../victim", "..", ".", "a/b", "x<script>alert(1)</script>", "/etc/passwd",
		`a\b`, "-rf", " padded", "tab\tname", "nul\x00", "ünï", strings.Repeat("n", 201),
	} {
		body := fmt.Sprintf("name: %q\nfill: {size: 1MB}\n", name)
		_, err := Parse([]byte(body), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), "line 1: name: ") {
			t.Errorf("name %q: error %v, want one naming line 1: name", name, err)
		}
	}
	for _, name := range []string{"quick", "my-run_2.1", strings.Repeat("n", 200)} {
		if p, err := Parse([]byte(fmt.Sprintf("name: %s\nfill: {size: 1MB}\n", name)), "p.yaml"); err != nil || p.Name != name {
			t.Errorf("name %q: %v", name, err)
		}
	}
	// Without a name, the file's name, made one path element.
	for file, want := range map[string]string{
		"dir/my profile.yaml": "my-profile",
		"x<y>.yaml":           "x-y-",
		".hidden.yaml":        "xhidden",
		"../up.yaml":          "up",
	} {
		p, err := Parse([]byte("fill: {size: 1MB}\n"), file)
		if err != nil || p.Name != want {
			t.Errorf("file %s: name %q, %v; want %q", file, p.Name, err, want)
		}
	}
}

// TestRunawayCountsAreRefused: a count no run can complete is an error
// naming the field, the line and the bound, found before anything of that
// size is built (the test's time bound: a 10^9 schedule or matrix takes
// far longer, or all the memory).
func TestRunawayCountsAreRefused(t *testing.T) {
	axis := func(n int) string {
		var vs []string
		for i := 1; i <= n; i++ {
			vs = append(vs, fmt.Sprint(i))
		}
		return "[" + strings.Join(vs, ", ") + "]"
	}
	var many strings.Builder
	for i := range MaxCases + 1 {
		fmt.Fprintf(&many, "  - name: c%d\n", i)
	}
	cases := []struct{ yaml, want string }{
		{"fill: {size: 1MB}\nrepeats: 1000000000\n", "line 2: repeats: 1000000000 is over 100"},
		{"fill: {size: 1MB}\nrepeats: 101\n", "line 2: repeats: 101 is over 100"},
		{"fill: {size: 1MB}\nmatrix:\n  batch_records: " + axis(100) + "\n  threads: " + axis(100) + "\n", "line 3: matrix: more than 500 combinations"},
		{"fill: {size: 1MB}\nmatrix:\n  batch_records: " + axis(1000) + "\n  threads: " + axis(1000) + "\n  max_background_jobs: " + axis(1000) + "\n", "matrix: more than 500"},
		{"fill: {size: 1MB}\ncases:\n" + many.String(), "line 3: cases: 501 cases (matrix and cases) is over the 500"},
		{"fill: {size: 1MB}\nrepeats: 100\nmatrix:\n  batch_records: " + axis(51) + "\n", "line 2: repeats: 51 cases × 100 repeats is 5100 restores, over the 5000"},
		{"sizes: [1MB, 2MB, 3MB]\nfill: {keys: 10}\nrepeats: 100\nmatrix:\n  batch_records: " + axis(20) + "\n", "repeats: 20 cases × 3 sizes × 100 repeats is 6000 restores"},
		{"fill: {keys: 10}\nsizes: [" + strings.TrimSuffix(strings.Repeat("1MB, ", 51), ", ") + "]\n", "sizes: 51 sizes is over 50"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: scaleout\n    scaleout: {before: 2, after: 100000}\n", "cases[0].scaleout.after: 100000 is over 64"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: rolling\n    rolling: {instances: 1000}\n", "cases[0].rolling.instances: 1000 is over 64"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: failover\n    failover: {kills: 1000000000}\n", "cases[0].failover.kills: 1000000000 is over 1000"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: failover\n    failover: {accounts: 1000000000}\n", "cases[0].failover.accounts: 1000000000 is over"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: failover\n    failover: {partitions: 1000000}\n", "cases[0].failover.partitions: 1000000 is over"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    scenario: warm\n    warm: {changed: " + axis(101) + "}\n", "cases[0].warm.changed: 101 counts is over 100"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    scenario: standby\n    standby: {rates: " + axis(101) + "}\n", "cases[0].standby.rates: 101 rates is over 100"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    threads: 1000000\n", "line 4: cases[0].threads: 1000000 is over 1024"},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := Parse([]byte(c.yaml), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80q: error %v, want %q", c.yaml, err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q took %s to refuse", c.want, d)
		}
	}
	// At the bounds, a profile parses.
	if _, err := Parse([]byte("fill: {size: 1MB}\nrepeats: 100\nmatrix:\n  batch_records: "+axis(50)+"\n"), "p.yaml"); err != nil {
		t.Fatalf("50 cases × 100 repeats: %v", err)
	}
}
