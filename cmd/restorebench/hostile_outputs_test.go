package main

// Hostile tests of what the CLI reads and writes: inputs that are not
// regular files or are runaway large, counts no run can complete, outputs
// that would land on another run's, and names that would climb out of
// results/.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return cliCtx(ctx, args...)
}

// cliCtx runs the CLI in-process under ctx (cancelling it is Ctrl-C).
func cliCtx(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	cmd := newRootCmd()
	cmd.SetArgs(args)
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
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

// TestHostileRunawayCounts: a count no run or simulation can complete is
// refused before anything of its size is built, with the bound in the
// error; a zero or negative count is an error, never the default; and a
// long simulation stops at Ctrl-C.
func TestHostileRunawayCounts(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	predict := []string{"predict", "scaleout", "--task-size", "1GB", "--before", "2", "--after", "4", "--restore-rate", "50MB"}
	p := func(args ...string) []string { return append(append([]string{}, predict...), args...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", profile("fill: {records: 10}\nrepeats: 1000000000\n")}, "line 2: repeats: 1000000000 is over 100"},
		{[]string{"run", profile("fill: {records: 10}\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: scaleout\n    scaleout: {after: 100000}\n")}, "cases[0].scaleout.after: 100000 is over 64"},
		{[]string{"run", profile("fill: {records: 10}\nmatrix:\n  batch_records: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100]\n  threads: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100]\n")}, "line 3: matrix: more than 500 combinations"},
		{[]string{"run", "quick", "--repeats", "1000000000"}, "--repeats: 1000000000 is over 100"},
		{[]string{"run", profile("fill: {records: 10}\nmatrix: {batch_records: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51]}\n"), "--repeats", "100"}, "--repeats: 51 cases × 100 repeats is 5100 restores, over the 5000"},
		{[]string{"restore", "--repeats", "1000000000"}, "--repeats: 1000000000 is over 100"},
		{[]string{"restore", "--threads", "1000000"}, "--threads: 1000000 is over 1024"},
		{[]string{"restore", "--retention", "2h"}, "--retention 2h0m0s: it is a window or session store's retention, above 0, for --store-kind window, timestamped-window or session"},
		{[]string{"restore", "--store-kind", "window", "--retention", "-1h"}, "--retention -1h0m0s: it is a window or session store's retention, above 0"},
		{p("--tasks", "1000000000"), "--tasks: 1000000000 is over 100000"},
		{p("--tasks", "0"), "--tasks: 0 must be positive"},
		{p("--tasks", "-5"), "--tasks: -5 must be positive"},
		{p("--tasks", "8", "--samples", "100000000"), "--samples: 100000000 must be between 1 and 10000"},
		{p("--tasks", "8", "--samples", "0"), "--samples: 0 must be between 1 and 10000"},
		{p("--tasks", "8", "--samples", "-1"), "--samples: -1 must be between 1 and 10000"},
		{p("--tasks", "8", "--after", "1000000"), "--after: 1000000 is over 1000"},
		{p("--tasks", "100000", "--after", "1000"), "--after × --tasks: 1000 × 100000 is over 10000000"},
		{p("--tasks", "8", "--threads", "100000000"), "--threads: 100000000 is over 1024"},
	} {
		_, _, err := cliWithin(t, 30*time.Second, append([]string{"-q", "--data-dir", dir}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want)
	}
	if _, _, err := cliWithin(t, 30*time.Second, p("--tasks", "8", "--samples", "1")...); err != nil {
		t.Fatalf("--samples 1: %v", err)
	}

	// Ctrl-C stops a simulation of many minutes within seconds.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	start := time.Now()
	_, _, err := cliCtx(ctx, p("--tasks", "100000")...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("predict interrupted: error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("predict stopped %s after its start, cancelled after 1s", d)
	}
}

// TestHostileSymlinkedStateDir: a --state-dir that reaches the embedded
// broker's log or the fill manifests through a symlink (the dir itself, a
// parent, a link to a directory not made yet) is refused like the real
// path, and the broker's log is left as it was.
func TestHostileSymlinkedStateDir(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	broker := filepath.Join(dir, "broker")
	before := du(t, broker)
	links := t.TempDir()
	link := func(name, target string) string {
		p := filepath.Join(links, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toBroker := link("to-broker", broker)
	toData := link("to-data", dir)
	toFills := link("to-fills", filepath.Join(dir, "fills"))
	dangling := link("dangling", filepath.Join(broker, "not-yet"))
	relative := link("relative", "to-broker")
	prof := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(prof, []byte("fill: {records: 4000, keys: 500}\ncases: [{name: a}]\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--state-dir", toBroker, "restore", "--application-id", "x"}, "inside"},
		{[]string{"--state-dir", toBroker, "restore"}, "inside"},
		{[]string{"--state-dir", toData, "restore", "--application-id", "broker"}, "is"},
		{[]string{"--state-dir", filepath.Join(toBroker, "deeper", "still"), "restore"}, "inside"},
		{[]string{"--state-dir", toFills, "restore"}, "inside"},
		{[]string{"--state-dir", dangling, "restore"}, "inside"},
		{[]string{"--state-dir", relative, "restore"}, "inside"},
		{[]string{"--state-dir", toBroker, "run", prof, "--out", filepath.Join(dir, "out1"), "--no-plots"}, "inside"},
	} {
		_, _, err := cli(t, append([]string{"-q", "--data-dir", dir}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want, "refusing", broker[:len(dir)])
	}
	// The refusals wrote nothing into the broker's log (checked before the
	// restore below, whose broker may write its own metadata there).
	if after := du(t, broker); after != before {
		t.Fatalf("the broker's log changed: %d bytes before, %d after", before, after)
	}
	if exists(filepath.Join(broker, "x")) || exists(filepath.Join(broker, "not-yet")) || exists(filepath.Join(broker, "restorebench")) {
		t.Fatal("a state dir was made inside the broker's log")
	}
	// The data dir's own state/ sibling is fine: not inside the log.
	if _, _, err := cli(t, "-q", "--data-dir", dir, "--state-dir", filepath.Join(toData, "sub"), "restore", "--out", filepath.Join(dir, "out2")); err != nil {
		t.Fatalf("a state dir beside the broker's log: %v", err)
	}
	if exists(filepath.Join(broker, "sub")) {
		t.Fatal("a state dir was made inside the broker's log")
	}
}

// TestHostileOutputsNeverOverwrite: no command writes over a run's
// results or into a directory another process is writing: a second run
// into a live run's --out is refused before any work (not once the first
// has written results.json), default run ids never collide, and compare,
// calibration, plot, report and --cpuprofile refuse to replace a results
// file (by name or by content) with their output.
func TestHostileOutputsNeverOverwrite(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	if _, _, err := cli(t, "-q", "--data-dir", dir, "restore", "--out", run); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(run, "results.json")
	orig, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copy-of-results.txt")
	os.WriteFile(copied, orig, 0o644)
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "results.json"), orig, 0o644)
	reportDir := filepath.Join(dir, "rep")
	os.MkdirAll(reportDir, 0o755)
	os.WriteFile(filepath.Join(reportDir, "report.md"), orig, 0o644)
	input := filepath.Join(dir, "input.yaml")
	os.WriteFile(input, []byte("fill: {records: 4000, keys: 500}\n"), 0o644)
	oldProfile := filepath.Join(dir, "old.prof")
	os.WriteFile(oldProfile, []byte{0x1f, 0x8b, 8, 0}, 0o644)

	// A run in progress holds its --out (as a live process does).
	live := filepath.Join(dir, "live")
	held, err := lockOut("--out", live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", input, "--out", live, "--no-plots"}, []string{"--out " + live, "in use by another restorebench process"}},
		{[]string{"restore", "--out", live}, []string{"--out " + live, "in use"}},
		{[]string{"plot", results, "--out", live}, []string{live, "in use"}},
		{[]string{"report", run, "--out", live}, []string{live, "in use"}},
		{[]string{"run", input, "--out", run, "--no-plots"}, []string{"already holds a run's results"}},
		{[]string{"compare", run, "--out", results}, []string{results, "results"}},
		{[]string{"compare", run, "--out", copied}, []string{copied, "holds a run's results"}},
		{[]string{"compare", run, "--out", filepath.Join(dir, "new", "results.json")}, []string{"results file"}},
		{[]string{"calibration", run, "--out", results}, []string{results, "results"}},
		{[]string{"calibration", run, "--out", copied}, []string{copied, "holds a run's results"}},
		{[]string{"--cpuprofile", results, "summary", run}, []string{"--cpuprofile", results}},
		{[]string{"--cpuprofile", copied, "summary", run}, []string{"--cpuprofile", copied, "holds a run's results"}},
		{[]string{"--cpuprofile", input, "run", input}, []string{"--cpuprofile", input, "not a Go profile"}},
		{[]string{"plot", results, "--out", other}, []string{other, "another run's results"}},
		{[]string{"report", run, "--out", reportDir}, []string{"report.md", "holds a run's results"}},
	} {
		root, g := newRoot()
		root.SetArgs(append([]string{"-q", "--data-dir", dir}, c.args...))
		root.SetOut(new(bytes.Buffer))
		root.SetErr(new(bytes.Buffer))
		err := root.Execute()
		g.stopProfile()
		wantErr(t, strings.Join(c.args, " "), err, c.want...)
	}
	for _, f := range []string{results, copied, filepath.Join(other, "results.json"), filepath.Join(reportDir, "report.md")} {
		if b, _ := os.ReadFile(f); !bytes.Equal(b, orig) {
			t.Fatalf("%s was changed", f)
		}
	}
	if b, _ := os.ReadFile(input); string(b) != "fill: {records: 4000, keys: 500}\n" {
		t.Fatalf("the input profile was overwritten: %q", b)
	}
	if ents, _ := os.ReadDir(live); len(ents) != 0 {
		t.Fatalf("a refused command wrote into the live run's directory: %v", ents)
	}
	// An earlier CPU profile may be replaced.
	root, g := newRoot()
	root.SetArgs([]string{"--cpuprofile", oldProfile, "profiles"})
	root.SetOut(new(bytes.Buffer))
	err = root.Execute()
	g.stopProfile()
	if err != nil {
		t.Fatalf("--cpuprofile over an earlier profile: %v", err)
	}

	// Restores started in the same second (here: results dirs of this
	// second and the next two already taken by finished restores) get run
	// ids of their own instead of failing or sharing a directory.
	t.Chdir(t.TempDir())
	now := time.Now()
	for s := range 3 {
		id := now.Add(time.Duration(s)*time.Second).UTC().Format("20060102-150405") + "-restore"
		os.MkdirAll(filepath.Join("results", id), 0o755)
		os.WriteFile(filepath.Join("results", id, "results.json"), orig, 0o644)
	}
	seen := map[string]bool{}
	for range 2 {
		_, stderr, err := cliNoChdir("-q", "--data-dir", dir, "restore")
		if err != nil {
			t.Fatalf("a restore in the same second as others: %v\n%s", err, stderr)
		}
	}
	ents, _ := os.ReadDir("results")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("results", e.Name(), "results.json"))
		if err != nil {
			t.Fatalf("results/%s: %v", e.Name(), err)
		}
		if !bytes.Equal(b, orig) {
			if seen[string(b)] {
				t.Fatal("two restores wrote the same results")
			}
			seen[string(b)] = true
		}
	}
	if len(ents) != 5 || len(seen) != 2 {
		t.Fatalf("results dirs %d (want 5), new results %d (want 2)", len(ents), len(seen))
	}
}

// TestHostileProfileNameEscapes: a profile's name becomes its run id, and
// so results/<run-id> and the state root: one that would climb out of
// results/ or make nested directories is refused naming the field and
// line, and nothing is written outside results/.
func TestHostileProfileNameEscapes(t *testing.T) {
	dir := t.TempDir()
	work := t.TempDir()
	t.Chdir(work)
	victim := filepath.Join(filepath.Dir(work), "victim")
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "results.json"), []byte("mine"), 0o644)
	for i, name := range []string{"../victim", "../../../../victim", "x<script>alert(1)</script>", "a/b/c", "/tmp/abs", ".."} {
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", i))
		os.WriteFile(p, []byte(fmt.Sprintf("description: hostile\nname: %q\nfill: {records: 4000, keys: 500}\n", name)), 0o644)
		_, _, err := cliNoChdir("-q", "--data-dir", dir, "run", p, "--no-plots")
		wantErr(t, "name "+name, err, "line 2: name: ", "may hold only")
	}
	if b, _ := os.ReadFile(filepath.Join(victim, "results.json")); string(b) != "mine" {
		t.Fatalf("a file outside results/ was replaced: %q", b)
	}
	if exists(filepath.Join(work, "results")) || exists(filepath.Join(dir, "state", "x<script>alert(1)<")) {
		t.Fatal("a refused profile made directories")
	}
}

// TestHostileSecurityFilesThatAreNotFiles: the files the security flags
// name are small: a device, a FIFO or a huge (sparse) file given as
// --command-config or a TLS file is refused at once, naming it, instead of
// reading without end or blocking; --sasl-password-file may be a pipe but
// one with no writer is an error after a bounded wait, and Ctrl-C ends
// that wait.
func TestHostileSecurityFilesThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.pem")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(8 << 20) // sparse: takes no disk
	f.Close()
	small := filepath.Join(dir, "cert.pem")
	os.WriteFile(small, []byte("not a certificate\n"), 0o600)
	defer func(d time.Duration) { passwordPipeTimeout = d }(passwordPipeTimeout)
	passwordPipeTimeout = 500 * time.Millisecond
	ext := []string{"-q", "--data-dir", dir, "--brokers", "127.0.0.1:1", "--connect-timeout", "1s"}
	sasl := []string{"--security-protocol", "SASL_PLAINTEXT", "--sasl-mechanism", "PLAIN", "--sasl-username", "u"}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"command-config-fifo", []string{"--command-config", fifo}, []string{"--command-config", fifo, "named pipe (FIFO), not a regular file"}},
		{"command-config-sparse", []string{"--command-config", sparse}, []string{"--command-config", sparse, "over the 1 MiB"}},
		{"tls-ca-fifo", []string{"--security-protocol", "SSL", "--tls-ca", fifo}, []string{"CA file", fifo, "named pipe"}},
		{"tls-ca-sparse", []string{"--security-protocol", "SSL", "--tls-ca", sparse}, []string{"CA file", sparse, "over the 1 MiB"}},
		{"tls-cert-fifo", []string{"--security-protocol", "SSL", "--tls-cert", fifo, "--tls-key", sparse}, []string{"client certificate file", fifo, "named pipe"}},
		{"tls-key-sparse", []string{"--security-protocol", "SSL", "--tls-cert", small, "--tls-key", sparse}, []string{"client key file", sparse, "over the 1 MiB"}},
		{"sasl-password-fifo", append(append([]string{}, sasl...), "--sasl-password-file", fifo), []string{"--sasl-password-file", fifo, "no writer within 500ms"}},
		{"sasl-password-sparse", append(append([]string{}, sasl...), "--sasl-password-file", sparse), []string{"--sasl-password-file", sparse, "over the 64 KiB"}},
		{"devzero-command-config", []string{"--command-config", "/dev/zero"}, []string{"--command-config", "/dev/zero", "character device"}},
		{"devzero-tls-ca", []string{"--security-protocol", "SSL", "--tls-ca", "/dev/zero"}, []string{"CA file", "/dev/zero", "character device"}},
		{"devzero-tls-cert", []string{"--security-protocol", "SSL", "--tls-cert", "/dev/zero", "--tls-key", "/dev/zero"}, []string{"/dev/zero", "character device"}},
		{"devzero-sasl-password", append(append([]string{}, sasl...), "--sasl-password-file", "/dev/zero"), []string{"--sasl-password-file", "/dev/zero", "character device"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append(append([]string{}, ext...), c.args...), "restore")
			_, _, err := cliWithin(t, 20*time.Second, args...)
			wantErr(t, strings.Join(c.args, " "), err, c.want...)
		})
	}

	t.Run("sasl-password-fifo-ctrl-c", func(t *testing.T) {
		passwordPipeTimeout = time.Minute
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		_, _, err := cliCtx(ctx, append(append(append([]string{}, ext...), sasl...), "--sasl-password-file", fifo, "restore")...)
		wantErr(t, "interrupted", err, "--sasl-password-file", "context canceled")
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("stopped %s after its start, cancelled after 300ms", d)
		}
	})
	t.Run("sasl-password-fifo-with-writer", func(t *testing.T) {
		passwordPipeTimeout = 5 * time.Second
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				w.Write([]byte("pw\n"))
				w.Close()
			}
		}()
		// The password is read; the run then fails on the unreachable broker.
		_, _, err := cliWithin(t, 30*time.Second, append(append(append([]string{}, ext...), sasl...), "--sasl-password-file", fifo, "restore")...)
		if err == nil || strings.Contains(err.Error(), "--sasl-password-file") {
			t.Fatalf("a pipe with a writer: %v, want an error past the password", err)
		}
	})
}

// TestHostileFillLargerThanTheDisk: on the embedded broker (its log is on
// this host's disk) a fill far larger than the free space is refused
// before anything is written, naming the estimate, the free space and the
// broker's log directory.
func TestHostileFillLargerThanTheDisk(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := cliWithin(t, 60*time.Second, "--data-dir", dir, "fill", "--records", "10000000000000", "--keys", "1000")
	wantErr(t, "a 1.2 PB fill", err, "does not fit in the", "free on the disk of the embedded broker's log", filepath.Join(dir, "broker"), "PB (keys and values)")
	if strings.Contains(stderr, "fill: writing") {
		t.Fatalf("the fill started writing: %s", stderr)
	}
}

// TestHostileCaseSettingsWithoutBound: case settings no host can run (a
// terabyte of memory, a gigabyte block, a million threads, a step of a
// hundred years, a trillion records a second) are refused by `profiles`,
// naming the field and the bound.
func TestHostileCaseSettingsWithoutBound(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	kcase := func(setting string) string {
		return profile("fill: {records: 1000}\ncases:\n  - name: a\n    " + setting + "\n")
	}
	standby := func(settings string) string {
		return kcase("scenario: standby\n    standby: " + settings)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{kcase("sort_buffer: 1TiB"), []string{"sort_buffer: 1TiB is over this host's memory"}},
		{kcase("block_cache_size: 1TiB"), []string{"block_cache_size: 1TiB is over this host's memory"}},
		{kcase("write_buffer_size: 1TiB"), []string{"write_buffer_size: 1TiB is over 64GiB"}},
		{kcase("max_write_buffer_number: 1000000"), []string{"max_write_buffer_number: 1000000 is over 64"}},
		{kcase("max_background_jobs: 1000000"), []string{"max_background_jobs: 1000000 is over 256"}},
		{kcase("engine: kafka-streams\n    jvm_heap: 1TiB"), []string{"jvm_heap: 1TiB is over this host's memory"}},
		{kcase("block_size: 1GiB"), []string{"block_size: 1GiB is over 256MiB"}},
		{kcase("bloom_bits_per_key: 1000000"), []string{"bloom_bits_per_key: 1e+06 is over 100"}},
		{kcase("level0_stop_writes_trigger: 2000000000"), []string{"level0_stop_writes_trigger: 2000000000 is over 10000"}},
		{standby("{rates: [1000], duration: 1000000h}"), []string{"standby.duration: 1000000h0m0s is over 24h0m0s"}},
		{standby("{rates: [1000], pauses: [1000000h]}"), []string{"standby.pauses[0]: 1000000h0m0s is over 24h0m0s"}},
		{standby("{rates: [1e12]}"), []string{"standby.rates[0]: 1e+12 is over 1e+08 records/s"}},
		{standby("{rates: [1000], acceptable_recovery_lag: 100000000000000}"), []string{"standby.acceptable_recovery_lag: 100000000000000 is over 10000000000"}},
		{kcase("scenario: compaction\n    compaction: {settle: 1000000h}"), []string{"compaction.settle: 1000000h0m0s is over 24h0m0s"}},
	} {
		_, _, err := cliWithin(t, 30*time.Second, "-q", "--data-dir", dir, "profiles", c.path)
		b, _ := os.ReadFile(c.path)
		wantErr(t, string(b), err, c.want...)
	}
}

// TestHostilePlanDeployments: a deployment no cluster runs (a billion
// partitions, threads or standbys, an RTO of a nanosecond or a century) is
// refused with the bound before any answer is printed; an explicit
// --state 0 is an error about --state, not a missing --state.
func TestHostilePlanDeployments(t *testing.T) {
	from := filepath.Join(t.TempDir(), "never-read")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--partitions", "1000000000", "--state", "1GB"}, "--partitions: 1000000000 is over 10000"},
		{[]string{"--rto", "1ns"}, "--rto: 1ns is under 1s"},
		{[]string{"--rto", "1m,100000h"}, "--rto: 100000h0m0s is over 720h0m0s"},
		{[]string{"--threads", "1000000000"}, "--threads: 1000000000 is over 1024"},
		{[]string{"--instances", "1000000000"}, "--instances: 1000000000 is over 10000"},
		{[]string{"--standbys", "1000000000", "--instances", "2"}, "--standbys: 1000000000 needs more than --instances 2"},
		{[]string{"--standbys", "2", "--instances", "2"}, "--standbys: 2 needs more than --instances 2"},
		{[]string{"--state", "0", "--partitions", "8"}, "--state: 0 must be positive"},
		{[]string{"--live-state", "0", "--partitions", "8"}, "--live-state: 0 must be positive"},
		// Refused before any broker is contacted: nothing listens at the address given.
		{[]string{"--from-topic", "mine", "--measure", "--measure-engines", "model,model", "--brokers", "127.0.0.1:1"},
			`--measure-engines: "model" is given twice`},
		{[]string{"--from-topic", "mine", "--measure", "--measure-engines=", "--brokers", "127.0.0.1:1"}, "--measure-engines: empty"},
		{[]string{"--from-topic", "mine", "--measure", "--agents", "a,a", "--brokers", "127.0.0.1:1"}, "--agents: a named twice"},
		{[]string{"--from-topic", "mine", "--measure", "--agents", "any:0", "--brokers", "127.0.0.1:1"}, "--agents any:0: N must be"},
		{[]string{"--from-topic", "mine", "--measure", "--agents", "a/b", "--brokers", "127.0.0.1:1"}, `--agents: agent name "a/b" is not a plain name`},
		{[]string{"--from-topic", "mine", "--measure", "--agents", ",", "--brokers", "127.0.0.1:1"}, "--agents: no agent named"},
		{[]string{"--from-topic", "mine", "--agents", "a", "--brokers", "127.0.0.1:1"}, "--agents: they are where --measure restores; give --measure"},
	} {
		for _, cmd := range []string{"plan", "report"} {
			args := append([]string{"-q", cmd, from}, c.args...)
			if cmd == "plan" && slices.Contains(c.args, "--measure") { // needs no runs: only the flags' check stands before the broker
				args = append([]string{"-q", cmd}, c.args...)
			}
			if cmd == "report" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "rep"))
			}
			stdout, _, err := cliWithin(t, 30*time.Second, args...)
			wantErr(t, strings.Join(args, " "), err, c.want)
			if stdout != "" {
				t.Fatalf("%s printed answers: %s", strings.Join(args, " "), stdout)
			}
		}
	}
}

// TestHostileProfileYAMLStrictness: what YAML allows but a profile cannot
// honour as written is an error naming it: a key given twice (one would
// silently win), a second document after --- (it would be ignored), an
// alias or merge key (decoded as something else than written).
func TestHostileProfileYAMLStrictness(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{profile("fill:\n  records: 1000\n  records: 2000\n"), []string{"line 3", `key "records" repeats line 2`}},
		{profile("fill: {records: 1000}\nrepeats: 2\nrepeats: 3\n"), []string{"line 3", `key "repeats" repeats line 2`}},
		{profile("fill: {records: 1000}\ncases:\n  - name: a\n    threads: 1\n    threads: 2\n"), []string{"line 5", `key "threads" repeats line 4`}},
		{profile("fill: {records: 1000}\n---\nfill: {records: 5}\nrepeats: 1000000000\n"), []string{"second YAML document", "a profile is one document"}},
		{profile("fill: {records: 1000}\nmatrix:\n  batch_records: &m [1, 2]\n  threads: *m\n"), []string{"line 4", "*m", "aliases are not supported"}},
		{profile("fill: {records: 1000}\ncases:\n  - &a {name: a, threads: 2}\n  - <<: *a\n    name: b\n"), []string{"line 4", "merge keys are not supported"}},
	} {
		_, _, err := cliWithin(t, 30*time.Second, "-q", "--data-dir", dir, "profiles", c.path)
		b, _ := os.ReadFile(c.path)
		wantErr(t, string(b), err, append([]string{c.path}, c.want...)...)
	}
}

// TestHostileOutputsOntoOthersFiles: report refuses a directory holding
// another run's results (as plot does); no --out of compare, calibration,
// report or plot lands in the broker's log, the fill manifests or the
// state directory; compare and calibration replace an existing file only
// with --force. Every file the refused commands aimed at is left as it was.
func TestHostileOutputsOntoOthersFiles(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "r1")
	if _, _, err := cli(t, "-q", "--data-dir", dir, "restore", "--out", run); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(filepath.Join(run, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Another run's directory, with its report.
	other := filepath.Join(dir, "v", "w")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "results.json"), orig, 0o644)
	os.WriteFile(filepath.Join(other, "report.md"), []byte("w's report\n"), 0o644)
	os.WriteFile(filepath.Join(other, "report.html"), []byte("w's report\n"), 0o644)
	manifests, _ := filepath.Glob(filepath.Join(dir, "fills", "*", "*.json"))
	if len(manifests) == 0 {
		t.Fatalf("no fill manifest under %s", filepath.Join(dir, "fills"))
	}
	manifest := manifests[0]
	manifestBody, _ := os.ReadFile(manifest)
	profile := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(profile, []byte("fill: {records: 10}\n"), 0o644)
	stateDir := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(stateDir, 0o755)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"report", run, "--out", other}, []string{"--out " + other, "another run's results"}},
		{[]string{"compare", run, "--out", manifest}, []string{manifest, "lies in the fill manifests"}},
		{[]string{"compare", run, "--out", manifest, "--force"}, []string{manifest, "lies in the fill manifests"}},
		{[]string{"compare", run, "--out", filepath.Join(dir, "broker", "x.txt")}, []string{"lies in the embedded broker's log"}},
		{[]string{"compare", run, "--out", profile}, []string{profile, "exists; refusing to overwrite it", "--force"}},
		{[]string{"calibration", run, "--out", profile}, []string{profile, "exists; refusing to overwrite it", "--force"}},
		{[]string{"calibration", run, "--out", filepath.Join(dir, "fills", "x.md")}, []string{"lies in the fill manifests"}},
		{[]string{"report", run, "--out", filepath.Join(dir, "broker")}, []string{"lies in the embedded broker's log"}},
		{[]string{"plot", run, "--out", filepath.Join(dir, "broker")}, []string{"lies in the embedded broker's log"}},
		{[]string{"report", run, "--out", filepath.Join(dir, "state")}, []string{"lies in the state directory"}},
		{[]string{"plot", run, "--out", filepath.Join(dir, "state", "x")}, []string{"lies in the state directory"}},
		{[]string{"--state-dir", stateDir, "report", run, "--out", stateDir}, []string{"lies in the state directory", stateDir}},
		{[]string{"--state-dir", stateDir, "plot", run, "--out", filepath.Join(stateDir, "charts")}, []string{"lies in the state directory"}},
	} {
		_, _, err := cliWithin(t, 60*time.Second, append([]string{"-q", "--data-dir", dir}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want...)
	}
	for f, want := range map[string]string{
		filepath.Join(other, "report.md"): "w's report\n", filepath.Join(other, "report.html"): "w's report\n",
		manifest: string(manifestBody), profile: "fill: {records: 10}\n",
	} {
		if b, _ := os.ReadFile(f); string(b) != want {
			t.Fatalf("%s was changed", f)
		}
	}
	if ents, _ := os.ReadDir(stateDir); len(ents) != 0 {
		t.Fatalf("a refused command wrote into the state dir: %v", ents)
	}

	// What is allowed: --force replaces a file of one's own choosing; a
	// report into the reported run's own directory; a new file.
	md := filepath.Join(dir, "cmp.md")
	for range 2 {
		if _, _, err := cliWithin(t, 60*time.Second, "-q", "--data-dir", dir, "compare", run, other, "--out", md, "--force"); err != nil {
			t.Fatalf("compare --out --force: %v", err)
		}
	}
	if _, _, err := cliWithin(t, 60*time.Second, "-q", "--data-dir", dir, "calibration", run, "--out", filepath.Join(dir, "cal.md")); err != nil {
		t.Fatalf("calibration --out a new file: %v", err)
	}
	if _, _, err := cliWithin(t, 60*time.Second, "-q", "--data-dir", dir, "report", run); err != nil {
		t.Fatalf("report into the run's own directory: %v", err)
	}
}

// TestHostileOutputsThroughLinks walks every command that takes an output
// path (heap, gendocs, run, restore, report, plot, plan --measure): with
// an entry it would write made a symlink to a file or directory elsewhere,
// the link is never written through (what it points to is unchanged), and
// a file of the user's own in the output directory survives unchanged.
// Each runs the cheapest invocation that reaches its write.
func TestHostileOutputsThroughLinks(t *testing.T) {
	saved, err := os.ReadFile(filepath.Join("..", "..", "testdata", "results", "quick", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	work := t.TempDir()
	t.Chdir(work)
	if _, _, err := cliNoChdir(append([]string{"-q", "--data-dir", data, "fill", "--topic", "mine"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(data, "saved-run")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, "results.json"), saved, 0o644)
	scratch := filepath.Join(data, "charts")
	if _, _, err := cliNoChdir("-q", "--data-dir", data, "plot", run, "--out", scratch); err != nil {
		t.Fatal(err)
	}
	charts, _ := filepath.Glob(filepath.Join(scratch, "*.svg"))
	if len(charts) == 0 {
		t.Fatal("plot drew no chart")
	}
	profiles := filepath.Join(data, "profiles")
	os.MkdirAll(profiles, 0o755)
	tiny := filepath.Join(profiles, "tiny.yaml")
	os.WriteFile(tiny, []byte("fill: {records: 4000, keys: 500}\ncases: [{name: a}]\n"), 0o644)
	ks := filepath.Join(profiles, "ks.yaml")
	os.WriteFile(ks, []byte("fill: {records: 1000}\ncases:\n  - {name: ks-cold, engine: kafka-streams}\n"), 0o644)
	var measureIDs []string // the run ids plan --measure may take in the next seconds
	for s := range 30 {
		measureIDs = append(measureIDs, time.Now().Add(time.Duration(s)*time.Second).UTC().Format("20060102-150405")+"-measure")
	}
	for _, c := range []struct {
		name  string
		out   string   // the output directory; "" a fresh one
		links []string // its entries made links to elsewhere
		user  string   // a file of the user's own there
		args  func(out string) []string
		want  []string // what the error names; nil: the command succeeds around the links
	}{
		{"heap", "", []string{"heap-2048MiB"}, "notes.txt",
			func(out string) []string { return []string{"heap", ks, "--case", "ks-cold", "--out", out} }, []string{"heap-2048MiB"}},
		{"gendocs", "", []string{"restorebench_run.md"}, "restorebench-notes.md",
			func(out string) []string { return []string{"gendocs", out} }, []string{"restorebench_run.md", "symbolic link"}},
		{"run", "", []string{"results.json"}, "notes.txt",
			func(out string) []string { return []string{"run", tiny, "--out", out, "--no-plots"} }, []string{"already holds a run's results"}},
		{"restore", "", []string{"results.json"}, "notes.txt",
			func(out string) []string { return []string{"restore", "--out", out} }, []string{"already holds a run's results"}},
		{"report", "", []string{"report.md"}, "notes.txt",
			func(out string) []string { return []string{"report", run, "--out", out} }, []string{"report.md", "symbolic link"}},
		{"plot", "", []string{filepath.Base(charts[0])}, "notes.txt",
			func(out string) []string { return []string{"plot", run, "--out", out} }, []string{filepath.Base(charts[0]), "symbolic link"}},
		{"plan-measure", filepath.Join(work, "results"), measureIDs, "notes.txt",
			func(string) []string {
				return []string{"plan", "--from-topic", "mine", "--measure", "--measure-engines", "model", "--measure-repeats", "1",
					"--instances", "2", "--rto", "1m"}
			}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := c.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "out")
			}
			os.MkdirAll(out, 0o755)
			victims := t.TempDir()
			victimFile := filepath.Join(victims, "file")
			victimDir := filepath.Join(victims, "dir")
			os.MkdirAll(victimDir, 0o755)
			os.WriteFile(filepath.Join(victimDir, "results.json"), []byte("theirs"), 0o644)
			os.WriteFile(victimFile, []byte("theirs"), 0o644)
			for _, l := range c.links {
				target := victimFile
				if !strings.HasSuffix(l, ".md") && !strings.HasSuffix(l, ".json") && !strings.HasSuffix(l, ".svg") {
					target = victimDir
				}
				if err := os.Symlink(target, filepath.Join(out, l)); err != nil {
					t.Fatal(err)
				}
			}
			user := filepath.Join(out, c.user)
			os.WriteFile(user, []byte("mine\n"), 0o644)
			_, _, err := cliNoChdir(append([]string{"-q", "--data-dir", data}, c.args(out)...)...)
			if c.want != nil {
				wantErr(t, c.name, err, c.want...)
			} else if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if b, _ := os.ReadFile(victimFile); string(b) != "theirs" {
				t.Errorf("the file a link pointed to was written through: %q", b)
			}
			if ents, _ := os.ReadDir(victimDir); len(ents) != 1 {
				t.Errorf("the directory a link pointed to was written into: %v", ents)
			}
			if b, _ := os.ReadFile(filepath.Join(victimDir, "results.json")); string(b) != "theirs" {
				t.Errorf("the results a link pointed to were written through: %q", b)
			}
			if b, _ := os.ReadFile(user); string(b) != "mine\n" {
				t.Errorf("the user's %s was removed or changed: %q", c.user, b)
			}
		})
	}
}
