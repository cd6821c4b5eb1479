package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// fleetDriverProperties are the driver settings of scale-out and rolling
// instances: the task, processed-record, lag and process pollers the
// timelines are built from.
var fleetDriverProperties = map[string]string{
	ksdriver.PropTasksIntervalMs:     "100",
	ksdriver.PropProcessedIntervalMs: "100",
	ksdriver.PropLagsIntervalMs:      "1000",
	ksdriver.PropProcessIntervalMs:   "1000",
}

// Kafka Streams property names the fleet sets or reads.
const (
	propGroupProtocol       = "group.protocol"
	propStandbys            = "num.standby.replicas"
	propMaxWarmups          = "max.warmup.replicas"
	propAcceptableLag       = "acceptable.recovery.lag"
	propProbingInterval     = "probing.rebalance.interval.ms"
	propSessionTimeout      = "session.timeout.ms"
	propGroupInstanceID     = "group.instance.id"
	propCloseLeaveGroup     = ksdriver.PropCloseLeaveGroup
	defaultSessionTimeoutMs = 45_000
)

// proc is one instance process of the fleet.
type proc struct {
	id       string
	inst     *ksdriver.Instance
	stateDir string
	view     ksdriver.View
	seen     int // events folded into view
	// processID is Kafka Streams' process id, read from the state dir.
	processID string
	newcomer  bool
	// stopNs is when the fleet asked it to stop (0: it was not).
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

// fleet is a Kafka Streams application of several instance processes,
// one JVM each, with one application.id: started, watched, restarted and
// stopped together. Every process it ever started is kept for the
// timeline. Instances have a state directory of their own that outlives
// their processes (<root>/<id>-state) and a directory per process for its
// config and log (<root>/<id>-<n>).
type fleet struct {
	env   *Env
	t     Target
	req   Request
	root  string
	base  map[string]string
	procs []*proc
	live  map[string]*proc
	mu    sync.Mutex
	// ks, when set, is the record's Kafka Streams description: the first
	// instance to start fills in what its JVM said about itself.
	ks *runs.KafkaStreamsRun
}

// newFleet prepares a fleet for the request: the case's Kafka Streams
// properties, the application's, and the driver's pollers.
func newFleet(env *Env, t Target, req Request, input string) (*fleet, error) {
	props, err := instanceProperties(env, t, req, input)
	if err != nil {
		return nil, err
	}
	maps.Copy(props, fleetDriverProperties)
	delete(props, "state.dir") // each instance has its own
	root, err := filepath.Abs(req.StateDir)
	if err != nil {
		return nil, err
	}
	return &fleet{env: env, t: t, req: req, root: root, base: props, live: map[string]*proc{}}, nil
}

// openFleet does what every fleet scenario does first: checks the target
// and the broker, creates the kv topology's input topic and builds the
// fleet. It returns the changelog's offsets, also when a later step failed
// (their zero value when reading them did).
func openFleet(ctx context.Context, env *Env, t Target, req Request) (f *fleet, input string, offsets cluster.TopicOffsets, err error) {
	if err = checkKafkaStreamsTarget(env, t); err != nil {
		return nil, "", offsets, err
	}
	if offsets, err = env.Offsets(ctx, t.Topic); err != nil {
		return nil, "", offsets, err
	}
	if err = checkBrokerForKafkaStreams(ctx, env.Cluster, t.Topic); err != nil {
		return nil, "", offsets, err
	}
	if input, err = ensureInputTopic(ctx, env, t, int32(len(offsets.End))); err != nil {
		return nil, "", offsets, err
	}
	f, err = newFleet(env, t, req, input)
	return f, input, offsets, err
}

// stateDirOf is instance id's state.dir, kept across its restarts.
func (f *fleet) stateDirOf(id string) string { return filepath.Join(f.root, id+"-state") }

// start launches instance id with the fleet's properties plus extra and
// waits for its hello.
func (f *fleet) start(ctx context.Context, id string, extra map[string]string) (*proc, error) {
	props := maps.Clone(f.base)
	maps.Copy(props, extra)
	props["state.dir"] = f.stateDirOf(id)
	f.mu.Lock()
	n := 0
	for _, p := range f.procs {
		if p.id == id {
			n++
		}
	}
	f.mu.Unlock()
	dir := filepath.Join(f.root, fmt.Sprintf("%s-%d", id, n))
	inst, err := ksdriver.Start(ctx, ksdriver.Options{ID: id, Dir: dir, Properties: props, JVMFlags: JVMFlags(f.req.Case)})
	if err != nil {
		return nil, err
	}
	p := &proc{id: id, inst: inst, stateDir: props["state.dir"]}
	p.processID, _ = ksdriver.ReadProcessID(p.stateDir, f.t.AppID)
	f.mu.Lock()
	if f.ks != nil && f.ks.Version == "" && inst.Hello() != nil {
		recordHello(f.ks, inst.Hello())
	}
	f.procs = append(f.procs, p)
	f.live[id] = p
	f.mu.Unlock()
	return p, nil
}

// startAll launches the instances at once, each with extra(id), and
// returns when every one said hello (or the first failed).
func (f *fleet) startAll(ctx context.Context, ids []string, extra func(id string) map[string]string) ([]*proc, error) {
	out := make([]*proc, len(ids))
	errs := make([]error, len(ids))
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
	var secs float64
	for _, e := range p.inst.Events() {
		if s, ok := e.(*ksdriver.Stopped); ok {
			secs = s.Seconds
		}
	}
	return secs, err
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

// newEvents folds every live instance's new events into its view and
// returns them, merged in time order, each with its process.
func (f *fleet) newEvents() []procEvent {
	var out []procEvent
	for _, p := range f.liveProcs() {
		if p.processID == "" {
			// Kafka Streams writes it when it constructs the client, which
			// can be just after the driver's hello.
			p.processID, _ = ksdriver.ReadProcessID(p.stateDir, f.t.AppID)
		}
		evs := p.inst.Events()
		for _, e := range evs[p.seen:] {
			out = append(out, procEvent{p, e})
		}
		p.seen = len(evs)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].e.Head().MonoNs < out[j].e.Head().MonoNs })
	return out
}

// procEvent is one event of one process.
type procEvent struct {
	p *proc
	e ksdriver.Event
}

// failure returns the first live instance that failed (an error event,
// the ERROR state, or an exit), as an error quoting it.
func (f *fleet) failure(ctx context.Context) error {
	for _, p := range f.liveProcs() {
		select {
		case <-p.inst.Done():
			_, err := p.inst.Next(ctx, 1<<30)
			return fmt.Errorf("instance %s exited: %w", p.id, err)
		default:
		}
		if p.view.State == ksdriver.StateError {
			return fmt.Errorf("instance %s reached state ERROR: %w", p.id, waitExit(ctx, p.inst))
		}
	}
	return nil
}

// readiness describes the group as the live views show it.
type readiness struct {
	// ready: every live instance RUNNING, every task active on exactly one
	// live instance (its tasks snapshot), no restore in progress.
	ready bool
	// balanced: ready, each instance's active count within one of the
	// mean, and no standbys beyond num.standby.replicas (no warmups left).
	balanced bool
	why      string
}

// readinessNow judges the group from the live views.
func (f *fleet) readinessNow(partitions, standbys int) readiness {
	live := f.liveProcs()
	if len(live) == 0 {
		return readiness{why: "no instance runs"}
	}
	owners := make([]int, partitions)
	var standbyCount int
	var problems []string
	for _, p := range live {
		if p.view.State != ksdriver.StateRunning {
			problems = append(problems, fmt.Sprintf("%s is %s", p.id, orNone(p.view.State)))
		}
		if len(p.view.Restoring) > 0 {
			problems = append(problems, fmt.Sprintf("%s restores %d", p.id, len(p.view.Restoring)))
		}
		for task := range p.view.Active {
			if part, ok := ksdriver.TaskPartition(task); ok && int(part) < partitions {
				owners[part]++
			}
		}
		standbyCount += len(p.view.Standby)
	}
	for part, n := range owners {
		if n != 1 {
			problems = append(problems, fmt.Sprintf("task %s active on %d instances", ksdriver.TaskName(int32(part)), n))
		}
	}
	r := readiness{ready: len(problems) == 0}
	lo, hi := partitions/len(live), (partitions+len(live)-1)/len(live)
	for _, p := range live {
		if n := len(p.view.Active); n < lo || n > hi {
			problems = append(problems, fmt.Sprintf("%s runs %d tasks (balanced: %d-%d)", p.id, n, lo, hi))
		}
	}
	if want := min(standbys, len(live)-1) * partitions; standbyCount > want {
		problems = append(problems, fmt.Sprintf("%d standbys, %d beyond num.standby.replicas (warmups)", standbyCount, standbyCount-want))
	}
	r.balanced = len(problems) == 0
	r.why = strings.Join(problems, "; ")
	return r
}

// watchUntil folds the instances' events until want holds for settle
// without a break, and returns the monotonic time it began to hold. It
// fails when an instance fails, and at the deadline with why it was not met.
func (f *fleet) watchUntil(ctx context.Context, deadline time.Time, settle time.Duration, want func() (bool, string)) (int64, error) {
	var since int64
	var why string
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, pe := range f.newEvents() {
			if !pe.p.note(pe.e) {
				continue
			}
			ok, w := want()
			why = w
			switch {
			case ok && since == 0:
				since = pe.e.Head().MonoNs
			case !ok:
				since = 0
			}
		}
		if err := f.failure(ctx); err != nil {
			return 0, err
		}
		if since != 0 && time.Duration(ksdriver.NowMonoNs()-since) >= settle {
			return since, nil
		}
		if time.Now().After(deadline) {
			if ok, w := want(); !ok {
				why = w
			}
			return 0, fmt.Errorf("not reached within the timeout: %s", orNone(why))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-tick.C:
		}
	}
}

// wait lets d pass, folding events into the views and failing as soon
// as an instance fails.
func (f *fleet) wait(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		for _, pe := range f.newEvents() {
			pe.p.note(pe.e)
		}
		if err := f.failure(ctx); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(left, 100*time.Millisecond)):
		}
	}
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
		out = append(out, si)
	}
	return out
}

func secsFrom(origin, ns int64) float64 { return float64(ns-origin) / 1e9 }

// processedTo is, per input partition, the highest offset any instance
// reported processed.
func (f *fleet) processedTo(input string) map[int32]int64 {
	out := map[int32]int64{}
	for _, ie := range f.instanceEvents() {
		for _, e := range ie.events {
			if pr, ok := e.(*ksdriver.Processed); ok {
				for _, pp := range pr.Partitions {
					if pp.Topic == input {
						out[pp.Partition] = max(out[pp.Partition], pp.LastOffset)
					}
				}
			}
		}
	}
	return out
}

// awaitProcessed waits until every input partition's records up to its end
// offset now were processed (the load has stopped).
func (f *fleet) awaitProcessed(ctx context.Context, input string, timeout time.Duration) error {
	ends, err := f.env.Offsets(ctx, input)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		done, pending := f.processedTo(input), []string{}
		for p, end := range ends.End {
			if end > ends.Start[p] && done[p] < end-1 {
				pending = append(pending, fmt.Sprintf("%d (%d of %d)", p, done[p]+1, end))
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			sort.Strings(pending)
			return fmt.Errorf("the input's last records were not processed within %s: partitions %s", timeout, strings.Join(pending, ", "))
		}
		if err := f.failure(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// verifyStores digests every live instance's active stores and checks
// them, into rec, against what the changelog must hold now by the
// request's Changer.
func (f *fleet) verifyStores(ctx context.Context, rec *runs.Restore) error {
	expected, err := f.req.Changer.Expected()
	if err != nil {
		return err
	}
	actual, err := f.digestAll(ctx)
	if err != nil {
		return err
	}
	t := f.t
	t.Expected = expected
	_, err = verifyInto(rec, t, actual)
	return err
}

// digestAll asks every live instance for the digest of its active stores
// and merges them: each partition must come from exactly one instance.
func (f *fleet) digestAll(ctx context.Context) ([]loadgen.PartitionState, error) {
	var out []loadgen.PartitionState
	seen := map[int32]string{}
	for _, p := range f.liveProcs() {
		d, err := digestStores(ctx, p.inst, f.t.StoreName)
		if err != nil {
			return nil, fmt.Errorf("instance %s: %w", p.id, err)
		}
		for _, st := range d.States() {
			if other, dup := seen[st.Partition]; dup {
				return nil, fmt.Errorf("partition %d is active on both %s and %s at the digest", st.Partition, other, p.id)
			}
			seen[st.Partition] = p.id
			out = append(out, st)
		}
	}
	return out, nil
}

// standbysCaughtUp reports whether every live instance's standbys are
// within acceptable lag by its last lags event, and there are as many as
// num.standby.replicas asks for.
func (f *fleet) standbysCaughtUp(partitions, standbys int, acceptable int64) (bool, string) {
	live := f.liveProcs()
	want, have := min(standbys, len(live)-1)*partitions, 0
	for _, p := range live {
		for task := range p.view.Standby {
			have++
			part, _ := ksdriver.TaskPartition(task)
			if lag, ok := p.lags[part]; !ok || lag > acceptable {
				return false, fmt.Sprintf("standby %s on %s not caught up (lag %v)", task, p.id, lagText(lag, ok))
			}
		}
	}
	if have < want {
		return false, fmt.Sprintf("%d of %d standbys assigned", have, want)
	}
	return true, ""
}

func lagText(lag int64, ok bool) string {
	if !ok {
		return "unknown"
	}
	return strconv.FormatInt(lag, 10)
}

// admin runs fn with an admin client of the env's cluster.
func (f *fleet) admin(fn func(*kadm.Client) error) error {
	cl, err := cluster.NewClient(f.env.Cluster)
	if err != nil {
		return err
	}
	defer cl.Close()
	return fn(kadm.NewClient(cl))
}

// resetGroup makes the application start clean: no committed offsets or
// members left from an earlier run (a streams group could not be joined
// by classic members and vice versa), and an input topic with no records
// anyone has yet to process (a later run must not re-apply them).
// Static members left behind are removed; a group other members still use
// is an error after the session timeout.
func (f *fleet) resetGroup(ctx context.Context, input string, staticIDs []string) error {
	return f.admin(func(adm *kadm.Client) error {
		if err := truncateTopic(ctx, adm, input); err != nil {
			return err
		}
		if len(staticIDs) > 0 {
			adm.LeaveGroup(ctx, kadm.LeaveGroup(f.t.AppID).InstanceIDs(staticIDs...).Reason("restorebench: end of run"))
		}
		deadline := time.Now().Add(defaultSessionTimeoutMs*time.Millisecond + 15*time.Second)
		for {
			resp, err := adm.DeleteGroup(ctx, f.t.AppID)
			if err == nil {
				err = resp.Err
			}
			if err == nil || errors.Is(err, kerr.GroupIDNotFound) {
				return nil
			}
			// A group with members waits for them to leave or time out; a
			// coordinator still loading (a broker just started) is retried.
			if !errors.Is(err, kerr.NonEmptyGroup) && !kerr.IsRetriable(err) || time.Now().After(deadline) {
				return fmt.Errorf("deleting consumer group %s before the run: %w (is another instance of application %s running?)", f.t.AppID, err, f.t.AppID)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	})
}

// resetAfterRun resets the group once a run is over (resetGroup); a
// failure only warns, in the log of the scenario named scenario.
func (f *fleet) resetAfterRun(ctx context.Context, scenario, input string, staticIDs []string) {
	if err := f.resetGroup(ctx, input, staticIDs); err != nil {
		f.env.Logf("%s: warning: cleaning up after the run: %v", scenario, err)
	}
}

// truncateTopic deletes every record of topic (DeleteRecords to the end).
func truncateTopic(ctx context.Context, adm *kadm.Client, topic string) error {
	offs, err := cluster.Offsets(ctx, adm, topic)
	if err != nil {
		return err
	}
	var os kadm.Offsets
	for p, end := range offs.End {
		if end > offs.Start[p] {
			os.AddOffset(topic, p, end, -1)
		}
	}
	if len(os) == 0 {
		return nil
	}
	resp, err := adm.DeleteRecords(ctx, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("deleting the records of %s: %w", topic, err)
	}
	return nil
}

// staticInstanceIDs are the consumer group.instance.ids Kafka Streams
// derives from an instance's group.instance.id: one per stream thread,
// "<id>-<thread>" from 1.
func staticInstanceIDs(groupInstanceID string, threads int) []string {
	out := make([]string, threads)
	for i := range out {
		out[i] = groupInstanceID + "-" + strconv.Itoa(i+1)
	}
	return out
}

// removeStateUnlessKept deletes the fleet's directories unless the
// request keeps state.
func (f *fleet) removeStateUnlessKept() {
	if f.req.KeepState {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range f.procs {
		if !seen[p.id] {
			seen[p.id] = true
			os.RemoveAll(p.stateDir)
		}
		os.RemoveAll(p.inst.Dir())
	}
}
