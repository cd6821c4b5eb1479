package fleet

import (
	"context"
	"errors"
	"maps"
	"sort"
	"sync"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// Proc is one process of the fleet.
type Proc struct {
	ID   string
	Inst Process
	// N is its number among its instance's processes, from 0.
	N    int
	View ksdriver.View
	seen int // events folded into view
	// ProcessID is Kafka Streams' process id, read from the state dir.
	ProcessID string
	Newcomer  bool
	// StopNs is when the fleet asked it to stop or killed it (0: neither).
	StopNs int64
	// Lags is the lag of each store partition in its last lags event.
	Lags map[int32]int64
}

// note folds an event into the process's view and its last lags, and
// reports whether anything a readiness condition reads changed.
func (p *Proc) note(e ksdriver.Event) bool {
	if l, ok := e.(*ksdriver.Lags); ok {
		p.Lags = map[int32]int64{}
		for _, sl := range l.Lags {
			p.Lags[sl.Partition] = sl.Lag
		}
		return true
	}
	return p.View.Add(e)
}

// Fleet is a Kafka Streams application of several instances with one
// application.id, one process each at a time, on a Host: started,
// watched, restarted, killed and stopped together. Every process it ever
// started is kept for the timeline. An instance's state directory
// outlives its processes (the host keeps it); scale-out, rolling restarts,
// standbys and failover all run on one.
type Fleet struct {
	env  *Env
	t    Target
	req  Request
	Host Host
	// Base are every instance's properties but state.dir.
	Base  map[string]string
	Procs []*Proc
	live  map[string]*Proc
	mu    sync.Mutex
	// KS, when set, is the record's Kafka Streams description: the first
	// instance to start fills in what its JVM said about itself.
	KS *runs.KafkaStreamsRun
}

// NewFleet is a fleet of application t.AppID on host whose instances run
// with props.
func NewFleet(env *Env, t Target, req Request, props map[string]string, host Host) *Fleet {
	return &Fleet{env: env, t: t, req: req, Host: host, Base: props, live: map[string]*Proc{}}
}

// Start starts a process of instance id with the fleet's properties plus
// extra and waits for its hello.
func (f *Fleet) Start(ctx context.Context, id string, extra map[string]string) (*Proc, error) {
	props := maps.Clone(f.Base)
	maps.Copy(props, extra)
	f.mu.Lock()
	n := 0
	for _, p := range f.Procs {
		if p.ID == id {
			n++
		}
	}
	f.mu.Unlock()
	inst, err := f.Host.Start(ctx,
		ProcessSpec{ID: id, N: n, Properties: props, JVMFlags: JVMFlags(f.req.Case), KafkaStreamsVersion: f.req.Case.KafkaStreamsVersion})
	if err != nil {
		return nil, err
	}
	p := &Proc{ID: id, Inst: inst, N: n, ProcessID: f.Host.ProcessID(id)}
	f.mu.Lock()
	if f.KS != nil && f.KS.Version == "" && inst.Hello() != nil {
		RecordHello(f.KS, inst.Hello())
	}
	if where := f.Host.Where(id); where != "" && f.KS != nil {
		if f.KS.Placement == nil {
			f.KS.Placement = map[string]string{}
		}
		f.KS.Placement[id] = where
	}
	f.Procs = append(f.Procs, p)
	f.live[id] = p
	f.mu.Unlock()
	return p, nil
}

// StartAll starts the instances at once, each with extra(id), and
// returns when every one said hello (or the first failed).
func (f *Fleet) StartAll(ctx context.Context, ids []string, extra func(id string) map[string]string) ([]*Proc, error) {
	out := make([]*Proc, len(ids))
	errs := make([]error, len(ids))
	for _, id := range ids {
		f.Host.Where(id) // placed in order, not as the starts race
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = f.Start(ctx, id, extra(id))
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// Stop stops one instance (leaving the group or not, as its properties
// say) and returns how long Kafka Streams' close took.
func (f *Fleet) Stop(ctx context.Context, p *Proc) (float64, error) {
	p.StopNs = ksdriver.NowMonoNs()
	err := p.Inst.Stop(ctx)
	f.mu.Lock()
	delete(f.live, p.ID)
	f.mu.Unlock()
	return CloseSeconds(p.Inst.Events()), err
}

// CloseSeconds is how long Kafka Streams' close took by a process's
// stopped event (0 without one).
func CloseSeconds(events []ksdriver.Event) float64 {
	var secs float64
	for _, e := range events {
		if s, ok := e.(*ksdriver.Stopped); ok {
			secs = s.Seconds
		}
	}
	return secs
}

// Kill ends one instance's process at once (no close, no leaving the
// group: a crash) and returns when.
func (f *Fleet) Kill(p *Proc) int64 {
	p.StopNs = p.Inst.KillNow()
	f.mu.Lock()
	delete(f.live, p.ID)
	f.mu.Unlock()
	return p.StopNs
}

// StopAll stops every live instance at once; unclean stops are logged.
func (f *Fleet) StopAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, p := range f.LiveProcs() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Stop(ctx, p); err != nil {
				f.env.Logf("scenario: warning: instance %s did not stop cleanly: %v", p.ID, err)
			}
		}()
	}
	wg.Wait()
}

// KillAll kills every process still running: the deferred guarantee that
// no JVM outlives the scenario.
func (f *Fleet) KillAll() {
	f.mu.Lock()
	procs := append([]*Proc(nil), f.Procs...)
	f.mu.Unlock()
	for _, p := range procs {
		p.Inst.Kill()
	}
}

// WipeState deletes instance id's state directory (it must not run).
func (f *Fleet) WipeState(id string) error { return f.Host.WipeState(id) }

// LiveProc is the running instance id, or nil.
func (f *Fleet) LiveProc(id string) *Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live[id]
}

// LiveProcs are the running instances, by id.
func (f *Fleet) LiveProcs() []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*Proc, 0, len(f.live))
	for _, p := range f.live {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// InstanceEvents returns every process's events for the timeline.
func (f *Fleet) InstanceEvents() []InstanceEvents {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]InstanceEvents, 0, len(f.Procs))
	for _, p := range f.Procs {
		out = append(out, InstanceEvents{ID: p.ID, Events: p.Inst.Events()})
	}
	return out
}

// Processes describes every process for the record, times from origin.
func (f *Fleet) Processes(origin int64) []runs.ScaleInstance {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]runs.ScaleInstance, 0, len(f.Procs))
	for _, p := range f.Procs {
		si := runs.ScaleInstance{ID: p.ID, ProcessID: p.ProcessID, New: p.Newcomer, Started: SecsFrom(origin, p.Inst.LaunchMonoNs()), Stopped: -1}
		if p.StopNs != 0 {
			si.Stopped = SecsFrom(origin, p.StopNs)
		}
		si.Agent = f.Host.Where(p.ID)
		out = append(out, si)
	}
	return out
}

func SecsFrom(origin, ns int64) float64 { return float64(ns-origin) / 1e9 }

// RemoveStateUnlessKept deletes the instances' directories unless the
// request keeps state.
func (f *Fleet) RemoveStateUnlessKept() {
	if !f.req.KeepState {
		f.Host.Remove()
	}
}
