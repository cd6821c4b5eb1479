package failover

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/ledger"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
	"github.com/restorebench/restorebench/verify"
)

// FailoverKafkaStreams is the failover scenario on the real client: kill an
// instance mid-stream, and verify the balances remain correct on the other
// instance.
//
// Two Kafka Streams instances (two JVM processes, i1 and i2) run the
// ledger topology under one application.id made for the measurement
// (<profile application_id>-failover-<case>-r<repeat>-<stamp>), each with
// its own state.dir; failover.standby gives them num.standby.replicas=1,
// else 0 (then a survivor restores the victim's tasks, or promotes the
// KIP-441 warmups it may hold). The scenario creates the input topic
// <app>-transactions with failover.partitions partitions; Kafka Streams
// creates the store's changelog. Both, and the consumer group, are deleted
// afterwards (kept with --keep-state). The profile's fill is not used: a
// failover profile fills a token changelog only because every profile has
// one.
//
// A producer (package ledger, idempotent) writes deposits and withdrawals
// at failover.rate over failover.accounts accounts, and books every
// acknowledged one. Then, failover.kills times: once the group is stable
// (both RUNNING, every task active once, with standbys every task also a
// standby), wait a random time between failover.run/2 and failover.run
// (seeded), SIGKILL the instance holding the most active tasks, and wait
// until the survivor has processed a record of each of them and is RUNNING
// again. Per task, the gap runs from the last record the killed instance
// processed to the first the survivor processed (known to within the
// driver's processed interval, 20 ms). The killed instance then starts
// again, with its state directory kept (failover.persistent) or wiped,
// except after the last kill.
//
// Failure detection waits for session.timeout.ms, as a killed member never
// leaves its group: the scenario runs the instances with 6000 ms (the
// broker's minimum, group.min.session.timeout.ms; Kafka's default is 45 s)
// and a 2000 ms heartbeat unless the case's streams set them.
//
// After the last kill the producer stops, the survivor (now active for
// every task) processes every acknowledged transaction, and its balances
// (interactive queries over every account) are checked against the sums
// of the acknowledged transactions. Under exactly_once_v2 every account
// must match; under at_least_once duplicates are reported, not verified
// and not a failure; a lost transaction, or any difference under exactly
// once, fails the run (ErrUnverified).
//
// With a query load (the case's queries block), or a store kind beyond
// key-value (timestamped-key-value, window), the instances run the kv
// topology over the profile's fill instead of the ledger, verified against
// the fill plus the write load; with a query load each kill also records
// its lookups (failover_kv.go).
//
// One record per kill; the balance check is on the last, and every record
// of the sequence carries its verdict.
type FailoverKafkaStreams struct{}

func init() {
	scenario.Register(config.ScenarioFailover, config.EngineKafkaStreams, FailoverKafkaStreams{})
}

// failoverStreamsDefaults are the Kafka Streams properties the scenario
// sets unless the case's streams do: a short session so that a killed
// member is noticed in seconds, not 45.
var failoverStreamsDefaults = map[string]string{
	"session.timeout.ms":    "6000",
	"heartbeat.interval.ms": "2000",
}

// failoverDriverProperties are the driver settings of a failover
// instance: the ledger, processed events every 20 ms (the precision of a
// gap), task lists every 50 ms, no lag polling.
var failoverDriverProperties = map[string]string{
	ksdriver.PropTopology:            ksdriver.TopologyLedger,
	ksdriver.PropProcessedIntervalMs: "20",
	ksdriver.PropTasksIntervalMs:     "50",
	ksdriver.PropLagsIntervalMs:      "0",
}

// Bounds of a failover measurement's waits.
const (
	// foPoll is how often waits look at the events.
	foPoll = 25 * time.Millisecond
	// foQuiet is how long the group's states and task lists must stay as
	// they are, and fit, to count as stable.
	foQuiet = time.Second
	// foStableTimeout bounds the wait for a stable group.
	foStableTimeout = 3 * time.Minute
	// foTakeoverTimeout bounds the wait for a survivor to take over.
	foTakeoverTimeout = 3 * time.Minute
	// foDrainTimeout bounds the wait for every acknowledged transaction to
	// be processed after the producer stopped.
	foDrainTimeout = 3 * time.Minute
	// foCleanupTimeout bounds deleting the topics and the group.
	foCleanupTimeout = 30 * time.Second
)

// Run runs one failover sequence and returns one record per kill.
func (FailoverKafkaStreams) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	r, err := newFailoverRun(ctx, env, t, req)
	if err != nil {
		return nil, err
	}
	defer r.cleanup()
	err = r.run()
	if err != nil && !errors.Is(err, fleet.ErrUnverified) {
		r.markUnfinished(err)
	}
	return r.out, err
}

// failoverIDs are the two instances of a failover sequence.
var failoverIDs = [2]string{"i1", "i2"}

// failoverRun is one failover sequence under way.
type failoverRun struct {
	ctx context.Context
	env *fleet.Env
	req fleet.Request
	set config.FailoverSettings

	app, input, changelog string
	guarantee             string
	sessionMs             int64
	rng                   *rand.Rand

	// f runs the two instances, each under <state dir>/failover-<id>: its
	// state.dir and a directory per process (so each keeps its own log).
	f        *fleet.Fleet
	ks       runs.KafkaStreamsRun
	book     *ledger.Book
	prodCl   *kgo.Client
	producer *ledger.Producer
	startNs  int64 // the producer's start
	out      []runs.Restore
	// kv is set when the case has a query load or a store kind beyond
	// key-value: the kv topology over the fill replaces the ledger
	// (failover_kv.go).
	kv *foKV
	// claimed: the application's group and topics were found to be
	// restorebench's (owned.go), so cleanup may reset or delete them;
	// createdInput: this run created the ledger's input topic.
	claimed, createdInput bool
}

// newFailoverRun checks the request and works out names and properties.
func newFailoverRun(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (*failoverRun, error) {
	if req.Case.Failover == nil {
		return nil, fmt.Errorf("case %s: no failover settings", req.Case.Name)
	}
	if fleet.RunsKVFailover(req.Case) {
		return newKVFailoverRun(ctx, env, t, req)
	}
	app := fmt.Sprintf("%s-failover-%s-r%d-%s", t.AppID, req.Case.Name, req.Repeat, strconv.FormatInt(time.Now().UnixMilli(), 36))
	r := &failoverRun{ctx: ctx, env: env, req: req, set: *req.Case.Failover, app: app,
		input: app + "-transactions", changelog: config.ChangelogTopic(app, t.StoreName), book: ledger.NewBook()}
	r.rng = newKillRng(r.set.Seed, req.Repeat)
	props, err := failoverProperties(env, req, app, t.StoreName, r.input)
	if err != nil {
		return nil, err
	}
	r.setGuarantee(props)
	host, err := fleet.NewHost(env, req, req.StateDir, app, fleet.Layout{Nest: "failover-"})
	if err != nil {
		return nil, err
	}
	r.f = fleet.NewFleet(env, fleet.Target{Topic: r.changelog, AppID: app, StoreName: t.StoreName}, req, props, host)
	r.ks = runs.KafkaStreamsRun{Properties: props, Instances: 2} // no restore bytes: BytesFrom stays empty
	r.f.KS = &r.ks
	return r, nil
}

// newKillRng is a repeat's stream of kill moments.
func newKillRng(seed int64, repeat int) *rand.Rand {
	return rand.New(rand.NewPCG(failoverSeed(seed, repeat), 0x6b696c6c)) // "kill"
}

// setGuarantee notes the instances' processing guarantee and session
// timeout from their properties.
func (r *failoverRun) setGuarantee(props map[string]string) {
	r.guarantee = props["processing.guarantee"]
	if r.guarantee == "" {
		r.guarantee = "at_least_once"
	}
	r.sessionMs, _ = strconv.ParseInt(props["session.timeout.ms"], 10, 64)
}

// failoverSeed is a repeat's seed: distinct per repeat, fixed per seed.
func failoverSeed(seed int64, repeat int) uint64 {
	return uint64(seed)*0x9e3779b97f4a7c15 + uint64(repeat)
}

// failoverProperties are the instances' CONFIG.properties but state.dir:
// the case's Kafka Streams properties over the scenario's defaults, the
// standby count from failover.standby, and the driver's ledger settings.
func failoverProperties(env *fleet.Env, req fleet.Request, app, store, input string) (map[string]string, error) {
	props := maps.Clone(failoverStreamsDefaults)
	maps.Copy(props, req.Case.KafkaStreamsProperties())
	standbys, err := failoverStandbys(req)
	if err != nil {
		return nil, err
	}
	props["num.standby.replicas"] = standbys
	props["application.id"] = app
	if err := fleet.AddClientProperties(env, props); err != nil {
		return nil, err
	}
	props[ksdriver.PropStore] = store
	props[ksdriver.PropInputTopic] = input
	maps.Copy(props, failoverDriverProperties)
	return props, nil
}

// failoverStandbys is num.standby.replicas by failover.standby; the
// case's streams may not say otherwise.
func failoverStandbys(req fleet.Request) (string, error) {
	standbys := "0"
	if req.Case.Failover.Standby {
		standbys = "1"
	}
	if v, ok := req.Case.Streams["num.standby.replicas"]; ok && strings.TrimSpace(v) != standbys {
		return "", fmt.Errorf("case %s: streams num.standby.replicas=%s contradicts failover.standby=%v; set failover.standby only",
			req.Case.Name, v, req.Case.Failover.Standby)
	}
	return standbys, nil
}

// prepare makes the topics the instances need: the ledger's input, or
// the kv topology's over the fill.
func (r *failoverRun) prepare() error {
	if r.kv != nil {
		return r.prepareKV()
	}
	if err := r.claimLedger(); err != nil {
		return err
	}
	if err := r.createInput(); err != nil {
		return err
	}
	return fleet.CheckBrokerForKafkaStreams(r.ctx, r.env.Cluster, r.input)
}

// claimLedger checks that the ledger's application is restorebench's
// before anything is created: its group holds no offsets restorebench did
// not commit and its changelog, which Kafka Streams creates and cleanup
// deletes, does not exist yet (the application id is the run's own,
// named after the time, so neither should).
func (r *failoverRun) claimLedger() error {
	if r.env.Owned.Everything() {
		r.claimed = true
		return nil
	}
	err := r.env.WithAdmin(func(adm *kadm.Client) error {
		if _, err := fleet.ClaimGroup(r.ctx, r.env, adm, r.app, ""); err != nil {
			return err
		}
		_, exists, err := cluster.TopicID(r.ctx, adm, r.changelog)
		if err == nil && exists {
			err = fmt.Errorf("topic %s exists and restorebench did not create it: it would be the changelog of the failover's "+
				"ledger application %s, which the failover deletes afterwards, so nothing was started or "+
				"changed. Run under another application_id (--application-id)", r.changelog, r.app)
		}
		return err
	})
	r.claimed = err == nil
	return err
}

// run is the sequence: topics, instances, producer, kills, check.
func (r *failoverRun) run() error {
	if err := r.prepare(); err != nil {
		return err
	}
	for _, id := range failoverIDs {
		if err := r.launch(id); err != nil {
			return err
		}
	}
	if _, err := r.awaitStable(); err != nil {
		return fmt.Errorf("case %s #%d: the instances did not settle: %w", r.req.Case.Name, r.req.Repeat, err)
	}
	if err := r.startProducer(); err != nil {
		return err
	}
	load := fmt.Sprintf("%.0f transactions/s over %d accounts", r.set.Rate, r.set.Accounts)
	if r.kv != nil {
		load = r.kvLoadText()
	}
	r.env.Logf("failover: case %s #%d: %s, %d partitions, %s, %s, standby %v, persistent %v",
		r.req.Case.Name, r.req.Repeat, r.app, r.set.Partitions, load, r.guarantee, r.set.Standby, r.set.Persistent)
	var survivor *fleet.Proc
	for k := 1; k <= r.set.Kills; k++ {
		victim, surv, err := r.killOnce(k)
		if err != nil {
			return err
		}
		survivor = surv
		if k == r.set.Kills {
			break
		}
		secs, err := r.restart(victim.ID)
		if err != nil {
			return fmt.Errorf("case %s #%d: restarting %s after kill %d: %w", r.req.Case.Name, r.req.Repeat, victim.ID, k, err)
		}
		r.out[len(r.out)-1].Failover.RestartSeconds = secs
	}
	return r.check(survivor)
}

// createInput creates the ledger's input topic.
func (r *failoverRun) createInput() error {
	return r.env.WithAdmin(func(adm *kadm.Client) error {
		resp, err := adm.CreateTopic(r.ctx, int32(r.set.Partitions), -1, nil, r.input)
		if err == nil {
			err = resp.Err
		}
		if err == nil {
			r.createdInput = true
			err = cluster.AwaitTopic(r.ctx, adm, r.input, int32(r.set.Partitions))
		}
		if err == nil {
			err = r.env.Owned.Record(r.ctx, adm, r.input, "the failover ledger's input topic of application "+r.app)
		}
		if err != nil {
			return fmt.Errorf("create the ledger input topic %s: %w", r.input, err)
		}
		return nil
	})
}

// launch starts a new process of instance id on its state directory.
func (r *failoverRun) launch(id string) error {
	if _, err := r.f.Start(r.ctx, id, nil); err != nil {
		return fmt.Errorf("case %s #%d: %w", r.req.Case.Name, r.req.Repeat, err)
	}
	return nil
}

// startProducer starts writing transactions (a kv failover: the fill's
// generator's next records).
func (r *failoverRun) startProducer() error {
	if r.kv != nil {
		r.startNs = ksdriver.NowMonoNs()
		r.kv.load = fleet.StartLoad(r.ctx, r.req.Changer, "failover", r.input, r.set.Rate)
		return nil
	}
	cl, err := cluster.NewClient(r.env.Cluster, ledger.ClientOptions()...)
	if err != nil {
		return err
	}
	r.prodCl = cl
	gen := ledger.NewGenerator(failoverSeed(r.set.Seed, r.req.Repeat), r.set.Accounts)
	r.startNs = ksdriver.NowMonoNs()
	r.producer = ledger.Start(r.ctx, cl, r.input, gen, r.set.Rate, r.book)
	return nil
}

// killOnce waits the random time, kills the instance holding the most
// active tasks, waits for the survivor to take over and records the kill.
func (r *failoverRun) killOnce(k int) (victim, survivor *fleet.Proc, err error) {
	victim, survivor, tasks, wait, queries, err := r.aim(k)
	if err != nil {
		return victim, survivor, err
	}
	mark := survivor.Inst.Len()
	startedAt := time.Now().UTC()
	killNs := r.f.Kill(victim)
	queries.Killed(time.Now())
	kill := foKill{killNs: killNs, victim: victim.Inst.Events(), victimTasks: tasks, input: r.input, store: r.changelog}
	if err := r.awaitTakeover(&kill, survivor, mark); err != nil {
		r.finishKillQueries(queries, killNs, nil)
		return victim, survivor, fmt.Errorf("case %s #%d: kill %d of %s (tasks %s): %w", r.req.Case.Name, r.req.Repeat, k, victim.ID, strings.Join(tasks, ", "), err)
	}
	fr, err := kill.measure()
	if err != nil {
		r.finishKillQueries(queries, killNs, nil)
		return victim, survivor, err
	}
	fr.Kill, fr.Kills, fr.Killed, fr.Survivor, fr.Incarnation = k, r.set.Kills, victim.ID, survivor.ID, victim.N+1
	fr.AtSeconds, fr.WaitSeconds = fleet.Seconds(killNs-r.startNs), wait.Seconds()
	fr.Guarantee, fr.Standby, fr.Persistent, fr.StoreKind = r.guarantee, r.set.Standby, r.set.Persistent, r.storeKind()
	fr.SessionTimeoutMs = r.sessionMs
	fr.ClockBoundSeconds = r.f.ClockBound(victim.ID, survivor.ID)
	if fr.ClockBoundSeconds > 0 && fr.MaxGapSeconds <= fr.ClockBoundSeconds {
		r.env.Logf("failover: warning: case %s #%d: kill %d: the gap %.4fs is within the clocks' bound %.4fs: not a measurement of the takeover",
			r.req.Case.Name, r.req.Repeat, k, fr.MaxGapSeconds, fr.ClockBoundSeconds)
	}
	fr.ProcessedIntervalMs, _ = strconv.ParseInt(failoverDriverProperties[ksdriver.PropProcessedIntervalMs], 10, 64)
	rec := r.record(fr, startedAt)
	rec.Queries = r.finishKillQueries(queries, killNs, &fr)
	r.out = append(r.out, rec)
	r.env.Logf("failover: case %s #%d: kill %d/%d: %s (tasks %s) killed at %.1fs; %s took over (%s, %d records "+
		"restored): max gap %.2fs, detection %.2fs, RUNNING after %.2fs",
		r.req.Case.Name, r.req.Repeat, k, r.set.Kills, victim.ID, strings.Join(tasks, ", "), fr.AtSeconds, survivor.ID, fr.Takeover,
		fr.RestoredRecords, fr.MaxGapSeconds, fr.DetectionSeconds, fr.RunningSeconds)
	return victim, survivor, nil
}

// aim picks kill k's moment (a random wait) and victim, starts the kill's
// query load (a kv failover's, from now: before the kill it measures the
// standby reads' staleness) and waits until the moment.
func (r *failoverRun) aim(k int) (victim, survivor *fleet.Proc, tasks []string, wait time.Duration, queries *queryload.KSQueryLoad, err error) {
	run := r.set.Run.D()
	wait = run/2 + time.Duration(r.rng.Int64N(int64(run/2)+1))
	if err := r.awaitCaughtUp(); err != nil {
		return nil, nil, nil, 0, nil, err
	}
	victim, survivor = r.pickVictim()
	tasks = fleet.LatestTasks(victim.Inst.Events()).Active
	if len(tasks) == 0 {
		return victim, survivor, nil, 0, nil, fmt.Errorf("case %s #%d: kill %d: no instance has an active task to lose", r.req.Case.Name, r.req.Repeat, k)
	}
	if queries, err = r.killQueries(survivor, tasks); err != nil {
		return victim, survivor, nil, 0, nil, err
	}
	if err := r.f.Wait(r.ctx, wait); err != nil {
		r.finishKillQueries(queries, 0, nil)
		return victim, survivor, nil, 0, nil, err
	}
	return victim, survivor, tasks, wait, queries, nil
}

// pickVictim returns the instance with the most active tasks (a seeded
// coin decides a tie) and the other one.
func (r *failoverRun) pickVictim() (victim, survivor *fleet.Proc) {
	a, b := r.f.LiveProc(failoverIDs[0]), r.f.LiveProc(failoverIDs[1])
	na, nb := len(fleet.LatestTasks(a.Inst.Events()).Active), len(fleet.LatestTasks(b.Inst.Events()).Active)
	if nb > na || nb == na && r.rng.IntN(2) == 1 {
		a, b = b, a
	}
	return a, b
}

// poll asks check every foPoll until it says done, failing when an
// instance fails and at the deadline with timeout(why).
func (r *failoverRun) poll(deadline time.Time, check func() (bool, string), timeout func(why string) error) error {
	return r.f.Poll(r.ctx, foPoll, deadline, func() (bool, string) {
		r.f.Fold() // failure reads the views
		return check()
	}, timeout)
}

// awaitTakeover waits until the survivor has taken every victim task over.
func (r *failoverRun) awaitTakeover(k *foKill, survivor *fleet.Proc, mark int) error {
	deadline := time.Now().Add(foTakeoverTimeout + time.Duration(r.sessionMs)*time.Millisecond)
	return r.poll(deadline, func() (bool, string) {
		k.survivor = survivor.Inst.Events()[mark:]
		return k.takenOver()
	}, func(waiting string) error {
		return fmt.Errorf("survivor %s did not take over within %s: %s", survivor.ID, foTakeoverTimeout, waiting)
	})
}

// restart starts the killed instance again (its state directory wiped
// unless persistent) and waits for the group to be stable; it returns the
// seconds that took.
func (r *failoverRun) restart(id string) (float64, error) {
	if !r.set.Persistent {
		if err := r.f.WipeState(id); err != nil {
			return 0, err
		}
	}
	t0 := time.Now()
	if err := r.launch(id); err != nil {
		return 0, err
	}
	if _, err := r.awaitStable(); err != nil {
		return 0, err
	}
	return time.Since(t0).Seconds(), nil
}

// awaitStable waits until both instances are RUNNING, every task is
// active on exactly one of them (with standbys, also a standby on the
// other), and that has held for foQuiet. It returns the moment it held.
func (r *failoverRun) awaitStable() (time.Time, error) {
	var since time.Time
	var last, why string
	err := r.poll(time.Now().Add(foStableTimeout), func() (bool, string) {
		var views []foView
		for _, p := range r.f.LiveProcs() {
			evs := p.Inst.Events()
			views = append(views, foView{state: latestState(evs), tasks: fleet.LatestTasks(evs)})
		}
		sig, ok, reason := stableSignature(views, r.set.Partitions, r.set.Standby)
		done := false
		switch {
		case !ok:
			since, why = time.Time{}, reason
		case sig != last || since.IsZero():
			since = time.Now()
		case time.Since(since) >= foQuiet:
			done = true
		}
		last = sig
		return done, why
	}, func(why string) error {
		return fmt.Errorf("no stable assignment within %s: %s", foStableTimeout, why)
	})
	if err != nil {
		return time.Time{}, err
	}
	return since, nil
}

// foView is an instance's latest state and tasks.
type foView struct {
	state string
	tasks fleet.TaskSet
}

// stableSignature says whether the instances' views form a stable group
// for partitions tasks (every one active exactly once; with standby, each
// also a standby on another instance; every instance RUNNING), why not,
// and a signature that changes when any view does.
func stableSignature(views []foView, partitions int, standby bool) (sig string, ok bool, why string) {
	active, onStandby := map[string][]int{}, map[string][]int{}
	var b strings.Builder
	for i, v := range views {
		fmt.Fprintf(&b, "%d:%s:%v:%v;", i, v.state, v.tasks.Active, v.tasks.Standby)
		if v.state != ksdriver.StateRunning {
			why = fmt.Sprintf("instance %d is %s", i+1, fleet.OrNone(v.state))
		}
		for _, t := range v.tasks.Active {
			active[t] = append(active[t], i)
		}
		for _, t := range v.tasks.Standby {
			onStandby[t] = append(onStandby[t], i)
		}
	}
	for p := 0; p < partitions && why == ""; p++ {
		task := fmt.Sprintf("0_%d", p)
		switch a := active[task]; {
		case len(a) != 1:
			why = fmt.Sprintf("task %s is active on %d instances", task, len(a))
		case standby && !otherThan(onStandby[task], a[0]):
			why = fmt.Sprintf("task %s has no standby", task)
		}
	}
	return b.String(), why == "", why
}

// otherThan reports whether xs holds an element other than x.
func otherThan(xs []int, x int) bool {
	for _, v := range xs {
		if v != x {
			return true
		}
	}
	return false
}

// record makes a kill's restore record.
func (r *failoverRun) record(fr runs.FailoverRecord, startedAt time.Time) runs.Restore {
	ks := r.ks
	ks.Properties = maps.Clone(r.ks.Properties)
	ks.Placement = maps.Clone(r.ks.Placement)
	rec := runs.Restore{Repeat: r.req.Repeat, Params: r.req.Case, Topic: r.input,
		Partitions: r.set.Partitions, StartedAt: startedAt, KafkaStreams: &ks, Failover: &fr}
	kill := r.req.Step(runs.StepKill)
	kill.Kill = fr.Kill
	rec.SetStep(kill)
	rec.Records = fr.RestoredRecords
	return rec
}

// check stops the producer, waits until the survivor processed every
// acknowledged transaction, reads its balances and judges them.
func (r *failoverRun) check(survivor *fleet.Proc) error {
	if r.kv != nil {
		return r.checkKV(survivor)
	}
	res, err := r.producer.Stop()
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := r.awaitDrained(survivor); err != nil {
		return fmt.Errorf("case %s #%d: %w", r.req.Case.Name, r.req.Repeat, err)
	}
	waited := time.Since(t0).Seconds()
	actual, err := fleet.Balances(r.ctx, survivor.Inst)
	if err != nil {
		return err
	}
	c := checkLedger(r.book.Sums(), actual)
	c.ProducerSeconds, c.ProducerRate, c.WaitSeconds = res.Seconds, res.Rate, waited
	if _, err := r.f.Stop(r.ctx, survivor); err != nil {
		r.env.Logf("failover: warning: instance %s did not stop cleanly: %v", survivor.ID, err)
	}
	return r.judge(c)
}

// awaitDrained waits until the survivor is RUNNING, active for every task,
// and has processed each partition up to its last acknowledged record.
func (r *failoverRun) awaitDrained(survivor *fleet.Proc) error {
	offsets, err := r.env.Offsets(r.ctx, r.input)
	if err != nil {
		return err
	}
	return r.poll(time.Now().Add(foDrainTimeout), func() (bool, string) {
		behind := drainBehind(survivor.Inst.Events(), r.input, offsets, r.set.Partitions)
		return behind == "", behind
	}, func(behind string) error {
		return fmt.Errorf("instance %s did not process every acknowledged transaction within %s: %s", survivor.ID, foDrainTimeout, behind)
	})
}

// drainBehind says what keeps an instance from having processed every
// record of topic up to offsets' ends ("" when nothing does): its state,
// tasks not active on it, partitions behind.
func drainBehind(evs []ksdriver.Event, topic string, offsets cluster.TopicOffsets, partitions int) string {
	if s := latestState(evs); s != ksdriver.StateRunning {
		return "state " + fleet.OrNone(s)
	}
	active := map[string]bool{}
	for _, t := range fleet.LatestTasks(evs).Active {
		active[t] = true
	}
	done := maxProcessedOffset(evs, topic)
	var behind []string
	for p := int32(0); int(p) < partitions; p++ {
		if !active[fmt.Sprintf("0_%d", p)] {
			behind = append(behind, fmt.Sprintf("task 0_%d not active", p))
			continue
		}
		end := offsets.End[p]
		if end <= offsets.Start[p] {
			continue
		}
		if got, ok := done[p]; !ok || got < end-1 {
			behind = append(behind, fmt.Sprintf("partition %d at offset %d of %d", p, got, end-1))
		}
	}
	return strings.Join(behind, ", ")
}

// judge puts the ledger check on the last record and its verdict on every
// record of the sequence; a broken guarantee is an ErrUnverified error.
func (r *failoverRun) judge(c runs.LedgerCheck) error {
	verified, failed, problem := ledgerVerdict(c, r.guarantee)
	last := len(r.out) - 1
	short := fmt.Sprintf("the ledger after the sequence: %d counted twice, %d lost, %d accounts differ (kill %d's record has the check)",
		c.Duplicates, c.Lost, c.Mismatched, last+1)
	for i := range r.out {
		rec := &r.out[i]
		rec.Verified = verified
		rec.Verification = verify.Result{Mode: runs.VerificationLedger}
		switch {
		case verified:
		case i == last:
			rec.Verification.Problem, rec.Error = problem, "ledger not verified: "+problem
		default:
			rec.Verification.Problem, rec.Error = short, "ledger not verified: "+short
		}
	}
	r.out[last].Failover.Ledger = &c
	r.env.Logf("failover: case %s #%d: ledger: %d acknowledged transactions over %d accounts, %d counted, %d duplicates, %d lost, %d accounts differ",
		r.req.Case.Name, r.req.Repeat, c.Acked, c.Accounts, c.Counted, c.Duplicates, c.Lost, c.Mismatched)
	if failed {
		return fmt.Errorf("%w: case %s #%d: %s", fleet.ErrUnverified, r.req.Case.Name, r.req.Repeat, problem)
	}
	return nil
}

// markUnfinished marks the records of a sequence that broke off: none is
// verified, each says why.
func (r *failoverRun) markUnfinished(err error) {
	for i := range r.out {
		r.out[i].Verified = false
		r.out[i].Error = "the failover sequence did not finish: " + err.Error()
	}
}

// cleanup kills what still runs, stops the producer, and removes the
// topics, the group and the instances' directories unless they are to be
// kept.
func (r *failoverRun) cleanup() {
	r.f.KillAll()
	if r.kv != nil {
		r.cleanupKV()
		return
	}
	if r.producer != nil {
		r.producer.Stop()
	}
	if r.prodCl != nil {
		r.prodCl.Close()
	}
	if r.req.KeepState {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), foCleanupTimeout)
	defer cancel()
	// Only what this run created, or found to be restorebench's.
	err := r.env.WithAdmin(func(adm *kadm.Client) error {
		var topics, err error
		if r.createdInput {
			if topics = cluster.DeleteTopic(ctx, adm, r.input); topics == nil {
				r.env.Owned.Forget(r.input)
			}
		}
		if !r.claimed {
			return topics
		}
		topics = errors.Join(topics, cluster.DeleteTopic(ctx, adm, r.changelog))
		err = fleet.DeleteGroup(ctx, adm, r.app, time.Duration(r.sessionMs)*time.Millisecond+5*time.Second, 500*time.Millisecond)
		if err != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("delete group %s: %w", r.app, err)
		}
		return errors.Join(topics, err)
	})
	if err != nil {
		r.env.Logf("failover: warning: could not remove %s's topics or group: %v", r.app, err)
	}
	r.f.RemoveStateUnlessKept()
}
