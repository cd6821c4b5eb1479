package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestNoBarsOffTerminal: written to a pipe or a log (anything but a
// terminal), progress is plain lines at an interval, never carriage-return
// frames; quiet prints nothing.
func TestNoBarsOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, false)
	r.Interval = 20 * time.Millisecond
	task := r.Start("restore x #1", 1000, Records)
	for i := int64(1); i <= 1000; i++ {
		task.Set(i)
		if i%100 == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	task.Done()
	out := buf.String()
	if strings.ContainsRune(out, '\r') {
		t.Fatalf("carriage returns in non-terminal output: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || len(lines) > 10 || !strings.HasPrefix(lines[0], "restore x #1: ") || !strings.Contains(lines[0], "records/s") {
		t.Fatalf("want a few progress lines, got %d: %q", len(lines), out)
	}
	var quiet bytes.Buffer
	q := New(&quiet, true).Start("fill", 10, Bytes)
	q.Set(5)
	q.Done()
	if quiet.Len() != 0 {
		t.Fatalf("quiet printed %q", quiet.String())
	}
}
