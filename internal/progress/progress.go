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
	// Observer, if set, is told of every task started, quiet or not, and
	// then every figure the display is given: a second reader of the same
	// figures (the metrics a run serves).
	Observer Observer
}

// Observer follows the tasks of a Reporter.
type Observer interface {
	// Observe is told of a task as Start begins it, and returns the Task
	// that is told its Set, Count and Done as the display is.
	Observe(what string, total int64, unit Unit) Task
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
	// Count records, for a task of Bytes, the records those bytes hold (a
	// fill's); the bar ignores it, a line ends with it.
	Count(records int64)
	// Done ends the display.
	Done()
}

// Start begins showing a task of total units described by what, and tells
// the Observer, if any, of it.
func (r *Reporter) Start(what string, total int64, unit Unit) Task {
	if r == nil {
		return nop{}
	}
	shown := r.display(what, total, unit)
	if r.Observer == nil {
		return shown
	}
	return tee{shown, r.Observer.Observe(what, total, unit)}
}

// display is the task's bar, lines or nothing.
func (r *Reporter) display(what string, total int64, unit Unit) Task {
	switch {
	case r.quiet:
		return nop{}
	case r.terminal:
		return newBar(r.w, what, total, unit)
	}
	return &lines{w: r.w, what: what, total: total, unit: unit, start: time.Now(), every: r.Interval, next: time.Now().Add(r.Interval)}
}

type nop struct{}

func (nop) Set(int64)   {}
func (nop) Count(int64) {}
func (nop) Done()       {}

// tee tells the display and the observer the same figures.
type tee struct{ shown, observed Task }

func (t tee) Set(n int64)         { t.shown.Set(n); t.observed.Set(n) }
func (t tee) Count(records int64) { t.shown.Count(records); t.observed.Count(records) }
func (t tee) Done()               { t.shown.Done(); t.observed.Done() }

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
func (b *bar) Count(int64) {}
func (b *bar) Done()       { b.b.Finish() }

// lines prints "what: n of total (p%), rate" every interval.
type lines struct {
	mu          sync.Mutex
	w           io.Writer
	what        string
	total, n    int64
	records     int64 // Count's, for a task of Bytes (0: none told)
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

func (l *lines) Count(records int64) {
	l.mu.Lock()
	l.records = records
	l.mu.Unlock()
}

func (l *lines) Done() {}

func (l *lines) print(now time.Time) {
	secs := now.Sub(l.start).Seconds()
	pct := 0.0
	if l.total > 0 {
		pct = 100 * float64(l.n) / float64(l.total)
	}
	if l.unit == Bytes {
		counted := ""
		if l.records > 0 {
			counted = fmt.Sprintf(", %d records", l.records)
		}
		fmt.Fprintf(l.w, "%s: %.1f of %.1f MB (%.0f%%), %.1f MB/s%s\n", l.what, float64(l.n)/1e6, float64(l.total)/1e6, pct,
			float64(l.n)/1e6/max(secs, 1e-9), counted)
		return
	}
	fmt.Fprintf(l.w, "%s: %d of %d records (%.0f%%), %.0f records/s\n", l.what, l.n, l.total, pct, float64(l.n)/max(secs, 1e-9))
}
