package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/statedir"
	"github.com/restorebench/restorebench/internal/units"
)

// protected are the paths no state directory may be, lie in or contain:
// the embedded broker's log and the fill manifests.
func (e *Env) protected() statedir.Protected {
	return statedir.Protected{Paths: []string{
		filepath.Join(e.Opts.DataDir, "broker"),
		filepath.Join(e.Opts.DataDir, "fills"),
	}}
}

// claimRunState takes a run's state root, <state-dir>/<run-id>, after
// removing the roots of runs that were killed (marked, and held by no
// process) and saying so. The root is a directory this process creates
// (an exclusive mkdir): when runID's is taken (a run of the same profile
// started in the same second, or one whose state was kept), the run id
// becomes runID-2, runID-3, ... It returns the run id it took.
func (e *Env) claimRunState(runID string) (*statedir.Dir, string, error) {
	parent := e.Opts.StateDir
	if err := e.protected().Check(filepath.Join(parent, runID)); err != nil {
		return nil, "", err
	}
	orphans, err := statedir.Orphans(parent, "run")
	if err != nil {
		return nil, "", err
	}
	for _, o := range orphans {
		e.Logf("state: removing %s, %s of stores left by a run that did not finish (pid %d, started %s)",
			o.Path, units.BytesTenths(o.Bytes), o.Marker.PID, o.Marker.Started.Format(time.RFC3339))
		if err := (&statedir.Dir{Path: o.Path}).Remove(); err != nil {
			return nil, "", fmt.Errorf("removing orphaned state %s: %w", o.Path, err)
		}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, "", fmt.Errorf("state dir %s: %w", parent, err)
	}
	for n := 1; n <= 1000; n++ {
		id := runID
		if n > 1 {
			id = fmt.Sprintf("%s-%d", runID, n)
		}
		root := filepath.Join(parent, id)
		if err := os.Mkdir(root, 0o755); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return nil, "", fmt.Errorf("state dir %s: %w", root, err)
		}
		d, err := statedir.Claim(root, "run")
		return d, id, err
	}
	return nil, "", fmt.Errorf("state dir %s: 1000 runs of id %s already", parent, runID)
}

// claimRestoreState takes <state.dir>/<application.id> for the restore
// command. It must be empty, or hold only state restorebench left there,
// which force wipes; a directory restorebench did not create is never
// touched.
func (e *Env) claimRestoreState(appID string, force bool) (*statedir.Dir, error) {
	dir := filepath.Join(e.Opts.StateDir, appID)
	if err := e.protected().Check(dir); err != nil {
		return nil, err
	}
	d, err := statedir.Claim(dir, "restore")
	if err != nil {
		return nil, err
	}
	empty, err := d.Empty()
	if err != nil {
		d.Release()
		return nil, err
	}
	if empty {
		return d, nil
	}
	if !force {
		d.Release()
		return nil, fmt.Errorf("state dir %s holds stores restorebench left there (an earlier restore with --keep-state, "+
			"or one that was killed); pass --force to wipe them", dir)
	}
	e.Logf("restore: --force: wiping the stores restorebench left in %s", dir)
	if err := d.Wipe(); err != nil {
		d.Release()
		return nil, errors.Join(fmt.Errorf("wiping %s", dir), err)
	}
	return d, nil
}

// freeSpace is the space free on the filesystem holding dir (DiskOf's
// statfs f_bavail), -1 when it cannot be read; a variable so that a test
// can give a small disk without filling one.
var freeSpace = func(dir string) int64 {
	d := DiskOf(dir)
	if d == nil || d.SizeBytes == 0 {
		return -1
	}
	return d.FreeBytes
}

// stateFits refuses, before any restore of t into stateDir starts, a
// filesystem with less free space than the state the restore ends with
// (fleet.StateNeed, what an agent checks before it starts an instance): the
// restore would fail midway with RocksDB's "No space left on device". An
// unknown need or free space checks nothing.
func stateFits(t fleet.Target, stateDir string) error {
	need, free := fleet.StateNeed(t), freeSpace(stateDir)
	if need <= 0 || free < 0 || free >= need {
		return nil
	}
	return fmt.Errorf("restore of %s: its live state needs %s (%d bytes) in the state directory %s, whose filesystem has %s (%d bytes) free: "+
		"free space there or give --state-dir on a larger disk", t.Topic, units.BytesTenths(need), need, stateDir, units.BytesTenths(free), free)
}
