package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/heapsearch"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
)

// TestHeapSearchFindsAnOutOfMemoryAndAnAnswer: `restorebench heap` on the
// real broker brackets the heap a kafka-streams cold restore of 4 kB
// records needs: 256 MiB verifies, 16 MiB runs out of memory, and the
// out-of-memory is reported as the finding (the JVM's own line), not as a
// failure: the command succeeds and heap.json holds both steps and the
// answer. (Two steps only: the resolution is the whole range, to keep CI
// short; a real search runs about six.)
func TestHeapSearchFindsAnOutOfMemoryAndAnAnswer(t *testing.T) {
	t.Parallel()
	needDriver(t)
	bin := restorebenchBinary(t)
	env := connect(t, bench.Options{})
	brokers := testkafka.RealBrokers(t)
	dir := t.TempDir()
	app := strings.ReplaceAll(testkafka.TopicName(t), ".", "-")
	profile := filepath.Join(dir, "heap.yaml")
	os.WriteFile(profile, []byte(fmt.Sprintf(`name: heap-test
application_id: %s
fill: {size: 64MB, keys: 10000, value_size: 4000, partitions: 2, seed: 1}
ready: false
cases:
  - {name: cold, engine: kafka-streams}
`, app)), 0o644)
	t.Cleanup(func() { deleteUserApp(env, app, app) })
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "--brokers", strings.Join(brokers, ","), "--data-dir", filepath.Join(dir, "data"), "-q",
		"heap", profile, "--case", "cold", "--low", "16MiB", "--high", "256MiB", "--resolution", "240MiB", "--out", out)
	cmd.Dir = dir
	lib, err := ksdriver.FindLib()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "RESTOREBENCH_KSTREAMS_LIB="+lib)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("heap: %v\n%s\n%s", err, stdout, stderrOf(err))
	}
	b, err := os.ReadFile(filepath.Join(out, "heap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res heapsearch.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != heapsearch.Schema || len(res.Steps) != 2 || res.SmallestVerifiedBytes != 256*heapsearch.MiB ||
		res.LargestOutOfMemoryBytes != 16*heapsearch.MiB || res.Inconclusive || !strings.Contains(res.Records, "values of 4000 B") {
		t.Fatalf("heap.json: %s", b)
	}
	if oom := res.Steps[1]; oom.Outcome != heapsearch.OutOfMemory || !strings.Contains(oom.Error, "OutOfMemoryError") {
		t.Errorf("the 16 MiB step: %+v", oom)
	}
	for _, want := range []string{"answer: the smallest heap with which it completed and verified: 256 MiB; with 16 MiB it ran out of memory",
		"16 MiB: instance i0: java.lang.OutOfMemoryError: "} {
		if !strings.Contains(string(stdout), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// stderrOf is an exec error's stderr, if it kept one.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
