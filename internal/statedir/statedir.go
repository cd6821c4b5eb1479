package statedir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/restorebench/restorebench/internal/filelock"
)

// Files restorebench keeps in a state directory it owns.
const (
	// MarkerFile says restorebench created the directory, and for what.
	MarkerFile = ".restorebench-state"
	// LockFile is flocked while a process uses the directory.
	LockFile = ".restorebench.lock"
)

// Marker is what MarkerFile holds.
type Marker struct {
	// Kind is "run" (a run's state root, removed when the run ends) or
	// "restore" (the restore command's <state.dir>/<application.id>).
	Kind    string    `json:"kind"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// Dir is a state directory claimed by this process: marked and locked
// until Release.
type Dir struct {
	Path string
	lock *filelock.Lock
}

// ErrInUse is returned when another process holds a state directory.
var ErrInUse = errors.New("in use by another restorebench process")

// Protected are paths a state directory must neither be, lie inside, nor
// contain: the embedded broker's log, the fill manifests, results.
type Protected struct {
	// Paths are directories never to be wiped or written into as state.
	Paths []string
}

// Check refuses dir when it is, lies inside or contains a protected path,
// or holds a results.json (a run's results).
func (p Protected) Check(dir string) error {
	abs, err := absPath(dir)
	if err != nil {
		return err
	}
	for _, q := range p.Paths {
		qa, err := absPath(q)
		if err != nil {
			continue
		}
		switch {
		case abs == qa:
			return fmt.Errorf("%s is %s: refusing to use it as a state directory", dir, q)
		case within(abs, qa):
			return fmt.Errorf("%s lies inside %s: refusing to use it as a state directory", dir, q)
		case within(qa, abs):
			return fmt.Errorf("%s contains %s: refusing to use it as a state directory", dir, q)
		}
	}
	found := ""
	filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "results.json" {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	if found != "" {
		return fmt.Errorf("%s holds run results (%s): refusing to use it as a state directory", dir, found)
	}
	return nil
}

// Claim creates dir if needed, locks it and marks it as restorebench's.
// An existing directory must be empty or already marked by restorebench;
// one that holds anything else is refused, and so is one another process
// holds. It does not empty the directory: see Wipe.
func Claim(dir, kind string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	if _, merr := ReadMarker(dir); merr != nil && hasOtherEntries(ents) {
		return nil, fmt.Errorf("state dir %s holds files restorebench did not create; refusing to use it (choose another --state-dir or --application-id)", dir)
	}
	lock, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	l, err := filelock.TryLockFile(lock)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("state dir %s: %w", dir, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	b, _ := json.Marshal(Marker{Kind: kind, PID: os.Getpid(), Started: time.Now().UTC()})
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), append(b, '\n'), 0o644); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	return &Dir{Path: dir, lock: l}, nil
}

// Empty reports whether the directory holds nothing but restorebench's
// marker and lock.
func (d *Dir) Empty() (bool, error) {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return false, err
	}
	return !hasOtherEntries(ents), nil
}

// Wipe removes everything in the claimed directory but its marker and lock.
func (d *Dir) Wipe() error {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if IsOwnFile(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.Path, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the claimed directory and everything in it, then
// releases it.
func (d *Dir) Remove() error {
	err := os.RemoveAll(d.Path)
	d.Release()
	return err
}

// Release unlocks the directory; it stays marked as restorebench's.
func (d *Dir) Release() {
	d.lock.Unlock()
	d.lock = nil
}

// ReadMarker reads dir's marker; an error when dir has none.
func ReadMarker(dir string) (Marker, error) {
	var m Marker
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, MarkerFile), err)
	}
	return m, nil
}

// Orphan is a marked state directory no process holds: what a killed run
// or restore left behind.
type Orphan struct {
	Path   string
	Marker Marker
	Bytes  int64
}

// Orphans lists the marked, unlocked directories directly under root whose
// marker is of kind.
func Orphans(root, kind string) ([]Orphan, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Orphan
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		m, err := ReadMarker(dir)
		if err != nil || m.Kind != kind || inUse(dir) {
			continue
		}
		out = append(out, Orphan{Path: dir, Marker: m, Bytes: Bytes(dir)})
	}
	return out, nil
}

// inUse reports whether a process holds dir's lock.
func inUse(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	l, err := filelock.TryLockFile(f)
	if err != nil {
		return true
	}
	l.Unlock()
	return false
}

func hasOtherEntries(ents []os.DirEntry) bool {
	for _, e := range ents {
		if !IsOwnFile(e.Name()) {
			return true
		}
	}
	return false
}

// IsOwnFile reports whether name is one of the files restorebench keeps in
// a state directory it owns (its marker and lock), not state.
func IsOwnFile(name string) bool { return name == MarkerFile || name == LockFile }

// Bytes is the total size of the regular files under dir (0 when it does
// not exist): what the stores in it take on disk.
func Bytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// absPath is p absolute with every symlink resolved: those in p itself
// and, for a path that does not exist yet, those in its nearest existing
// parent (a state dir that will be created under a link into the broker's
// log lies inside the log).
func absPath(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir, hops := a, 0; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		// A dangling link: follow it to where it points, which is where
		// a directory made through it would be.
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 && hops < 40 {
			if target, err := os.Readlink(dir); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(dir), target)
				}
				dir, hops = filepath.Clean(target), hops+1
				continue
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return a, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// within reports whether path lies strictly inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Inside reports whether path is dir or lies inside it, with symlinks
// resolved as Check resolves them (a path not made yet lies where its
// nearest existing parent resolves to).
func Inside(path, dir string) bool {
	a, err := absPath(path)
	if err != nil {
		return false
	}
	b, err := absPath(dir)
	if err != nil {
		return false
	}
	return a == b || within(a, b)
}
