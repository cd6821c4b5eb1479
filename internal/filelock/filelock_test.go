package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTryLockExcludes: while one lock on a file is held, a second TryLock of
// it fails with an error naming the file and saying another holds it; after
// Unlock it succeeds.
func TestTryLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	first, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(path)
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("second lock while the first is held: got %v, want ErrHeld", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "held by another process") {
		t.Fatalf("error %q must name %s and say it is held by another process", err, path)
	}
	first.Unlock()
	first.Unlock() // twice is harmless
	second, err := TryLock(path)
	if err != nil {
		t.Fatalf("lock after Unlock: %v", err)
	}
	second.Unlock()
}

// TestTryLockFileDirectory: a directory opened read-only can be locked, and a
// second lock of it is refused until the first is released; a refused
// TryLockFile closes the file it was given.
func TestTryLockFileDirectory(t *testing.T) {
	dir := t.TempDir()
	open := func() *os.File {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first, err := TryLockFile(open())
	if err != nil {
		t.Fatal(err)
	}
	f := open()
	if _, err := TryLockFile(f); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second lock of %s: got %v, want ErrHeld naming it", dir, err)
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("a refused TryLockFile must close its file")
	}
	first.Unlock()
	second, err := TryLockFile(open())
	if err != nil {
		t.Fatalf("lock after Unlock: %v", err)
	}
	second.Unlock()
}

// TestTryLockOpenError: a path that cannot be opened is the open's error,
// naming it, not ErrHeld.
func TestTryLockOpenError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x.lock")
	_, err := TryLock(path)
	if err == nil || errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), path) {
		t.Fatalf("lock in a missing directory: got %v, want the open's error naming %s", err, path)
	}
}
