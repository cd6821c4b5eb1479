package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/ksdriver"
)

// KSInstance is the one Kafka Streams instance of a cold restore or a
// warm restart: a JVM on this machine (*ksdriver.Instance), or one under
// an agent (remoteInstance), whose events arrive on this machine's clock.
type KSInstance interface {
	Driven
	ID() string
	// PID is the JVM's pid on this machine, 0 when it runs on an agent:
	// /proc is read only for a local one.
	PID() int
	// WaitFor is the first event from index from on that matches, and its
	// index.
	WaitFor(ctx context.Context, from int, match func(ksdriver.Event) bool) (ksdriver.Event, int, error)
}

// The processes restorebench drives, locally and on agents, are what the
// scenarios take them for: a mismatch fails the build, not a run.
var (
	_ KSInstance = (*ksdriver.Instance)(nil)
	_ KSInstance = RemoteInstance{}
	_ Driven     = (*agent.Process)(nil)
)

// RemoteInstance is the instance on an agent.
type RemoteInstance struct{ *agent.Process }

// PID is 0: the JVM's pid is the agent host's.
func (RemoteInstance) PID() int { return 0 }

// KSSingle is where the one instance of a cold restore or warm restart
// runs and keeps its state: this machine, under the request's state.dir,
// or, with agents (env.Agents), the agent the coordinator places it on
// (the first, or by the profile's placement; its role is active), where it
// stays for every restart, its state directory on the agent's disk.
type KSSingle struct {
	env     *Env
	req     Request
	appID   string
	instDir string     // the local instance's own directory
	Host    *AgentHost // nil: this machine
	N       int        // processes started, on an agent
}

func NewKSSingle(env *Env, req Request, appID string) *KSSingle {
	s := &KSSingle{env: env, req: req, appID: appID, instDir: filepath.Join(req.StateDir, "kstreams-"+KSInstanceID)}
	if env.Agents != nil {
		s.Host = NewAgentHost(env.Agents, appID, req.Case)
	}
	return s
}

// appDir is the local instance's application directory under state.dir.
func (s *KSSingle) appDir() string { return filepath.Join(s.req.StateDir, s.appID) }

// Fresh makes sure the instance starts with no state: locally an
// application directory left in place is an error (the user's stores, or a
// kept run's); on an agent its state directory, which an earlier repeat
// of this run left there, is wiped.
func (s *KSSingle) Fresh() error {
	if s.Host == nil {
		return (&engine.Instance{StateDir: s.req.StateDir, AppID: s.appID}).CheckStateDirEmpty()
	}
	return s.Host.WipeState(KSInstanceID)
}

// Start launches a process of the instance with props (state.dir is the
// host's), asking an agent for need bytes free in its state directory.
func (s *KSSingle) Start(ctx context.Context, props map[string]string, need int64) (KSInstance, error) {
	c := s.req.Case
	if s.Host == nil {
		secrets, err := jvmSecrets(s.env)
		if err != nil {
			return nil, err
		}
		inst, err := ksdriver.Start(ctx,
			ksdriver.Options{ID: KSInstanceID, Dir: s.instDir, Properties: props, Secrets: secrets, JVMFlags: JVMFlags(c), KafkaStreamsVersion: c.KafkaStreamsVersion})
		if err != nil {
			return nil, fmt.Errorf("case %s #%d: %w", c.Name, s.req.Repeat, err)
		}
		return inst, nil
	}
	p, err := s.Host.startRemote(ctx,
		ProcessSpec{ID: KSInstanceID, N: s.N, Properties: props, JVMFlags: JVMFlags(c), KafkaStreamsVersion: c.KafkaStreamsVersion},
		need)
	if err != nil {
		return nil, fmt.Errorf("case %s #%d: %w", c.Name, s.req.Repeat, err)
	}
	s.N++
	s.env.Logf("restore: case %s #%d: instance %s runs on agent %s", c.Name, s.req.Repeat, KSInstanceID, p.Agent())
	return RemoteInstance{p}, nil
}

// DiskBytes is what the instance's stores take on disk now.
func (s *KSSingle) DiskBytes(ctx context.Context) int64 {
	if s.Host == nil {
		return DirBytes(s.appDir())
	}
	n, err := s.Host.co.DiskUsage(ctx, s.Host.AgentOf(KSInstanceID), s.appID, KSInstanceID)
	if err != nil {
		s.env.Logf("restore: warning: the disk usage of instance %s on its agent: %v", KSInstanceID, err)
	}
	return n
}

// SegmentsDir is the directory window-store segments are counted in: the
// local application directory, "" on an agent (not counted there).
func (s *KSSingle) SegmentsDir() string {
	if s.Host != nil {
		return ""
	}
	return s.appDir()
}

// Placement names the agent the instance ran on, nil locally.
func (s *KSSingle) Placement() map[string]string {
	if s.Host == nil {
		return nil
	}
	return map[string]string{KSInstanceID: s.Host.AgentOf(KSInstanceID)}
}

// Remove deletes the instance's state and directories, unless the
// request keeps its state.
func (s *KSSingle) Remove() {
	if s.req.KeepState {
		return
	}
	if s.Host != nil {
		s.Host.Remove()
		return
	}
	os.RemoveAll(s.appDir())
	os.RemoveAll(s.instDir)
}

// StateNeed is the least a restore of t needs free in its state
// directory: the live bytes of the state it ends with (its stores hold at
// least those); 0 for a topic restorebench did not fill.
func StateNeed(t Target) int64 {
	var n int64
	for _, p := range t.Expected {
		n += p.LiveBytes
	}
	return n
}

// DirBytes is the total size of the regular files under dir.
func DirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
