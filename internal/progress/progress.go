package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Unit says what a task counts.
type Unit int

const (
	// Records counts records.
	Records Unit = iota
	// Bytes counts bytes.
	Bytes
)

// Reporter starts progress displays on one writer.
type Reporter struct {
	w        io.Writer
	quiet    bool
	terminal bool
	// Interval is how often a line is printed when w is not a terminal.
	Interval time.Duration
}

// New returns a reporter writing to w: bars when w is a terminal, periodic
// lines otherwise, nothing when quiet.
func New(w io.Writer, quiet bool) *Reporter {
	r := &Reporter{w: w, quiet: quiet, Interval: 10 * time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.terminal = true
	}
	return r
}

// Task is one piece of work in progress.
type Task interface {
	// Set records how far the work has come (records or bytes done).
	Set(n int64)
	// Done ends the display.
	Done()
}

// Start begins showing a task of total units described by what.
func (r *Reporter) Start(what string, total int64, unit Unit) Task {
	switch {
	case r == nil || r.quiet:
		return nop{}
	case r.terminal:
		return newBar(r.w, what, total, unit)
	}
	return &lines{w: r.w, what: what, total: total, unit: unit, start: time.Now(), every: r.Interval, next: time.Now().Add(r.Interval)}
}

type nop struct{}

func (nop) Set(int64) {}
func (nop) Done()     {}

type bar struct{ b *progressbar.ProgressBar }

func newBar(w io.Writer, what string, total int64, unit Unit) *bar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200 * time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		progressbar.OptionSetPredictTime(true),
	}
	if unit == Bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("records"))
	}
	return &bar{progressbar.NewOptions64(total, opts...)}
}

func (b *bar) Set(n int64) { b.b.Set64(n) }
func (b *bar) Done()       { b.b.Finish() }

// lines prints "what: n of total (p%), rate" every interval.
type lines struct {
	mu          sync.Mutex
	w           io.Writer
	what        string
	total, n    int64
	unit        Unit
	start, next time.Time
	every       time.Duration
}

func (l *lines) Set(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n = n
	if now := time.Now(); now.After(l.next) {
		l.next = now.Add(l.every)
		l.print(now)
	}
}

func (l *lines) Done() {}

func (l *lines) print(now time.Time) {
	secs := now.Sub(l.start).Seconds()
	pct := 0.0
	if l.total > 0 {
		pct = 100 * float64(l.n) / float64(l.total)
	}
	if l.unit == Bytes {
		fmt.Fprintf(l.w, "%s: %.1f of %.1f MB (%.0f%%), %.1f MB/s\n", l.what, float64(l.n)/1e6, float64(l.total)/1e6, pct, float64(l.n)/1e6/max(secs, 1e-9))
		return
	}
	fmt.Fprintf(l.w, "%s: %d of %d records (%.0f%%), %.0f records/s\n", l.what, l.n, l.total, pct, float64(l.n)/max(secs, 1e-9))
}
