package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/poll"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// FillRequest is what a fill must produce.
type FillRequest struct {
	Topic       string
	Spec        loadgen.Spec
	Compression string
	// Refill deletes and refills a topic that exists but does not hold this
	// fill; without it such a topic is an error, so nobody's data is lost.
	Refill bool
	// TopicConfigs are extra topic configs (cleanup.policy=compact is always set).
	TopicConfigs map[string]string
}

// FillOutcome is a fill made now or found and reused.
type FillOutcome struct {
	// Manifest records where and when the fill was made.
	Manifest *loadgen.Manifest
	// Derived is what the fill's spec determines: the expected state, the
	// record counts. It is computed from the spec, never read from a file.
	Derived loadgen.Derived
	Reused  bool
	Series  []measure.Point
	// OnAgent names the agent that wrote the fill (`run --agents`); nil
	// when this process wrote it, or the fill was reused.
	OnAgent *runs.AgentPlace
}

// ToResults converts the outcome for results.json.
func (o FillOutcome) ToResults() *runs.Fill {
	m := o.Manifest
	spec := m.Spec
	tot := o.Derived.Totals
	hot := o.Derived.HotRecords
	return &runs.Fill{
		Topic:           m.Topic,
		Spec:            &spec,
		Compression:     m.Compression,
		Reused:          o.Reused,
		FilledAt:        m.FilledAt,
		Records:         tot.Records,
		Tombstones:      tot.Tombstones,
		Bytes:           tot.Bytes,
		HotRecords:      &hot,
		DurationSeconds: m.DurationSeconds,
		RecordsPerSec:   runs.PerSec(tot.Records, m.DurationSeconds),
		MBPerSec:        runs.MBPerSec(tot.Bytes, m.DurationSeconds),
		Offsets:         m.Offsets,
		Expected:        o.Derived.Expected,
		Series:          o.Series,
		Transactions:    runs.NewFillTransactions(spec, o.Derived.Log),
		OnAgent:         o.OnAgent,
	}
}

// EnsureFill makes the topic hold the requested fill. It reuses a topic
// only when the broker shows it holds exactly this fill (see holdsFill);
// a fill manifest alone is never trusted, since a file can be edited or go
// stale. Otherwise it creates and fills the topic, and a topic that exists
// but holds something else is deleted only with Refill.
func (e *Env) EnsureFill(ctx context.Context, req FillRequest) (FillOutcome, error) {
	if err := req.Spec.Validate(); err != nil {
		return FillOutcome{}, err
	}
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return FillOutcome{}, err
	}
	defer closeAdm()
	path := loadgen.ManifestPath(e.Opts.DataDir, e.ClusterID, req.Topic)
	m, err := loadgen.LoadManifest(path)
	if err != nil {
		if !req.Refill {
			return FillOutcome{}, fmt.Errorf("%w; pass --refill to refill the topic and replace it, or delete the file", err)
		}
		e.Logf("fill: ignoring %v (--refill)", err)
		m = nil
	}
	offsets, err := e.Offsets(ctx, req.Topic)
	exists := err == nil
	if err != nil && !errors.Is(err, cluster.ErrTopicNotFound) {
		return FillOutcome{}, err
	}
	if exists {
		reused, why, ours, err := e.judgeExisting(ctx, req, m, offsets)
		if err != nil {
			return FillOutcome{}, err
		}
		if reused != nil {
			return *reused, nil
		}
		if !req.Refill && !ours {
			return FillOutcome{}, fmt.Errorf("topic %s already exists and does not hold this fill (%s); pass --refill to delete and refill it", req.Topic, why)
		}
		if m == nil && !ours {
			// --refill deletes only a topic restorebench filled (a
			// manifest names it, however stale) or created.
			if owned, err := e.owned().Owns(ctx, adm, req.Topic); err != nil || !owned {
				return FillOutcome{}, errors.Join(fmt.Errorf("topic %s already exists and restorebench did not create it (%s; %s "+
					"has no record of it either), so --refill does not delete it: fill under another "+
					"--application-id (application_id in a profile), which names another changelog, or delete the "+
					"topic yourself if it is yours to lose",
					req.Topic, why, e.owned().Where()), err)
			}
		}
		e.Logf("fill: deleting %s to refill it (%s)", req.Topic, why)
		if err := cluster.DeleteTopic(ctx, adm, req.Topic); err != nil {
			return FillOutcome{}, err
		}
	}
	if err := e.fillFits(req); err != nil {
		return FillOutcome{}, err
	}
	// A manifest describes the topic's current fill: none until this one
	// is done, so an interrupted fill is never mistaken for a whole one.
	if err := loadgen.RemoveManifest(path); err != nil {
		return FillOutcome{}, err
	}
	if err := e.createWithRetry(ctx, adm, req); err != nil {
		return FillOutcome{}, err
	}
	return e.fill(ctx, req, path)
}

// judgeExisting decides what to do with req's topic, which exists, at
// offsets, with manifest m (nil for none). When the broker shows it holds
// exactly req's fill, reused is that fill. Otherwise why says why it does
// not do, and ours whether it may be refilled without Refill: a topic
// restorebench's own scenario changed after its fill, which it either did
// not finish changing or left exactly as its manifest records.
func (e *Env) judgeExisting(ctx context.Context, req FillRequest,
	m *loadgen.Manifest, offsets cluster.TopicOffsets) (reused *FillOutcome, why string, ours bool, err error) {
	switch {
	case m == nil:
		return nil, "no fill manifest for it in " + e.Opts.DataDir, false, nil
	case m.Changes != nil && m.Changes.Unsettled:
		// restorebench's own scenario was changing it when it stopped (or
		// changed it through Kafka Streams): what it holds is the fill
		// plus part of the changes, and it is ours to refill.
		return nil, fmt.Sprintf("scenario %s changed it after the fill and did not finish (or wrote through Kafka Streams, "+
			"which applies changes as far as it processed them)", m.Changes.By), true, nil
	case m.Changes != nil:
		// restorebench's own scenario changed it: refill it, provided
		// the broker shows it holds exactly the fill plus those changes.
		holds, err := e.holdsChangedFill(ctx, m, offsets)
		if err != nil {
			return nil, "", false, err
		}
		if holds == "" {
			return nil, fmt.Sprintf("scenario %s changed it after the fill", m.Changes.By), true, nil
		}
		return nil, "it does not hold what its manifest says a scenario left there: " + holds, false, nil
	}
	if ok, reason := m.Matches(req.Spec, req.Compression); !ok {
		return nil, reason, false, nil
	}
	e.Logf("fill: %s has a matching manifest; checking the topic really holds that fill", req.Topic)
	d, err := loadgen.Derive(req.Spec)
	if err != nil {
		return nil, "", false, err
	}
	if why, err = e.holdsFill(ctx, req.Topic, req.Spec, d, offsets); err != nil || why != "" {
		return nil, why, false, err
	}
	e.Logf("fill: reusing %s (%d records, %s, filled %s)", req.Topic, d.Totals.Records,
		units.BytesTenths(d.Totals.Bytes), m.FilledAt.Format(time.RFC3339))
	return &FillOutcome{Manifest: m, Derived: d, Reused: true}, "", false, nil
}

// holdsChangedFill checks that a topic a scenario changed holds exactly
// its fill plus the changes its manifest records ("" if so, else why not).
func (e *Env) holdsChangedFill(ctx context.Context, m *loadgen.Manifest, offsets cluster.TopicOffsets) (string, error) {
	spec, d, err := currentContents(m)
	if err != nil {
		return "", err
	}
	return e.holdsFill(ctx, m.Topic, spec, d, offsets)
}

// createWithRetry creates the topic, retrying while a just-deleted topic of
// the same name is still being removed (real Kafka deletes asynchronously).
// It records the topic as restorebench's (Env.owned).
func (e *Env) createWithRetry(ctx context.Context, adm *kadm.Client, req FillRequest) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := cluster.CreateChangelog(ctx, adm, req.Topic, req.Spec.Partitions, req.TopicConfigs)
		if err == nil {
			return e.owned().Record(ctx, adm, req.Topic, "a fill's changelog")
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// fillFits refuses, before anything is written, a fill on the embedded
// broker (whose log is on this host's disk) that cannot fit in the free
// space of the broker's data directory. The estimate is the one the fill
// logs (keys and values; the log's own overhead comes on top), computed in
// floating point so that an absurd record count cannot overflow it.
func (e *Env) fillFits(req FillRequest) error {
	if e.Embedded == nil || e.Broker.DataDir == "" {
		return nil
	}
	est := float64(req.Spec.TargetBytes)
	if req.Spec.TargetBytes == 0 {
		est = float64(req.Spec.Records) * float64(req.Spec.KeyWidth()+(req.Spec.ValueMin+req.Spec.ValueMax)/2)
	}
	d := DiskOf(e.Broker.DataDir)
	if d == nil || d.SizeBytes == 0 {
		return nil // statfs failed: let the write report what happens
	}
	if est > float64(d.FreeBytes) {
		return fmt.Errorf("fill %s: an estimated %s (keys and values) does not fit in the %s free on the disk of the "+
			"embedded broker's log %s; fill less or free space",
			req.Topic, units.BytesTenths(int64(min(est, 1e18))), units.BytesTenths(d.FreeBytes), e.Broker.DataDir)
	}
	return nil
}

// fill writes req's fill to its topic (created empty), checks the broker
// holds what was written and records the fill's manifest.
func (e *Env) fill(ctx context.Context, req FillRequest, manifestPath string) (FillOutcome, error) {
	start := time.Now()
	derived := deriveAsync(req.Spec)
	pr, err := e.produce(ctx, req)
	tot, series, dur := pr.tot, pr.series, time.Since(start)
	if pr.seconds > 0 {
		dur = time.Duration(pr.seconds * float64(time.Second))
	}
	if err != nil {
		if e.Embedded != nil {
			if serr := e.Embedded.StorageError(); serr != nil {
				err = serr
			}
		}
		return FillOutcome{}, fmt.Errorf("fill %s: %w (the partial fill is left without a manifest and will not be reused)", req.Topic, err)
	}
	e.Logf("fill: %d records, %s in %s (%.1f MB/s); deriving the expected state from the generator",
		tot.Records, units.BytesTenths(tot.Bytes), dur.Round(time.Millisecond), runs.MBPerSec(tot.Bytes, dur.Seconds()))
	d, err := derived()
	if err != nil {
		return FillOutcome{}, err
	}
	if d.Totals.Records != tot.Records {
		return FillOutcome{}, fmt.Errorf("fill %s: produced %d records but the generator derives %d", req.Topic, tot.Records, d.Totals.Records)
	}
	offsets, err := e.settledOffsets(ctx, req.Topic, req.Spec, d)
	if err != nil {
		return FillOutcome{}, err
	}
	logTransactions(e, d.Log, req.Spec)
	why, err := e.holdsFill(ctx, req.Topic, req.Spec, d, offsets)
	if err != nil {
		return FillOutcome{}, err
	}
	if why != "" {
		return FillOutcome{}, fmt.Errorf("fill %s: the broker does not hold what was produced: %s", req.Topic, why)
	}
	m := &loadgen.Manifest{
		Version:         loadgen.ManifestVersion,
		Topic:           req.Topic,
		ClusterID:       e.ClusterID,
		Spec:            req.Spec,
		Compression:     req.Compression,
		FilledAt:        start.UTC(),
		DurationSeconds: dur.Seconds(),
		Offsets:         toPartitionOffsets(offsets),
	}
	if err := m.Save(manifestPath); err != nil {
		return FillOutcome{}, err
	}
	return FillOutcome{Manifest: m, Derived: d, Series: series, OnAgent: pr.onAgent}, nil
}

// deriveAsync starts deriving spec's expected state (loadgen.Derive) on
// its own goroutine and returns the wait for it. The fill derives while it
// produces: the derivation is a pass over every record on one core, which
// the fill's wait on the broker leaves room for, where deriving after the
// fill added its whole time (about 1.5 s a million records) to the run.
// markerWait bounds how long a transactional fill waits for its last
// transaction markers to reach the log.
const markerWait = 30 * time.Second

// settledOffsets are topic's offsets once a fill is in the log. A
// transactional fill's last commit returns when the transaction
// coordinator has logged it, and the coordinator writes the markers to
// the partitions after: listed at once, a partition can end one marker
// short (seen on the real broker). So for such a fill the offsets are
// read again until every partition reaches the end the fill derives, for
// markerWait at most; whatever they are then, holdsFill judges them.
func (e *Env) settledOffsets(ctx context.Context, topic string, spec loadgen.Spec, d loadgen.Derived) (cluster.TopicOffsets, error) {
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return cluster.TopicOffsets{}, err
	}
	defer closeAdm()
	var offsets cluster.TopicOffsets
	err = poll.Until(ctx, 100*time.Millisecond, markerWait, "", func(ctx context.Context) (bool, error) {
		var err error
		offsets, err = cluster.Offsets(ctx, adm, topic)
		return !spec.Transactional || reachedEnds(offsets, d.Log.Ends), err
	})
	if errors.Is(err, poll.ErrTimeout) {
		err = nil // whatever the offsets are then, holdsFill judges them
	}
	return offsets, err
}

// reachedEnds says every partition of offsets ends at or past ends'.
func reachedEnds(offsets cluster.TopicOffsets, ends []int64) bool {
	for p, n := range ends {
		if offsets.End[int32(p)] < n {
			return false
		}
	}
	return true
}

func deriveAsync(spec loadgen.Spec) func() (loadgen.Derived, error) {
	type result struct {
		d   loadgen.Derived
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := loadgen.Derive(spec)
		done <- result{d, err}
	}()
	return func() (loadgen.Derived, error) {
		r := <-done
		return r.d, r.err
	}
}

// produceFill writes req's records with a progress bar, with a plain or
// (req.Spec.Transactional) a transactional producer, and returns what it
// wrote (committed records) and the 1 s throughput series.
func (e *Env) produceFill(ctx context.Context, req FillRequest) (loadgen.FillTotals, []measure.Point, error) {
	spec := req.Spec
	popts, err := loadgen.ProducerOpts(req.Compression)
	if spec.Transactional {
		popts, err = loadgen.TransactionalProducerOpts(req.Compression, req.Topic)
	}
	if err != nil {
		return loadgen.FillTotals{}, nil, err
	}
	clients, err := fillClients(e.Cluster, spec, popts)
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	if err != nil {
		return loadgen.FillTotals{}, nil, err
	}
	total := spec.TargetBytes
	if total == 0 {
		total = spec.Records * int64(spec.KeyWidth()+(spec.ValueMin+spec.ValueMax)/2)
	}
	kind := ""
	if spec.Transactional {
		// Aborted transactions come on top: about 1/(1-ratio) as much is written.
		total = int64(float64(total) / (1 - spec.AbortRatio))
		kind = fmt.Sprintf(", transactions of %d records, %.0f%% aborted", spec.TransactionRecords, 100*spec.AbortRatio)
	}
	keys := ""
	if spec.KeyBytes != 0 {
		keys = fmt.Sprintf(" of %d B", spec.KeyBytes)
	}
	e.Logf("fill: writing %s to %s (%d partitions, %d keys%s, values %d-%d B, %s compression%s)",
		units.BytesTenths(total), req.Topic, spec.Partitions, spec.Keys, keys, spec.ValueMin, spec.ValueMax, req.Compression, kind)
	bar := e.progress.Start("fill", total, progress.Bytes)
	var counter measure.Counter
	counter.Start(time.Second)
	var lastBytes int64
	onAck := func(records, bytes int64) {
		counter.Add(1, bytes-lastBytes)
		if records%512 == 0 {
			bar.Set(bytes)
			bar.Count(records)
		}
		lastBytes = bytes
	}
	var tot loadgen.FillTotals
	if spec.Transactional {
		tot, err = loadgen.ProduceTransactional(ctx, clients[0], req.Topic, spec, onAck)
	} else {
		tot, err = loadgen.ProduceSpread(ctx, clients, req.Topic, spec, onAck)
	}
	series := counter.Stop()
	if err == nil {
		// The last figures, not the last 512th's: what the fill wrote.
		bar.Set(tot.Bytes)
		bar.Count(tot.Records)
	}
	bar.Done()
	return tot, series, err
}

// fillClients are the fill's producer clients: one per core (at most one
// per partition) for a plain fill, whose partitions ProduceSpread shares
// among them so that compression runs on every core; one for a
// transactional fill, whose transactions span partitions.
func fillClients(cfg cluster.Config, spec loadgen.Spec, popts []kgo.Opt) ([]*kgo.Client, error) {
	n := min(runtime.GOMAXPROCS(0), int(spec.Partitions))
	if spec.Transactional {
		n = 1
	}
	var clients []*kgo.Client
	for range max(n, 1) {
		cl, err := cluster.NewClient(cfg, popts...)
		if err != nil {
			return clients, err
		}
		clients = append(clients, cl)
	}
	return clients, nil
}

// logTransactions says what a transactional fill wrote beyond its records.
func logTransactions(e *Env, l loadgen.LogShape, spec loadgen.Spec) {
	if !spec.Transactional {
		return
	}
	e.Logf("fill: %d transactions (%d aborted: %d records, %s), %d markers; %d offsets in all",
		l.Transactions, l.AbortedTransactions, l.AbortedRecords, units.BytesTenths(l.AbortedBytes), l.Markers, l.Offsets())
}

func toPartitionOffsets(o cluster.TopicOffsets) []loadgen.PartitionOffsets {
	var out []loadgen.PartitionOffsets
	for _, p := range o.Partitions() {
		out = append(out, loadgen.PartitionOffsets{Partition: p, Start: o.Start[p], End: o.End[p]})
	}
	return out
}
