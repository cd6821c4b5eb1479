package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/internal/filelock"
	"github.com/restorebench/restorebench/internal/statedir"
)

// Every output path a command is given goes through this file and
// atomicfile.Write, the one way restorebench writes there: the directory
// is claimed (lockOut, claimOutDir, claimPlotDir, claimReportDir; one
// holding another run's output is refused), a directory made inside it
// is made by an exclusive mkdir (mkdirOwn), and each file is written
// atomically, never through or over a symbolic link, never over a run's
// results (atomicfile.Write). Nothing else in the directory is touched.

// outDir is an output directory this process holds: flocked (the
// directory itself, so nothing is left in it) until release, and by the
// kernel only as long as the process lives, so a killed run leaves no
// stale claim.
type outDir struct {
	path string
	lock *filelock.Lock
	// created: this process made the directory, and removes it at release
	// if nothing was written there (a command that failed first).
	created bool
}

// release lets other processes claim the directory.
func (o *outDir) release() {
	if o != nil && o.lock != nil {
		if o.created {
			os.Remove(o.path) // only when empty
		}
		o.lock.Unlock()
		o.lock = nil
	}
}

// errOutInUse is the error for an output directory another process holds.
var errOutInUse = errors.New("is in use by another restorebench process (a run or restore writing there now); choose " +
	"another directory or wait for it to finish")

// lockOut creates dir if needed and locks it; another process holding it
// is an error naming flag.
func lockOut(flag, dir string) (*outDir, error) {
	_, statErr := os.Stat(dir)
	created := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s %s: not a directory", flag, dir)
	}
	lock, err := filelock.TryLockFile(f)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("%s %s %w", flag, dir, errOutInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	return &outDir{path: dir, lock: lock, created: created}, nil
}

// claimOutDir takes a run's output directory before any work: locked, so
// a second run started before the first has written anything is refused,
// and without results.json, so a run never replaces another's results
// (and leaves the first run's plots beside the second's numbers). marks
// are filepath.Match patterns of what else in dir is another run's output
// the command would replace or mix with its own (heap: heap.json and its
// step directories); any entry matching one, a symlink included, is
// refused, naming them.
func claimOutDir(dir string, marks ...string) (*outDir, error) {
	o, err := lockOut("--out", dir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, atomicfile.ResultsName)
	if _, err := os.Lstat(p); err == nil {
		o.release()
		return nil, fmt.Errorf("--out %s already holds a run's results (%s); choose another directory or remove it", dir, p)
	}
	if found := matchingEntries(dir, marks); len(found) > 0 {
		o.release()
		return nil, fmt.Errorf("--out %s already holds another run's output (%s); choose another directory or remove them",
			dir, strings.Join(found, ", "))
	}
	return o, nil
}

// matchingEntries are the names of dir's entries (not followed: a symlink
// is an entry) that match one of patterns, at most 10 of them.
func matchingEntries(dir string, patterns []string) []string {
	if len(patterns) == 0 {
		return nil
	}
	ents, _ := os.ReadDir(dir)
	var found []string
	for _, e := range ents {
		for _, pat := range patterns {
			if ok, _ := filepath.Match(pat, e.Name()); ok && len(found) < 10 {
				found = append(found, e.Name())
				break
			}
		}
	}
	return found
}

// mkdirOwn makes the directory name inside a claimed output directory dir
// for this process alone: an exclusive mkdir, so an entry already there (a
// symlink to elsewhere, another run's directory) is refused rather than
// written through or mixed with, naming it.
func mkdirOwn(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s: already exists (another run's output, or a link to elsewhere); refusing to write into it", p)
		}
		return "", err
	}
	return p, nil
}

// claimDefaultOut makes results/<run-id> for a run without --out, with a
// run id of its own: base, else base-2, base-3, ... for the first
// directory this process creates (an exclusive mkdir), so runs started in
// the same second neither share a directory nor fail.
func claimDefaultOut(base string) (runID string, o *outDir, err error) {
	if err := os.MkdirAll("results", 0o755); err != nil {
		return "", nil, fmt.Errorf("results directory: %w", err)
	}
	for n := 1; n <= 1000; n++ {
		id := base
		if n > 1 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		dir := filepath.Join("results", id)
		if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return "", nil, fmt.Errorf("results directory: %w", err)
		}
		o, err := claimOutDir(dir)
		if o != nil {
			o.created = true
		}
		return id, o, err
	}
	return "", nil, fmt.Errorf("results/%s: 1000 runs of that id already; remove old ones", base)
}

// claimRunOut claims the output of a run or restore named name: --out as
// given, or a fresh results/<run-id>. It returns the run id, the directory
// and its claim, which the caller releases when the command ends.
func claimRunOut(name, out string, marks ...string) (runID, dir string, o *outDir, err error) {
	runID = bench.NewRunID(name)
	if out != "" {
		o, err = claimOutDir(out, marks...)
		return runID, out, o, err
	}
	runID, o, err = claimDefaultOut(runID)
	if err != nil {
		return "", "", nil, err
	}
	return runID, o.path, o, nil
}

// claimAndConnect claims the output of a run or restore (claimRunOut) and
// connects to the cluster. It returns the run id, the directory, the
// environment and done, which the caller calls when the command ends: it
// closes the environment, then releases the claim. marks are as for
// claimOutDir.
func (g *globalFlags) claimAndConnect(cmd *cobra.Command, name, out string, marks ...string,
) (runID, dir string, env *bench.Env, done func(), err error) {
	runID, dir, claim, err := claimRunOut(name, out, marks...)
	if err != nil {
		return "", "", nil, nil, err
	}
	env, err = g.connect(cmd)
	if err != nil {
		claim.release()
		return "", "", nil, nil, err
	}
	return runID, dir, env, func() { env.Close(); claim.release() }, nil
}

// checkOutFile refuses an output file (--out of compare, calibration,
// --cpuprofile) that would replace a run's results.
func checkOutFile(flag, path string) error {
	if err := atomicfile.CheckNotResults(path, nil); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// checkProfileOut refuses a profile output (--cpuprofile) that would
// replace anything but an earlier profile: a run's results, a profile
// YAML given as input, a device. Go profiles are gzip-compressed; an empty
// file is a profile that was never written.
func checkProfileOut(flag, path string) error {
	if err := checkOutFile(flag, path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s: not a regular file; refusing to write a profile there", flag, path)
	}
	if fi.Size() == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	defer f.Close()
	magic := make([]byte, 2)
	if _, err := io.ReadFull(f, magic); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return fmt.Errorf("%s %s: exists and is not a Go profile; refusing to overwrite it (choose another file or remove it)", flag, path)
	}
	return nil
}

// claimPlotDir takes the directory plot writes charts into: not one
// another process is writing, and not one holding another run's results
// (their charts would be replaced by these). results is the file plotted.
func claimPlotDir(dir, results string) (*outDir, error) {
	other := filepath.Join(dir, atomicfile.ResultsName)
	if a, err := os.Stat(other); err == nil {
		if b, err := os.Stat(results); err != nil || !os.SameFile(a, b) {
			return nil, fmt.Errorf("--out %s holds another run's results (%s): its charts would be replaced by those of %s; "+
				"choose another directory", dir, other, results)
		}
	}
	return lockOut("--out", dir)
}

// dataPaths are the directories no --out of compare, calibration, report
// or plot may be or lie inside: the embedded broker's log and the fill
// manifests under --data-dir, and the state directory. The flags are the
// root's (their defaults when cmd runs without the root, as in tests).
func dataPaths(cmd *cobra.Command) []string {
	flag := func(name, def string) string {
		if f := cmd.Flag(name); f != nil {
			return f.Value.String()
		}
		return def
	}
	data := flag("data-dir", ".restorebench")
	state := flag("state-dir", "")
	if state == "" {
		state = filepath.Join(data, "state")
	}
	return []string{filepath.Join(data, "broker"), filepath.Join(data, "fills"), state}
}

// checkOutsideData refuses an output path inside the broker's log, the
// fill manifests or the state directory: a file there would be taken for
// (or replace) the broker's data, a manifest or a store's state.
func checkOutsideData(cmd *cobra.Command, flag, path string) error {
	names := []string{"the embedded broker's log", "the fill manifests", "the state directory"}
	for i, p := range dataPaths(cmd) {
		if statedir.Inside(path, p) {
			return fmt.Errorf("%s %s: lies in %s (%s); choose a path outside it", flag, path, names[i], p)
		}
	}
	return nil
}

// checkReplace refuses an output file that exists unless force: compare's
// and calibration's --out replace a file only when told to (it may be a
// profile, a manifest, anything). What is not a regular file is refused
// even with force.
func checkReplace(flag, path string, force bool) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s %s: not a regular file; refusing to write there", flag, path)
	case !force:
		return fmt.Errorf("%s %s: exists; refusing to overwrite it (pass --force to replace it, or choose another file)", flag, path)
	}
	return nil
}

// reportOut is the --out and --force of a command that prints a report
// (compare, calibration): where it goes, stdout when path is empty, and
// whether it may replace an existing file.
type reportOut struct {
	path  string
	force bool
}

func (o *reportOut) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.path, "out", "", "write the output to this file (atomically) instead of stdout; an existing file is "+
		"replaced only with --force, and never a results file or one in --data-dir's broker log, fill "+
		"manifests or the state dir")
	fl.BoolVar(&o.force, "force", false, "let --out replace an existing file")
}

// check checks --out before anything is read or computed: not a results
// file (checkOutFile), outside the data (checkOutsideData), and replaced
// only with --force (checkReplace).
func (o *reportOut) check(cmd *cobra.Command) error {
	if o.path == "" {
		return nil
	}
	if err := checkOutFile("--out", o.path); err != nil {
		return err
	}
	if err := checkOutsideData(cmd, "--out", o.path); err != nil {
		return err
	}
	return checkReplace("--out", o.path, o.force)
}

// write writes the report b to stdout, or (atomically) to --out, saying so
// on stderr.
func (o *reportOut) write(cmd *cobra.Command, b []byte) error {
	if o.path == "" {
		_, err := cmd.OutOrStdout().Write(b)
		return err
	}
	if err := atomicfile.Write(o.path, b); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", o.path)
	return nil
}

// claimReportDir takes the directory report writes into: not inside the
// data directories, not one another process is writing, and not one
// holding the results of a run other than those reported (that run's
// report.md and report.html would be replaced). inputs are the results
// files reported.
func claimReportDir(cmd *cobra.Command, dir string, inputs []string) (*outDir, error) {
	if err := checkOutsideData(cmd, "--out", dir); err != nil {
		return nil, err
	}
	other := filepath.Join(dir, atomicfile.ResultsName)
	if a, err := os.Stat(other); err == nil {
		own := false
		for _, in := range inputs {
			if b, err := os.Stat(in); err == nil && os.SameFile(a, b) {
				own = true
			}
		}
		if !own {
			return nil, fmt.Errorf("--out %s holds another run's results (%s): its report would be replaced by this one; choose another directory", dir, other)
		}
	}
	return lockOut("--out", dir)
}
