package agent

import (
	"context"
	"io/fs"
	"path/filepath"
)

func init() {
	opDiskUsage.register()
}

// opDiskUsage reads the bytes under an instance's state directory.
var opDiskUsage = op[none, DiskUsed]{name: OpDiskUsage, scope: scopeInstance,
	run: func(a *Agent, m *Message, _ *none, _ *agentProc) (*DiskUsed, error) { return a.diskUsage(m) }}

// DiskUsed is a disk_usage reply's result.
type DiskUsed struct {
	Bytes int64 `json:"bytes"`
}

// diskUsage is the bytes of the files under an instance's state directory
// (0 when it has none).
func (a *Agent) diskUsage(m *Message) (*DiskUsed, error) {
	var n int64
	err := filepath.WalkDir(a.stateDir(m.Run, m.Fleet, m.Instance), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile, or never made: not counted
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return &DiskUsed{Bytes: n}, err
}

// DiskUsage is the bytes under an instance's state directory on agent.
func (c *Coordinator) DiskUsage(ctx context.Context, agent, fleet, instance string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	r, err := opDiskUsage.call(ctx, c, agent, &Message{Fleet: fleet, Instance: instance}, none{})
	if err != nil {
		return 0, err
	}
	return r.Bytes, nil
}
