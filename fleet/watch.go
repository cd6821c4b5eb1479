package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// newEvents folds every live instance's new events into its view and
// returns them, merged in time order, each with its process.
func (f *Fleet) newEvents() []procEvent {
	var out []procEvent
	for _, p := range f.LiveProcs() {
		if p.ProcessID == "" {
			// Kafka Streams writes it when it constructs the client, which
			// can be just after the driver's hello.
			p.ProcessID = f.Host.ProcessID(p.ID)
		}
		evs := p.Inst.Events()
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
	p *Proc
	e ksdriver.Event
}

// failure returns the first live instance that failed (an exit, or the
// ERROR state in its view as last folded), as an error quoting it.
func (f *Fleet) failure(ctx context.Context) error {
	for _, p := range f.LiveProcs() {
		select {
		case <-p.Inst.Done():
			_, err := p.Inst.Next(ctx, 1<<30)
			return fmt.Errorf("instance %s exited: %w", p.ID, err)
		default:
		}
		if p.View.State == ksdriver.StateError {
			return fmt.Errorf("instance %s reached state ERROR: %w", p.ID, waitExit(ctx, p.Inst))
		}
	}
	return nil
}

// readiness describes the group as the live views show it.
type readiness struct {
	// Ready: every live instance RUNNING, every task active on exactly one
	// live instance (its tasks snapshot), no restore in progress.
	Ready bool
	// Balanced: ready, each instance's active count within one of the
	// mean, and no standbys beyond num.standby.replicas (no warmups left).
	Balanced bool
	Why      string
}

// ReadinessNow judges the group from the live views.
func (f *Fleet) ReadinessNow(partitions, standbys int) readiness {
	live := f.LiveProcs()
	if len(live) == 0 {
		return readiness{Why: "no instance runs"}
	}
	owners := make([]int, partitions)
	var standbyCount int
	var problems []string
	for _, p := range live {
		if p.View.State != ksdriver.StateRunning {
			problems = append(problems, fmt.Sprintf("%s is %s", p.ID, OrNone(p.View.State)))
		}
		if len(p.View.Restoring) > 0 {
			problems = append(problems, fmt.Sprintf("%s restores %d", p.ID, len(p.View.Restoring)))
		}
		for task := range p.View.Active {
			if part, ok := ksdriver.TaskPartition(task); ok && int(part) < partitions {
				owners[part]++
			}
		}
		standbyCount += len(p.View.Standby)
	}
	for part, n := range owners {
		if n != 1 {
			problems = append(problems, fmt.Sprintf("task %s active on %d instances", ksdriver.TaskName(int32(part)), n))
		}
	}
	r := readiness{Ready: len(problems) == 0}
	lo, hi := partitions/len(live), (partitions+len(live)-1)/len(live)
	for _, p := range live {
		if n := len(p.View.Active); n < lo || n > hi {
			problems = append(problems, fmt.Sprintf("%s runs %d tasks (balanced: %d-%d)", p.ID, n, lo, hi))
		}
	}
	if want := min(standbys, len(live)-1) * partitions; standbyCount > want {
		problems = append(problems, fmt.Sprintf("%d standbys, %d beyond num.standby.replicas (warmups)", standbyCount, standbyCount-want))
	}
	r.Balanced = len(problems) == 0
	r.Why = strings.Join(problems, "; ")
	return r
}

// WatchUntil folds the instances' events until want holds for settle
// without a break, and returns the monotonic time it began to hold. It
// fails when an instance fails, and at the deadline with why it was not met.
func (f *Fleet) WatchUntil(ctx context.Context, deadline time.Time, settle time.Duration, want func() (bool, string)) (int64, error) {
	var since int64
	var why string
	err := poll.UntilTime(ctx, 100*time.Millisecond, deadline, "", func(ctx context.Context) (bool, error) {
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
			return false, err
		}
		return since != 0 && time.Duration(ksdriver.NowMonoNs()-since) >= settle, nil
	})
	if errors.Is(err, poll.ErrTimeout) {
		if ok, w := want(); !ok {
			why = w
		}
		return 0, fmt.Errorf("not reached within the timeout: %s", OrNone(why))
	}
	if err != nil {
		return 0, err
	}
	return since, nil
}

// Fold folds every live instance's new events into its view.
func (f *Fleet) Fold() {
	for _, pe := range f.newEvents() {
		pe.p.note(pe.e)
	}
}

// Wait lets d pass, folding events into the views and failing as soon
// as an instance fails.
func (f *Fleet) Wait(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		f.Fold()
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

// Poll asks check every interval until it says done. It fails as soon as
// an instance fails (by the views: a check that does not fold leaves the
// ERROR state to the process's exit), and at the deadline with
// timeout(why), why being check's last answer.
func (f *Fleet) Poll(ctx context.Context, every time.Duration, deadline time.Time, check func() (done bool, why string), timeout func(why string) error) error {
	var why string
	err := poll.UntilTime(ctx, every, deadline, "", func(ctx context.Context) (bool, error) {
		done, w := check()
		why = w
		if done {
			return true, nil
		}
		return false, f.failure(ctx)
	})
	if errors.Is(err, poll.ErrTimeout) {
		return timeout(why)
	}
	return err
}

// processedTo is, per input partition, the highest offset any instance
// reported processed.
func (f *Fleet) processedTo(input string) map[int32]int64 {
	out := map[int32]int64{}
	for _, ie := range f.InstanceEvents() {
		for _, e := range ie.Events {
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

// AwaitProcessed waits until every input partition's records up to its end
// offset now were processed (the load has stopped).
func (f *Fleet) AwaitProcessed(ctx context.Context, input string, timeout time.Duration) error {
	ends, err := f.env.Offsets(ctx, input)
	if err != nil {
		return err
	}
	return f.Poll(ctx, 200*time.Millisecond, time.Now().Add(timeout), func() (bool, string) {
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

// VerifyStores digests every live instance's active stores and checks
// them, into rec, against what the changelog must hold now by the
// request's Changer.
func (f *Fleet) VerifyStores(ctx context.Context, rec *runs.Restore) error {
	expected, err := f.req.Changer.Expected()
	if err != nil {
		return err
	}
	actual, err := f.digestAll(ctx, len(expected))
	if err != nil {
		return err
	}
	t := f.t
	t.Expected = expected
	_, err = VerifyInto(rec, t, actual)
	return err
}

// digestRebalanceWait bounds how long digestAll waits out a rebalance it
// meets: a group may rebalance again after its last restart or kill (the
// streams protocol's follow-up assignments among them), and a digest then
// finds a stream thread not RUNNING or a partition active on two
// instances. Past it the error stands.
const digestRebalanceWait = 30 * time.Second

// errDigestMidRebalance marks a digest taken while the group rebalanced.
var errDigestMidRebalance = errors.New("the group was rebalancing at the digest")

// digestAll asks every live instance for the digest of its active stores
// and merges them: each partition must come from exactly one instance.
// A digest met by a rebalance (a thread not RUNNING, a partition active
// twice, or fewer than partitions active anywhere, as between the streams
// protocol's follow-up assignments) is taken again, every half second,
// for up to digestRebalanceWait; past it, what it found is verified.
func (f *Fleet) digestAll(ctx context.Context, partitions int) ([]loadgen.PartitionState, error) {
	deadline := time.Now().Add(digestRebalanceWait)
	for {
		out, err := f.digestOnce(ctx)
		if err == nil && len(out) < partitions && time.Now().Before(deadline) {
			err = fmt.Errorf("%d of %d partitions active at the digest (%w)", len(out), partitions, errDigestMidRebalance)
		}
		if err == nil || !errors.Is(err, errDigestMidRebalance) || time.Now().After(deadline) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// digestOnce is one round of digestAll; errDigestMidRebalance wraps an
// error a rebalance explains.
func (f *Fleet) digestOnce(ctx context.Context) ([]loadgen.PartitionState, error) {
	var out []loadgen.PartitionState
	seen := map[int32]string{}
	for _, p := range f.LiveProcs() {
		d, err := DigestStores(ctx, p.Inst, f.t.StoreName)
		if err != nil {
			if strings.Contains(err.Error(), "not RUNNING") {
				// InvalidStateStoreException: "… because the stream thread is PARTITIONS_REVOKED, not RUNNING"
				return nil, fmt.Errorf("instance %s: %w (%w)", p.ID, err, errDigestMidRebalance)
			}
			return nil, fmt.Errorf("instance %s: %w", p.ID, err)
		}
		for _, st := range d.States() {
			if other, dup := seen[st.Partition]; dup {
				return nil, fmt.Errorf("partition %d is active on both %s and %s at the digest (%w)", st.Partition, other, p.ID, errDigestMidRebalance)
			}
			seen[st.Partition] = p.ID
			out = append(out, st)
		}
	}
	return out, nil
}

// StandbysCaughtUp reports whether every live instance's standbys are
// within acceptable lag by its last lags event, and there are as many as
// num.standby.replicas asks for.
func (f *Fleet) StandbysCaughtUp(partitions, standbys int, acceptable int64) (bool, string) {
	live := f.LiveProcs()
	want, have := min(standbys, len(live)-1)*partitions, 0
	for _, p := range live {
		for task := range p.View.Standby {
			have++
			part, _ := ksdriver.TaskPartition(task)
			if lag, ok := p.Lags[part]; !ok || lag > acceptable {
				return false, fmt.Sprintf("standby %s on %s not caught up (lag %v)", task, p.ID, LagText(lag, ok))
			}
		}
	}
	if have < want {
		return false, fmt.Sprintf("%d of %d standbys assigned", have, want)
	}
	return true, ""
}

func LagText(lag int64, ok bool) string {
	if !ok {
		return "unknown"
	}
	return strconv.FormatInt(lag, 10)
}
