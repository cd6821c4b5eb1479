package main

// Hostile tests of what the CLI reads and writes: inputs that are not
// regular files or are runaway large, counts no run can complete, outputs
// that would land on another run's, and names that would climb out of
// results/.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliWithin runs cli and fails t if it has not returned within d: a
// command that blocks on a FIFO or builds a runaway schedule never returns.
func cliWithin(t *testing.T, d time.Duration, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	type result struct {
		o, e string
		err  error
	}
	t.Chdir(t.TempDir())
	done := make(chan result, 1)
	go func() {
		o, e, err := cliNoChdir(args...)
		done <- result{o, e, err}
	}()
	select {
	case r := <-done:
		return r.o, r.e, r.err
	case <-time.After(d):
		t.Fatalf("%s: still running after %s", strings.Join(args, " "), d)
		return "", "", nil
	}
}

// cliNoChdir is cli without its fresh working directory (the caller sets
// one), safe to call from a goroutine other than the test's.
func cliNoChdir(args ...string) (stdout, stderr string, err error) {
	cmd := newRootCmd()
	cmd.SetArgs(args)
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = cmd.ExecuteContext(ctx)
	return o.String(), e.String(), err
}

// TestHostileInputsThatAreNotFiles: a profile or results file that is a
// FIFO, a device or huge is refused at once, naming the file and what it
// is, instead of blocking forever or dying out of memory.
func TestHostileInputsThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "results.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	os.WriteFile(huge, []byte("fill: {size: 1MB}\n#"+strings.Repeat("x", 2<<20)+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "/dev/zero"}, []string{"/dev/zero", "character device, not a regular file"}},
		{[]string{"run", fifo}, []string{fifo, "named pipe (FIFO), not a regular file"}},
		{[]string{"run", huge}, []string{huge, "over the 1 MiB"}},
		{[]string{"profiles", fifo}, []string{fifo, "named pipe"}},
		{[]string{"summary", "/dev/zero"}, []string{"/dev/zero", "character device"}},
		{[]string{"summary", fifo}, []string{fifo, "named pipe"}},
		{[]string{"plot", fifo}, []string{fifo, "named pipe"}},
		{[]string{"compare", fifo}, []string{fifo, "named pipe"}},
		{[]string{"calibration", "/dev/zero"}, []string{"/dev/zero", "character device"}},
		{[]string{"predict", "scaleout", "--from", fifo}, []string{fifo, "named pipe"}},
		{[]string{"plan", fifo}, []string{fifo, "named pipe"}},
		{[]string{"report", "/dev/zero", "--out", filepath.Join(dir, "rep")}, []string{"/dev/zero", "character device"}},
	} {
		_, _, err := cliWithin(t, 30*time.Second, append([]string{"-q", "--data-dir", dir}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want...)
	}
}
