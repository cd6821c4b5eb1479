package failover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
)

// A failover case with a queries block, or of a store kind beyond
// key-value (failover_kinds.go), runs the kv topology over the profile's
// filled changelog instead of the ledger, so that lookups and the stores
// can be judged against the fill: the two instances run under the
// profile's application.id (restoring the changelog
// <app>-<store>-changelog on their first start), the write load continues
// the fill's generator at failover.rate records a second into the kv
// topology's input topic <app>-<store>-input (Kafka Streams puts each
// record into the store and so appends it to the changelog), and
// failover.partitions and failover.accounts give way to the fill's. With
// a queries block each kill runs the case's query load from the kill
// until the survivor took over and for queries.after more, sent to the
// survivor's API layer (the killed one's is gone, as a load balancer's
// health check would find), and records it in the kill's
// restores[].queries, with the killed instance's keys' outage
// (runs.ReadOutage) and how far behind the changelog's end standby
// answers were (runs.StandbyLag). At the end the load stops, the survivor
// processes its last records, and its stores are digested and verified
// against the fill plus what the load wrote, as the other kv fleets'.

// foKV is the kv failover's own state.
type foKV struct {
	t     fleet.Target
	load  *fleet.Load
	check *loadgen.ReadChecker
	// fillRecords is the generator index the load's records start at.
	fillRecords int64
	// acceptable is acceptable.recovery.lag (the case's, or Kafka
	// Streams' 10000): how close to the changelog's end a standby must be
	// before a kill, as Kafka Streams counts one caught up.
	acceptable int64
}

// newKVFailoverRun is a failover run of the kv topology over t's fill.
func newKVFailoverRun(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (*failoverRun, error) {
	if err := fleet.ResetKafkaStreamsFill(ctx, env, t, req); err != nil {
		return nil, err
	}
	spec := req.Changer.Spec()
	var check *loadgen.ReadChecker
	if req.Case.Queries != nil { // a window store's fill has no read checker: lookups read key-value stores
		var err error
		if check, err = queryload.NewReadChecker(&spec); err != nil {
			return nil, err
		}
	}
	input := fleet.InputTopic(t.AppID, t.StoreName)
	r := &failoverRun{ctx: ctx, env: env, req: req, set: *req.Case.Failover, app: t.AppID,
		input: input, changelog: t.Topic, kv: &foKV{t: t, check: check, fillRecords: spec.Records}}
	r.set.Partitions = int(spec.Partitions)
	st, err := fleet.SettingsOf(req.Case)
	if err != nil {
		return nil, err
	}
	r.kv.acceptable = st.Acceptable
	r.rng = newKillRng(r.set.Seed, req.Repeat)
	props, err := kvFailoverProperties(env, t, req, input)
	if err != nil {
		return nil, err
	}
	r.setGuarantee(props)
	host, err := fleet.NewHost(env, req, req.StateDir, t.AppID, fleet.Layout{Nest: "failover-"})
	if err != nil {
		return nil, err
	}
	r.f = fleet.NewFleet(env, t, req, props, host)
	r.ks = runs.KafkaStreamsRun{Properties: props, Instances: 2, BytesFrom: "changelog"}
	r.f.KS = &r.ks
	return r, nil
}

// kvFailoverProperties are a kv failover instance's properties but
// state.dir: the kv topology's (fleet.InstanceProperties), the failover's
// session defaults and standby count, its pollers, and the API layer.
func kvFailoverProperties(env *fleet.Env, t fleet.Target, req fleet.Request, input string) (map[string]string, error) {
	props, err := fleet.InstanceProperties(env, t, req, input)
	if err != nil {
		return nil, err
	}
	if err := fleet.AddKindProperties(props, req); err != nil { // a window store's
		return nil, err
	}
	delete(props, "state.dir") // each instance has its own
	for k, v := range failoverStreamsDefaults {
		if _, set := req.Case.Streams[k]; !set {
			props[k] = v
		}
	}
	standbys, err := failoverStandbys(req)
	if err != nil {
		return nil, err
	}
	props["num.standby.replicas"] = standbys
	for k, v := range failoverDriverProperties {
		if k != ksdriver.PropTopology {
			props[k] = v
		}
	}
	queryload.SetAPIProps(props, req.Case.Queries)
	queryload.SetRouteProps(props, req)
	props[ksdriver.PropLagsIntervalMs] = "500" // for standbys caught up before a kill
	return props, nil
}

// prepareKV checks the broker and makes the input topic hold nothing to
// process and the group start clean.
func (r *failoverRun) prepareKV() error {
	if err := fleet.CheckBrokerForKafkaStreams(r.ctx, r.env.Cluster, r.changelog); err != nil {
		return err
	}
	if _, err := fleet.EnsureInputTopic(r.ctx, r.env, r.kv.t, int32(r.set.Partitions)); err != nil {
		return err
	}
	r.claimed = true // ensureInputTopic claimed the group and the input topic
	return r.f.ResetGroup(r.ctx, r.input, nil)
}

// awaitCaughtUp waits, in a kv failover with a standby, until every
// standby is within acceptable.recovery.lag of its changelog's end by the
// instances' lags (allLocalStorePartitionLags), so that a kill meets a
// standby that follows the writes, not one still restoring (after a
// restart, or at 2000 writes/s one that fell behind): the staleness its
// reads are measured at is that of a caught-up standby.
func (r *failoverRun) awaitCaughtUp() error {
	if r.kv == nil || !r.set.Standby {
		return nil
	}
	return r.poll(time.Now().Add(foStableTimeout), func() (bool, string) {
		return r.f.StandbysCaughtUp(r.set.Partitions, 1, r.kv.acceptable)
	}, func(why string) error {
		return fmt.Errorf("case %s #%d: standbys not caught up within %s: %s", r.req.Case.Name, r.req.Repeat, foStableTimeout, why)
	})
}

// killQueries starts a kill's query load against the survivor (ask: any)
// or each key's owner as the instances' task lists last showed it (ask:
// owner: the victim's keys go to the dead victim until the survivor lists
// them), following the keys of the victim's active tasks once it is
// killed (queryload.KSQueryLoad's Outage) and the standby answers' lag until then;
// nil outside a kv failover with a query load.
func (r *failoverRun) killQueries(survivor *fleet.Proc, victimTasks []string) (*queryload.KSQueryLoad, error) {
	if r.kv == nil || r.req.Case.Queries == nil {
		return nil, nil
	}
	addr := fleet.APIAddrOf(survivor.Inst)
	if addr == "" {
		return nil, fmt.Errorf("case %s #%d: survivor %s has no API layer", r.req.Case.Name, r.req.Repeat, survivor.ID)
	}
	var parts []int32
	for _, task := range victimTasks {
		if p, err := fleet.TaskPartition(task); err == nil {
			parts = append(parts, p)
		}
	}
	owners := queryload.NewFleetTargets(r.f) // ask: owner finds the victim's tasks there until the survivor lists them
	l := queryload.NewLiveQueries(r.req, r.kv.check, queryload.FixedTargets{Addr: addr, Owned: owners.Owner}, r.kv.fillRecords, r.kv.load)
	l.Outage = queryload.NewReadOutage(parts)
	l.Lag = queryload.StartStandbyLag(r.ctx, func(ctx context.Context) (map[int32]int64, error) {
		offs, err := r.env.Offsets(ctx, r.changelog)
		return offs.End, err
	}, r.set.Rate)
	go l.Run()
	return l, nil
}

// finishKillQueries marks the takeover (the survivor RUNNING, by fr) as
// the lookups' restore end, lets them go on for queries.after and
// returns the record.
func (r *failoverRun) finishKillQueries(l *queryload.KSQueryLoad, killNs int64, fr *runs.FailoverRecord) *runs.QueryFigures {
	if l == nil {
		return nil
	}
	if killNs > 0 && fr != nil && fr.RunningSeconds > 0 {
		l.Restored(killNs + int64(fr.RunningSeconds*1e9))
	} else {
		l.Restored(ksdriver.NowMonoNs())
	}
	return l.Finish(r.ctx)
}

// checkKV stops the load, waits until the survivor processed its last
// records, digests its stores and verifies them against the fill and the
// load; every record carries the verdict, and a wrong read fails too.
func (r *failoverRun) checkKV(survivor *fleet.Proc) error {
	written, err := r.kv.load.Finish()
	if err != nil {
		return fmt.Errorf("case %s #%d: write load: %w", r.req.Case.Name, r.req.Repeat, err)
	}
	if err := r.awaitDrained(survivor); err != nil {
		return fmt.Errorf("case %s #%d: %w", r.req.Case.Name, r.req.Repeat, err)
	}
	last := &r.out[len(r.out)-1]
	verr := r.f.VerifyStores(r.ctx, last)
	r.f.StopAll(r.ctx)
	r.env.Logf("failover: case %s #%d: %d records written by the load; stores verified %v", r.req.Case.Name, r.req.Repeat, written, last.Verified)
	var wrong []string
	for i := range r.out {
		rec := &r.out[i]
		rec.Verified, rec.Verification = last.Verified, last.Verification
		if i != len(r.out)-1 && !last.Verified {
			rec.Error = fmt.Sprintf("not verified: the stores after the sequence (kill %d's record has the check)", len(r.out))
		}
		if q := rec.Queries; q != nil && q.Wrong > 0 {
			rec.Verified = false
			rec.Error = fmt.Sprintf("queries: %d of %d answers wrong, e.g. %s", q.Wrong, q.Answered, q.WrongReads[0])
			wrong = append(wrong, fmt.Sprintf("kill %d: %s", i+1, rec.Error))
		}
	}
	if len(wrong) > 0 {
		verr = errors.Join(verr, fmt.Errorf("%w: case %s #%d: %s", fleet.ErrUnverified, r.req.Case.Name, r.req.Repeat, strings.Join(wrong, "; ")))
	}
	return verr
}

// cleanupKV resets the group and the input topic; the fill's changelog
// stays (the next run's Reset refills it).
func (r *failoverRun) cleanupKV() {
	if r.kv.load != nil {
		r.kv.load.Finish()
	}
	if r.req.KeepState {
		return
	}
	if r.claimed { // else the group and topic are not restorebench's to reset
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), foCleanupTimeout+time.Duration(r.sessionMs)*time.Millisecond)
		defer cancel()
		r.f.ResetAfterRun(ctx, "failover", r.input, nil)
	}
	r.f.RemoveStateUnlessKept()
}
