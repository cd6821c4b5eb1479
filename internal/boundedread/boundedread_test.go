package boundedread

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesWhatIsNotABoundedRegularFile: a FIFO (which would
// block a plain read forever), a device (/dev/zero: a read that never ends)
// and a directory are refused by kind, at once; a file over the limit is
// refused with the limit; a regular file within it is read whole.
func TestReadFileRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2<<20), 0o644)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("hello"), 0o644)
	for _, c := range []struct {
		path string
		want string
	}{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{dir, "is a directory, not a regular file"},
		{big, "2097152 bytes is over the 1 MiB this file may hold"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(c.path, 1<<20); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("%s: error %v, want one naming it and %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ReadFile blocked", c.path)
		}
	}
	if b, err := ReadFile(ok, 5); err != nil || string(b) != "hello" {
		t.Fatalf("a regular file at the limit: %q, %v", b, err)
	}
}
