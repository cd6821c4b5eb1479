package boundedread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Limits for the small files the security settings name.
const (
	// Security bounds a client properties file and a PEM certificate,
	// key or CA bundle: real ones are a few KiB.
	Security = 1 << 20
	// Secret bounds a password file (or pipe).
	Secret = 64 << 10
)

// ReadFileOrPipe is ReadFile that also accepts a pipe (a named FIFO or a
// shell's <(command)): a password may come from a command and never touch
// the disk. At most limit bytes are read from the pipe, and the read never
// blocks past timeout or ctx: a pipe with no writer, or whose writer does
// not finish, is an error saying so. Devices, sockets and directories are
// refused as ReadFile refuses them.
func ReadFileOrPipe(ctx context.Context, path string, limit int64, timeout time.Duration) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return ReadFile(path, limit)
	}
	// Non-blocking open of a FIFO succeeds with or without a writer; Go
	// then polls the descriptor, so reads honour a deadline.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	deadline := time.Now().Add(timeout)
	if err := f.SetReadDeadline(deadline); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	defer stop()
	var b []byte
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		b = append(b, buf[:n]...)
		if int64(len(b)) > limit {
			return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("over the %s this pipe may send", size(limit))}
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF) && len(b) > 0:
			return b, nil
		case errors.Is(err, io.EOF):
			// No writer yet (or one that closed without writing): wait
			// for one until the deadline.
			if ctx.Err() != nil {
				return nil, &fs.PathError{Op: "read", Path: path, Err: ctx.Err()}
			}
			if time.Now().After(deadline) {
				return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("named pipe (FIFO) had no writer within %s", timeout)}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		case errors.Is(err, os.ErrDeadlineExceeded):
			if ctx.Err() != nil {
				return nil, &fs.PathError{Op: "read", Path: path, Err: ctx.Err()}
			}
			if len(b) == 0 {
				return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("named pipe (FIFO) had no writer within %s (nothing was sent)", timeout)}
			}
			return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("pipe's writer did not finish within %s (read %d bytes)", timeout, len(b))}
		default:
			return nil, err
		}
	}
}
