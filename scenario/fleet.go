package scenario

import (
	"context"
	"errors"
	"maps"
	"sort"
	"sync"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// proc is one process of the fleet.
type proc struct {
	id   string
	inst Process
	// n is its number among its instance's processes, from 0.
	n    int
	view ksdriver.View
	seen int // events folded into view
	// processID is Kafka Streams' process id, read from the state dir.
	processID string
	newcomer  bool
	// stopNs is when the fleet asked it to stop or killed it (0: neither).
	stopNs int64
	// lags is the lag of each store partition in its last lags event.
	lags map[int32]int64
}

// note folds an event into the process's view and its last lags, and
// reports whether anything a readiness condition reads changed.
func (p *proc) note(e ksdriver.Event) bool {
	if l, ok := e.(*ksdriver.Lags); ok {
		p.lags = map[int32]int64{}
		for _, sl := range l.Lags {
			p.lags[sl.Partition] = sl.Lag
		}
		return true
	}
	return p.view.Add(e)
}

// fleet is a Kafka Streams application of several instances with one
// application.id, one process each at a time, on a Host: started,
// watched, restarted, killed and stopped together. Every process it ever
// started is kept for the timeline. An instance's state directory
// outlives its processes (the host keeps it); scale-out, rolling restarts,
// standbys and failover all run on one.
type fleet struct {
	env  *Env
	t    Target
	req  Request
	host Host
	// base are every instance's properties but state.dir.
	base  map[string]string
	procs []*proc
	live  map[string]*proc
	mu    sync.Mutex
	// ks, when set, is the record's Kafka Streams description: the first
	// instance to start fills in what its JVM said about itself.
	ks *runs.KafkaStreamsRun
}

// newFleet is a fleet of application t.AppID on host whose instances run
// with props.
func newFleet(env *Env, t Target, req Request, props map[string]string, host Host) *fleet {
	return &fleet{env: env, t: t, req: req, host: host, base: props, live: map[string]*proc{}}
}

// start starts a process of instance id with the fleet's properties plus
// extra and waits for its hello.
func (f *fleet) start(ctx context.Context, id string, extra map[string]string) (*proc, error) {
	props := maps.Clone(f.base)
	maps.Copy(props, extra)
	f.mu.Lock()
	n := 0
	for _, p := range f.procs {
		if p.id == id {
			n++
		}
	}
	f.mu.Unlock()
	inst, err := f.host.Start(ctx,
		ProcessSpec{ID: id, N: n, Properties: props, JVMFlags: JVMFlags(f.req.Case), KafkaStreamsVersion: f.req.Case.KafkaStreamsVersion})
	if err != nil {
		return nil, err
	}
	p := &proc{id: id, inst: inst, n: n, processID: f.host.ProcessID(id)}
	f.mu.Lock()
	if f.ks != nil && f.ks.Version == "" && inst.Hello() != nil {
		recordHello(f.ks, inst.Hello())
	}
	if pl, ok := f.host.(placer); ok && f.ks != nil {
		if f.ks.Placement == nil {
			f.ks.Placement = map[string]string{}
		}
		f.ks.Placement[id] = pl.AgentOf(id)
	}
	f.procs = append(f.procs, p)
	f.live[id] = p
	f.mu.Unlock()
	return p, nil
}

// startAll starts the instances at once, each with extra(id), and
// returns when every one said hello (or the first failed).
func (f *fleet) startAll(ctx context.Context, ids []string, extra func(id string) map[string]string) ([]*proc, error) {
	out := make([]*proc, len(ids))
	errs := make([]error, len(ids))
	if pl, ok := f.host.(placer); ok {
		for _, id := range ids {
			pl.AgentOf(id) // placed in order, not as the starts race
		}
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = f.start(ctx, id, extra(id))
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// stop stops one instance (leaving the group or not, as its properties
// say) and returns how long Kafka Streams' close took.
func (f *fleet) stop(ctx context.Context, p *proc) (float64, error) {
	p.stopNs = ksdriver.NowMonoNs()
	err := p.inst.Stop(ctx)
	f.mu.Lock()
	delete(f.live, p.id)
	f.mu.Unlock()
	return closeSeconds(p.inst.Events()), err
}

// closeSeconds is how long Kafka Streams' close took by a process's
// stopped event (0 without one).
func closeSeconds(events []ksdriver.Event) float64 {
	var secs float64
	for _, e := range events {
		if s, ok := e.(*ksdriver.Stopped); ok {
			secs = s.Seconds
		}
	}
	return secs
}

// kill ends one instance's process at once (no close, no leaving the
// group: a crash) and returns when.
func (f *fleet) kill(p *proc) int64 {
	p.stopNs = p.inst.KillNow()
	f.mu.Lock()
	delete(f.live, p.id)
	f.mu.Unlock()
	return p.stopNs
}

// stopAll stops every live instance at once; unclean stops are logged.
func (f *fleet) stopAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, p := range f.liveProcs() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.stop(ctx, p); err != nil {
				f.env.Logf("scenario: warning: instance %s did not stop cleanly: %v", p.id, err)
			}
		}()
	}
	wg.Wait()
}

// killAll kills every process still running: the deferred guarantee that
// no JVM outlives the scenario.
func (f *fleet) killAll() {
	f.mu.Lock()
	procs := append([]*proc(nil), f.procs...)
	f.mu.Unlock()
	for _, p := range procs {
		p.inst.Kill()
	}
}

// wipeState deletes instance id's state directory (it must not run).
func (f *fleet) wipeState(id string) error { return f.host.WipeState(id) }

// liveProc is the running instance id, or nil.
func (f *fleet) liveProc(id string) *proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live[id]
}

// liveProcs are the running instances, by id.
func (f *fleet) liveProcs() []*proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*proc, 0, len(f.live))
	for _, p := range f.live {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// instanceEvents returns every process's events for the timeline.
func (f *fleet) instanceEvents() []instanceEvents {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]instanceEvents, 0, len(f.procs))
	for _, p := range f.procs {
		out = append(out, instanceEvents{id: p.id, events: p.inst.Events()})
	}
	return out
}

// processes describes every process for the record, times from origin.
func (f *fleet) processes(origin int64) []runs.ScaleInstance {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]runs.ScaleInstance, 0, len(f.procs))
	for _, p := range f.procs {
		si := runs.ScaleInstance{ID: p.id, ProcessID: p.processID, New: p.newcomer, Started: secsFrom(origin, p.inst.LaunchMonoNs()), Stopped: -1}
		if p.stopNs != 0 {
			si.Stopped = secsFrom(origin, p.stopNs)
		}
		if pl, ok := f.host.(placer); ok {
			si.Agent = pl.AgentOf(p.id)
		}
		out = append(out, si)
	}
	return out
}

func secsFrom(origin, ns int64) float64 { return float64(ns-origin) / 1e9 }

// removeStateUnlessKept deletes the instances' directories unless the
// request keeps state.
func (f *fleet) removeStateUnlessKept() {
	if !f.req.KeepState {
		f.host.Remove()
	}
}
