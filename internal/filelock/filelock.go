// Package filelock takes the exclusive, non-blocking flock(2) locks by which
// restorebench processes keep each other out of a directory or a file (an
// output directory, a state directory, an embedded broker's log, a cleaner
// hold). A lock belongs to the open file: it is dropped when the file is
// closed, by Unlock or by the kernel when the process dies, so a killed
// process never leaves a stale lock behind.
package filelock

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrHeld is the error (wrapped in an *fs.PathError naming the file) when
// another open file holds the lock: another process, or another open of the
// same file in this one. Callers test it with errors.Is to say in their own
// words who holds what.
var ErrHeld = errors.New("held by another process")

// Lock is a held lock on an open file.
type Lock struct {
	f *os.File
}

// TryLock opens path (creating it, mode 0644, if it does not exist) and
// locks it without waiting. The error is the open's, an error wrapping
// ErrHeld when another holds the lock, or the lock's; each names path.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return TryLockFile(f)
}

// TryLockFile locks the already-open f without waiting (for a file opened
// otherwise than TryLock does: a directory, a file created exclusively). On
// success the Lock owns f and Unlock closes it; on failure f is closed at
// once. The error wraps ErrHeld when another holds the lock, and names f.
func TryLockFile(f *os.File) (*Lock, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			err = ErrHeld
		}
		return nil, &fs.PathError{Op: "lock", Path: f.Name(), Err: err}
	}
	return &Lock{f: f}, nil
}

// File is the locked file, open until Unlock.
func (l *Lock) File() *os.File { return l.f }

// Unlock releases the lock and closes the file. It does nothing on a nil
// Lock or one already unlocked.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}
