package boundedread

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileOrPipe: a FIFO with a writer is read to its end; one with no
// writer, or whose writer never finishes, is an error after the timeout; a
// cancelled context ends the wait; a pipe sending more than the limit is
// refused; devices are refused as ReadFile refuses them.
func TestReadFileOrPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	read := func(ctx context.Context, limit int64) ([]byte, error, time.Duration) {
		start := time.Now()
		b, err := ReadFileOrPipe(ctx, fifo, limit, 300*time.Millisecond)
		return b, err, time.Since(start)
	}

	// A writer that connects after the read started.
	go func() {
		time.Sleep(100 * time.Millisecond)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("s3cret\n"))
		w.Close()
	}()
	if b, err, _ := read(ctx, Secret); err != nil || string(b) != "s3cret\n" {
		t.Fatalf("fifo with a writer: %q, %v", b, err)
	}

	if _, err, d := read(ctx, Secret); err == nil || !strings.Contains(err.Error(), "no writer within 300ms") || d > 5*time.Second {
		t.Fatalf("fifo without a writer: %v after %s", err, d)
	}

	// A writer that holds the pipe open and never finishes.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: does not block
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	if _, err, d := read(ctx, Secret); err == nil || !strings.Contains(err.Error(), "did not finish within 300ms") || d > 5*time.Second {
		t.Fatalf("fifo whose writer stalls: %v after %s", err, d)
	}
	// A cancelled context ends the wait at once.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err, d := read(cctx, Secret); err == nil || !strings.Contains(err.Error(), "context canceled") || d > 5*time.Second {
		t.Fatalf("cancelled: %v after %s", err, d)
	}
	w.Close()

	// A writer sending more than the limit.
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(make([]byte, 64<<10))
	}()
	if _, err, _ := read(ctx, 1024); err == nil || !strings.Contains(err.Error(), "over the 1 KiB") {
		t.Fatalf("fifo over the limit: %v", err)
	}

	if _, err := ReadFileOrPipe(ctx, "/dev/zero", Secret, time.Second); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Fatalf("/dev/zero: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("pw"), 0o600)
	if b, err := ReadFileOrPipe(ctx, ok, Secret, time.Second); err != nil || string(b) != "pw" {
		t.Fatalf("regular file: %q, %v", b, err)
	}
}
