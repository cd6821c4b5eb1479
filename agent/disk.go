package agent

import (
	"fmt"
	"syscall"
)

// freeBytes is the space free to an unprivileged user on the file system
// holding dir (statfs f_bavail), or an error when it cannot be read.
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// DiskFullError is an agent's refusal to start an instance whose state
// directory's disk has less free space than the coordinator said the
// instance needs (a start's need_bytes, e.g. the size of the changelog it
// restores): starting it would fail mid-restore with RocksDB's "No space
// left on device", measured as a slow or failed restore instead of the
// harness's fault it is.
type DiskFullError struct {
	Agent, Dir string
	Free, Need int64
	Instance   string
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("not starting instance %s: the state directory %s of agent %s has %d bytes (%.1f MiB) free, "+
		"the instance needs %d (%.1f MiB): free space on the agent's disk or give it another --state-dir",
		e.Instance, e.Dir, e.Agent, e.Free, float64(e.Free)/(1<<20), e.Need, float64(e.Need)/(1<<20))
}

// checkFree refuses a start needing more than the state directory's free
// space; need 0 checks nothing.
func (a *Agent) checkFree(instance string, need int64) error {
	if need <= 0 {
		return nil
	}
	free, err := freeBytes(a.cfg.StateDir)
	if err != nil {
		return fmt.Errorf("agent %s: the free space of its state directory %s: %w", a.cfg.Name, a.cfg.StateDir, err)
	}
	if free < need {
		return &DiskFullError{Agent: a.cfg.Name, Dir: a.cfg.StateDir, Free: free, Need: need, Instance: instance}
	}
	return nil
}
