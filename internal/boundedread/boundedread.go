package boundedread

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Limits for the files restorebench reads.
const (
	// Profile bounds a profile (YAML); the largest built-in is a few KiB.
	Profile = 1 << 20
	// Manifest bounds a fill manifest (JSON), which grows by a line per
	// scenario change.
	Manifest = 64 << 20
	// Results bounds a results.json: a long run's time series stay far
	// below it.
	Results = 1 << 30
	// Audit bounds an audit's JSON (audit --format json): an application
	// of thousands of tasks is a few MB.
	Audit = 64 << 20
	// StreamsConfig bounds an application's Streams properties file
	// (audit --streams-config), a few KiB in practice.
	StreamsConfig = 1 << 20
)

// ReadFile reads the whole of path, which must be a regular file of at most
// limit bytes. A FIFO, socket, device or directory is refused without
// blocking (the file is opened non-blocking and checked before any read);
// a larger file is refused without reading past limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("is %s, not a regular file", kind(fi.Mode()))}
	}
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes is over the %s this file may hold", fi.Size(), size(limit))}
	}
	// The size can grow while we read (or lie, on some filesystems): read
	// one byte past the limit to tell.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("over the %s this file may hold", size(limit))}
	}
	return b, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "a special file (" + m.Type().String() + ")"
	}
}

func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
