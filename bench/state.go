package bench

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/internal/statedir"
)

// protected are the paths no state directory may be, lie in or contain:
// the embedded broker's log and the fill manifests.
func (e *Env) protected() statedir.Protected {
	return statedir.Protected{Paths: []string{
		filepath.Join(e.Opts.DataDir, "broker"),
		filepath.Join(e.Opts.DataDir, "fills"),
	}}
}

// claimRunState takes a run's state root, after removing the roots of runs
// that were killed (marked, and held by no process) and saying so.
func (e *Env) claimRunState(root string) (*statedir.Dir, error) {
	if err := e.protected().Check(root); err != nil {
		return nil, err
	}
	orphans, err := statedir.Orphans(filepath.Dir(root), "run")
	if err != nil {
		return nil, err
	}
	for _, o := range orphans {
		e.Logf("state: removing %s, %s of stores left by a run that did not finish (pid %d, started %s)",
			o.Path, formatBytes(o.Bytes), o.Marker.PID, o.Marker.Started.Format(time.RFC3339))
		if err := (&statedir.Dir{Path: o.Path}).Remove(); err != nil {
			return nil, fmt.Errorf("removing orphaned state %s: %w", o.Path, err)
		}
	}
	return statedir.Claim(root, "run")
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
		return nil, fmt.Errorf("state dir %s holds stores restorebench left there (an earlier restore with --keep-state, or one that was killed); pass --force to wipe them", dir)
	}
	e.Logf("restore: --force: wiping the stores restorebench left in %s", dir)
	if err := d.Wipe(); err != nil {
		d.Release()
		return nil, errors.Join(fmt.Errorf("wiping %s", dir), err)
	}
	return d, nil
}
