package scenario

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// newEvents folds every live instance's new events into its view and
// returns them, merged in time order, each with its process.
func (f *fleet) newEvents() []procEvent {
	var out []procEvent
	for _, p := range f.liveProcs() {
		if p.processID == "" {
			// Kafka Streams writes it when it constructs the client, which
			// can be just after the driver's hello.
			p.processID = f.host.ProcessID(p.id)
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

// failure returns the first live instance that failed (an exit, or the
// ERROR state in its view as last folded), as an error quoting it.
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

// fold folds every live instance's new events into its view.
func (f *fleet) fold() {
	for _, pe := range f.newEvents() {
		pe.p.note(pe.e)
	}
}

// wait lets d pass, folding events into the views and failing as soon
// as an instance fails.
func (f *fleet) wait(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		f.fold()
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

// poll asks check every interval until it says done. It fails as soon as
// an instance fails (by the views: a check that does not fold leaves the
// ERROR state to the process's exit), and at the deadline with
// timeout(why), why being check's last answer.
func (f *fleet) poll(ctx context.Context, every time.Duration, deadline time.Time, check func() (done bool, why string), timeout func(why string) error) error {
	for {
		done, why := check()
		if done {
			return nil
		}
		if err := f.failure(ctx); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return timeout(why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

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
	return f.poll(ctx, 200*time.Millisecond, time.Now().Add(timeout), func() (bool, string) {
		done, pending := f.processedTo(input), []string{}
		for p, end := range ends.End {
			if end > ends.Start[p] && done[p] < end-1 {
				pending = append(pending, fmt.Sprintf("%d (%d of %d)", p, done[p]+1, end))
			}
		}
		sort.Strings(pending)
		return len(pending) == 0, strings.Join(pending, ", ")
	}, func(pending string) error {
		return fmt.Errorf("the input's last records were not processed within %s: partitions %s", timeout, pending)
	})
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
