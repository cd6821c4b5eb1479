package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// RollingKafkaStreams is the rolling-restart scenario on the kafka-streams
// engine: Instances instances of the application (kv topology) restore the
// filled changelog and settle, balanced and running (with their standbys
// caught up when num.standby.replicas > 0); a write load starts on the
// input topic; then each instance in turn is stopped, stays down for Down,
// and starts again on its kept (persistent) or wiped (ephemeral) state
// directory, and the next restart waits until the application is ready
// again: the restarted instance RUNNING and every task active and running
// somewhere, held for the settle time (standbys caught up too, when there
// are standbys). With static membership every instance has
// group.instance.id <application.id>-<instance> and its stop does not
// leave the group, so a restart within session.timeout.ms gets its tasks
// back without a rebalance.
//
// Downtime is measured from the tasks' processing: a gap longer than the
// threshold in a partition's processed records while the load writes to
// it. Each restart is charged the gaps that began between its stop and
// the next restart's stop. At the end the load stops, its last records
// are processed, and every store is verified. One record for the whole
// sequence (runs.RollingRecord), with a row per restart. With a query
// load each row also records what the lookups of the restarted instance's
// keys met (rolling_queries.go).
//
// The store is the fill's kind: key-value, timestamped-key-value or
// window (config says which kinds run it). A window store restarted on a
// kept state directory reopens its segments with no stream time (Kafka
// Streams does not persist it) and serves expired windows too until it
// puts a new record, so config asks a window case for a write load, whose
// records reach every partition after each restart; the verification
// then holds the window store to the fill plus the load as the other
// kinds.
type RollingKafkaStreams struct{}

func init() { Register(config.ScenarioRolling, config.EngineKafkaStreams, RollingKafkaStreams{}) }

// rolling is one rolling restart under way.
type rolling struct {
	ctx   context.Context
	env   *fleet.Env
	t     fleet.Target
	req   fleet.Request
	st    fleet.StreamsSettings
	f     *fleet.Fleet
	input string
	rec   *runs.Restore
	rr    *runs.RollingRecord
	tasks int
	// stops and readies are each restart's stop and ready times (mono ns).
	stops, starts, readies []int64
	// reads is the query load's (nil without one; rolling_queries.go).
	reads *rollingReads
}

// Run runs the rolling restart and returns its one record.
func (RollingKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	rec := newRecord(t, req, req.Step(runs.StepRolling))
	fail := func(err error) ([]runs.Restore, error) {
		err = fmt.Errorf("case %s #%d: %w", req.Case.Name, req.Repeat, err)
		rec.Error = err.Error()
		return []runs.Restore{rec}, err
	}
	if req.Changer == nil {
		return fail(fleet.ErrNoChanger)
	}
	st, err := fleet.SettingsOf(req.Case)
	if err != nil {
		return fail(err)
	}
	rs := req.Case.Rolling
	r := &rolling{ctx: ctx, env: env, t: t, req: req, st: st, rec: &rec}
	r.rr = &runs.RollingRecord{Protocol: st.Protocol, Instances: rs.Instances, Persistent: rs.Persistent, StaticMembership: rs.StaticMembership,
		Standbys: st.Standbys, DownSeconds: rs.Down.D().Seconds(), SessionTimeoutSeconds: st.Session.Seconds(), GapThresholdSeconds: rs.GapThreshold.D().Seconds()}
	rec.Rolling = r.rr
	if err := r.prepare(); err != nil {
		return fail(err)
	}
	defer r.f.KillAll()
	if err := r.run(); err != nil {
		return fail(err) // the instances' directories stay, with their logs
	}
	r.f.KillAll()
	r.f.RemoveStateUnlessKept()
	return []runs.Restore{rec}, nil
}

// groupInstanceID is instance id's group.instance.id under static membership.
func (r *rolling) groupInstanceID(id string) string { return r.t.AppID + "-" + id }

// staticIDs are every instance's consumer group.instance.ids (empty
// without static membership), to remove static members left in the group.
func (r *rolling) staticIDs() []string {
	if !r.rr.StaticMembership {
		return nil
	}
	var out []string
	for _, id := range ids(0, r.rr.Instances) {
		out = append(out, fleet.StaticInstanceIDs(r.groupInstanceID(id), r.st.Threads)...)
	}
	return out
}

// extra are instance id's own properties: static membership's.
func (r *rolling) extra(id string) map[string]string {
	if !r.rr.StaticMembership {
		return nil
	}
	return map[string]string{fleet.PropGroupInstanceID: r.groupInstanceID(id), fleet.PropCloseLeaveGroup: "false"}
}

// prepare checks the target and broker, creates the input topic, clears
// the group and builds the fleet.
func (r *rolling) prepare() error {
	var offsets offsetsAt
	var err error
	r.f, r.input, offsets, err = fleet.OpenFleet(r.ctx, r.env, r.t, r.req)
	r.tasks, r.rec.Partitions = len(offsets.End), len(offsets.End)
	if err != nil {
		return err
	}
	r.rec.KafkaStreams = &runs.KafkaStreamsRun{Properties: r.f.Base, Instances: r.rr.Instances, BytesFrom: "changelog"}
	r.f.KS = r.rec.KafkaStreams
	queryload.WithAPI(r.f, r.req)
	if r.rr.StaticMembership && r.rr.DownSeconds >= r.rr.SessionTimeoutSeconds {
		r.rr.Notes = append(r.rr.Notes, fmt.Sprintf("down %.0fs is not within session.timeout.ms (%.0fs): the broker drops "+
			"each static member while it is down, and it rejoins with a rebalance",
			r.rr.DownSeconds, r.rr.SessionTimeoutSeconds))
	}
	return r.f.ResetGroup(r.ctx, r.input, r.staticIDs())
}

// run is the scenario after preparation.
func (r *rolling) run() error {
	rs := r.req.Case.Rolling
	names := ids(0, rs.Instances)
	setup := time.Now()
	if err := r.setup(names); err != nil {
		return fmt.Errorf("setup (%d instances): %w", rs.Instances, err)
	}
	r.rr.SetupSeconds = time.Since(setup).Seconds()
	spec := r.req.Changer.Spec()
	ld := fleet.StartLoad(r.ctx, r.req.Changer, "rolling", r.input, rs.Rate)
	defer ld.Finish()
	q, err := queryload.StartFleetQueries(r.req, r.f, spec, ld)
	if err != nil {
		return err
	}
	r.reads = &rollingReads{q: q}
	r.reads.begin()
	runErr := r.f.Wait(r.ctx, rs.Settle.D())
	for _, id := range names {
		if runErr != nil {
			break
		}
		runErr = r.restart(id)
	}
	r.reads.finish(r, r.lastReady(len(names)), runErr != nil)
	if _, err := ld.Finish(); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("write load: %w", err))
	}
	r.rr.Load = ld.Record()
	verifyErr := r.verify(runErr)
	r.f.StopAll(r.ctx)
	r.record(ld)
	r.f.ResetAfterRun(r.ctx, "rolling", r.input, r.staticIDs())
	r.logResult()
	r.logReads()
	return errors.Join(runErr, verifyErr, queryload.WrongReads(r.rec, r.req))
}

// setup brings the instances up restored, balanced and running (classic:
// first with acceptable.recovery.lag unbounded, as the scale-out does),
// with standbys caught up.
func (r *rolling) setup(names []string) error {
	timeout := r.req.Case.Rolling.Timeout.D()
	if r.st.Protocol == warmup.ProtocolClassic {
		seed := func(id string) map[string]string {
			m := r.extra(id)
			if m == nil {
				m = map[string]string{}
			}
			m[fleet.PropAcceptableLag] = fleet.UnboundedLag
			return m
		}
		if err := r.startSettled(names, seed, timeout); err != nil {
			return fmt.Errorf("first start (acceptable.recovery.lag unbounded): %w", err)
		}
		r.f.StopAll(r.ctx)
	}
	return r.startSettled(names, r.extra, timeout)
}

// startSettled starts instances and waits until balanced with standbys
// caught up.
func (r *rolling) startSettled(names []string, extra func(string) map[string]string, timeout time.Duration) error {
	if _, err := r.f.StartAll(r.ctx, names, extra); err != nil {
		return err
	}
	_, err := r.f.WatchUntil(r.ctx, time.Now().Add(timeout), time.Second, func() (bool, string) {
		rd := r.f.ReadinessNow(r.tasks, r.st.Standbys)
		if !rd.Balanced {
			return false, rd.Why
		}
		return r.f.StandbysCaughtUp(r.tasks, r.st.Standbys, r.st.Acceptable)
	})
	return err
}

// restart stops instance id, keeps it down, starts it again on its kept
// or wiped state, and waits until the application is ready.
func (r *rolling) restart(id string) error {
	rs := r.req.Case.Rolling
	p := r.f.LiveProc(id)
	if p == nil {
		return fmt.Errorf("instance %s is not running", id)
	}
	r.env.Logf("rolling: case %s #%d: restarting %s (down %s, %s state, static membership %v)", r.req.Case.Name, r.req.Repeat, id, rs.Down,
		map[bool]string{true: "persistent", false: "ephemeral"}[rs.Persistent], rs.StaticMembership)
	r.reads.stopping(p)
	_, err := r.f.Stop(r.ctx, p)
	r.stops = append(r.stops, p.StopNs)
	if err != nil {
		r.env.Logf("rolling: warning: %s did not stop cleanly: %v", id, err)
	}
	if !rs.Persistent {
		if err := r.f.WipeState(id); err != nil {
			return err
		}
	}
	if err := r.f.Wait(r.ctx, rs.Down.D()); err != nil {
		return err
	}
	r.starts = append(r.starts, ksdriver.NowMonoNs())
	np, err := r.f.Start(r.ctx, id, r.extra(id))
	if err != nil {
		return err
	}
	ready, err := r.f.WatchUntil(r.ctx, time.Now().Add(rs.Timeout.D()), rs.Settle.D(), func() (bool, string) { return r.ready(np) })
	if err != nil {
		return fmt.Errorf("after restarting %s: %w", id, err)
	}
	r.readies = append(r.readies, ready)
	return r.reads.ready(r)
}

// lastReady is the last restart's ready (mono ns) when all n were ready,
// else 0.
func (r *rolling) lastReady(n int) int64 {
	if len(r.readies) < n || n == 0 {
		return 0
	}
	return r.readies[n-1]
}

// ready is the rolling restart's readiness after restarting p.
func (r *rolling) ready(p *fleet.Proc) (bool, string) {
	if p.View.State != ksdriver.StateRunning {
		return false, fmt.Sprintf("%s is %s", p.ID, fleet.OrNone(p.View.State))
	}
	if rd := r.f.ReadinessNow(r.tasks, r.st.Standbys); !rd.Ready {
		return false, rd.Why
	}
	if r.st.Standbys > 0 {
		return r.f.StandbysCaughtUp(r.tasks, r.st.Standbys, r.st.Acceptable)
	}
	return true, ""
}

// verify waits for the last records to be processed (so the changelog
// holds what the manifest says was appended, also after a failure) and
// checks every store.
func (r *rolling) verify(runErr error) error {
	if err := r.f.AwaitProcessed(r.ctx, r.input, drainTimeout); err != nil || runErr != nil {
		return err // after a failure the stores are not a measurement
	}
	return r.f.VerifyStores(r.ctx, r.rec)
}

// record builds the timeline and the per-restart rows.
func (r *rolling) record(ld *fleet.Load) {
	rs, rr := r.req.Case.Rolling, r.rr
	if len(r.stops) == 0 {
		return
	}
	origin := r.stops[0]
	spec := fleet.TimelineSpec{Origin: origin, End: ld.EndNs, Store: r.t.StoreName, Input: r.input, Partitions: r.tasks, Standbys: r.st.Standbys,
		Acceptable: r.st.Acceptable, Gap: rs.GapThreshold.D()}
	if rs.Rate > 0 {
		// From a little before the first stop: processing may end a moment
		// before the stop command (see restartRow).
		spec.GapFrom, spec.GapTo, spec.Produced = origin-2*spec.Gap.Nanoseconds(), ld.EndNs, fleet.InputProduced(r.ctx, r.env, r.input)
	}
	insts := r.f.InstanceEvents()
	tl := fleet.BuildTimeline(spec, insts)
	rr.TaskTimelines, rr.Processes = tl.Tasks, r.f.Processes(origin)
	for _, ns := range tl.Rebalances {
		rr.RebalanceTimes = append(rr.RebalanceTimes, fleet.SecsFrom(origin, ns))
	}
	for i := range r.stops {
		row := r.restartRow(i, spec, tl, insts)
		rr.Restarts = append(rr.Restarts, row)
		rr.DowntimeSeconds += row.DowntimeSeconds
		rr.TaskDowntimeSeconds += row.TaskDowntimeSeconds
		rr.Rebalances += row.Rebalances
	}
	r.rec.Records = tl.Restored
}

// restartRow charges restart i with what happened from its stop to the
// next restart's stop (or the end): the gaps in processing that began then,
// rebalances, restores.
func (r *rolling) restartRow(i int, spec fleet.TimelineSpec, tl fleet.Timeline, insts []fleet.InstanceEvents) runs.Restart {
	from, to := r.stops[i], spec.End
	if i+1 < len(r.stops) {
		to = r.stops[i+1]
	}
	row := runs.Restart{Instance: fmt.Sprintf("i%d", i), Stop: spec.Secs(from), Start: -1, Ready: -1}
	if i < len(r.starts) {
		row.Start = spec.Secs(r.starts[i])
	}
	var readyNs int64
	if i < len(r.readies) {
		readyNs = r.readies[i]
		row.Ready = spec.Secs(readyNs)
	}
	row.Reads = r.reads.row(i, readyNs)
	for _, p := range r.f.Procs {
		if p.ID == row.Instance && p.StopNs == from {
			row.CloseSeconds = fleet.CloseSeconds(p.Inst.Events())
		}
	}
	// A gap starts at the last record processed before it, which can be a
	// moment before the stop command (processing ends within the driver's
	// 100 ms reporting): the window reaches back by the gap threshold.
	slack := spec.Gap.Seconds()
	lo, hi := spec.Secs(from)-slack, spec.Secs(to)-slack
	for _, t := range tl.Tasks {
		var down float64
		for _, g := range t.Gaps {
			if g.Start >= lo && g.Start < hi {
				down += g.End - g.Start
			}
		}
		if down > 0 {
			row.TasksDown++
			row.TaskDowntimeSeconds += down
			row.DowntimeSeconds = max(row.DowntimeSeconds, down)
		}
	}
	for _, ns := range tl.Rebalances {
		if ns >= from && ns < to {
			row.Rebalances++
		}
	}
	sub := spec
	sub.Origin, sub.End = from, to
	row.RestoredRecords, _ = fleet.BatchRecords(sub, insts)
	return row
}

// logResult prints the sequence's headline.
func (r *rolling) logResult() {
	rr := r.rr
	r.env.Logf("rolling: case %s #%d (%s, %s state, static %v, standbys %d): %d restarts, downtime %.1fs in all "+
		"(longest task per restart summed), %.1f task-seconds, %d rebalances",
		r.req.Case.Name, r.req.Repeat, rr.Protocol, map[bool]string{true: "persistent", false: "ephemeral"}[rr.Persistent], rr.StaticMembership, rr.Standbys,
		len(rr.Restarts), rr.DowntimeSeconds, rr.TaskDowntimeSeconds, rr.Rebalances)
}
