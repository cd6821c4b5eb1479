// Package errwriter has the writer the renderers write through: it keeps
// the first write error and drops later writes, so a renderer checks once,
// at the end.
package errwriter

import "io"

// Writer keeps the first write error of w and drops later writes.
type Writer struct {
	w   io.Writer
	err error
}

// New returns a Writer writing to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Err is the first write error, nil if every write succeeded.
func (e *Writer) Err() error { return e.err }
