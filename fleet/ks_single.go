package fleet

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/ksdriver"
)

// KSInstance is a Kafka Streams instance's process as the scenarios
// drive it, wherever it runs (a Process is one): its events arrive on
// this machine's clock.
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
	_ Process = (*localProcess)(nil)
	_ Process = (*agentProcess)(nil)
)

// KSSingle is the one instance of a cold restore or warm restart, a fleet
// of one on the run's Host (NewHost): on this machine its state.dir is the
// request's (a layout of its own: the user's --state-dir may hold other
// stores, so a store left in place is refused, never wiped), on agents it
// is placed once (the first, or by the profile's placement; its role is
// active) and stays there for every restart, its state directory on the
// agent's disk.
type KSSingle struct {
	env  *Env
	req  Request
	host Host
	n    int // processes started
}

// NewKSSingle is the single instance of req on application appID.
func NewKSSingle(env *Env, req Request, appID string) (*KSSingle, error) {
	h, err := NewHost(env, req, req.StateDir, appID, Layout{Single: true})
	if err != nil {
		return nil, err
	}
	return &KSSingle{env: env, req: req, host: h}, nil
}

// Fresh makes sure the instance starts with no state (Host.Fresh).
func (s *KSSingle) Fresh() error { return s.host.Fresh(KSInstanceID) }

// Start launches a process of the instance with props (state.dir is the
// host's), asking for need bytes free in its state directory.
func (s *KSSingle) Start(ctx context.Context, props map[string]string, need int64) (Process, error) {
	c := s.req.Case
	p, err := s.host.Start(ctx,
		ProcessSpec{ID: KSInstanceID, N: s.n, Properties: props, JVMFlags: JVMFlags(c), KafkaStreamsVersion: c.KafkaStreamsVersion, NeedBytes: need})
	if err != nil {
		return nil, fmt.Errorf("case %s #%d: %w", c.Name, s.req.Repeat, err)
	}
	s.n++
	if where := s.host.Where(KSInstanceID); where != "" {
		s.env.Logf("restore: case %s #%d: instance %s runs on agent %s", c.Name, s.req.Repeat, KSInstanceID, where)
	}
	return p, nil
}

// OnAgent says whether the instance runs on an agent.
func (s *KSSingle) OnAgent() bool { return s.host.Where(KSInstanceID) != "" }

// DiskBytes is what the instance's stores take on disk now.
func (s *KSSingle) DiskBytes(ctx context.Context) int64 {
	n, err := s.host.DiskBytes(ctx, KSInstanceID)
	if err != nil {
		s.env.Logf("restore: warning: the disk usage of instance %s: %v", KSInstanceID, err)
	}
	return n
}

// SegmentsDir is the directory window-store segments are counted in: the
// local application directory, "" on an agent (not counted there).
func (s *KSSingle) SegmentsDir() string { return s.host.LocalAppDir(KSInstanceID) }

// Placement names the agent the instance ran on, nil locally.
func (s *KSSingle) Placement() map[string]string {
	if where := s.host.Where(KSInstanceID); where != "" {
		return map[string]string{KSInstanceID: where}
	}
	return nil
}

// Remove deletes the instance's state and directories, unless the
// request keeps its state.
func (s *KSSingle) Remove() {
	if !s.req.KeepState {
		s.host.Remove()
	}
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
