package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// Changer lets a scenario change a filled topic the way its measurement
// needs (append records, delete a log prefix) while keeping what the topic
// must hold known: every change is recorded in the fill's manifest before
// the next step reads it, and the expected state is derived anew.
type Changer struct {
	env   *Env
	path  string // the manifest's path
	fill  FillOutcome
	total int64 // records the fill itself wrote
	// held: the run holds the log cleaner on the topic (hold_cleaner), so
	// a refill creates it held again (heldFromCreation) instead of
	// leaving the rest of the run's restores unheld.
	held bool
}

// NewChanger returns a changer for a fill made or verified by EnsureFill.
func (e *Env) NewChanger(fill FillOutcome) *Changer {
	return &Changer{env: e, path: loadgen.ManifestPath(e.Opts.DataDir, e.ClusterID, fill.Manifest.Topic), fill: fill,
		total: fill.Derived.Totals.Records}
}

// Reset makes the topic hold exactly the fill again, refilling it when a
// scenario changed it, so each repeat of a scenario starts from the same
// state (a deleted prefix cannot be undone otherwise).
func (c *Changer) Reset(ctx context.Context) error {
	if c.fill.Manifest.Changes == nil {
		return nil
	}
	m := c.fill.Manifest
	c.env.Logf("fill: refilling %s to undo what scenario %s changed", m.Topic, m.Changes.By)
	out, err := c.env.EnsureFill(ctx, FillRequest{Topic: m.Topic, Spec: m.Spec, Compression: m.Compression, Refill: true, TopicConfigs: heldFromCreation(c.held)})
	if err != nil {
		return err
	}
	c.fill, c.total = out, out.Derived.Totals.Records
	return nil
}

// FillRecords is how many records the fill itself wrote.
func (c *Changer) FillRecords() int64 { return c.total }

// Spec is the generator spec of everything the topic holds now.
func (c *Changer) Spec() loadgen.Spec {
	ch := c.fill.Manifest.Changes
	if ch == nil || ch.Appended == 0 {
		return c.fill.Manifest.Spec
	}
	return loadgen.Extended(c.fill.Manifest.Spec, c.total, ch.Appended)
}

// Expected derives the state a restore of the topic must end with now.
func (c *Changer) Expected() ([]loadgen.PartitionState, error) {
	var starts map[int32]int64
	if ch := c.fill.Manifest.Changes; ch != nil {
		starts = ch.Starts
	}
	d, err := loadgen.DeriveFrom(c.Spec(), starts)
	return d.Expected, err
}

// ExpectedApplied derives the state of a store that applied only the
// records at the offsets applied accepts.
func (c *Changer) ExpectedApplied(applied func(p int32, offset int64) bool) ([]loadgen.PartitionState, error) {
	d, err := loadgen.DeriveApplied(c.Spec(), applied)
	return d.Expected, err
}

// mark records the scenario's changes in the manifest (atomically).
func (c *Changer) mark(by string, edit func(*loadgen.Changes)) error {
	m := c.fill.Manifest
	if m.Changes == nil {
		m.Changes = &loadgen.Changes{By: by}
	}
	edit(m.Changes)
	return m.Save(c.path)
}

// startAppend begins an append of n records: it returns the generator
// index the next record has and a producer client for the fill's
// compression, having first recorded the intent (n more appended, the
// change unsettled) in the manifest: a topic changed without its manifest
// saying so would later look like someone else's. The caller closes the
// client.
func (c *Changer) startAppend(by string, n int64) (int64, *kgo.Client, error) {
	from := c.Spec().Records
	if c.fill.Manifest.Changes == nil || c.fill.Manifest.Changes.Appended == 0 {
		from = c.total
	}
	if err := c.mark(by, func(ch *loadgen.Changes) { ch.Appended += n; ch.Unsettled = true }); err != nil {
		return 0, nil, err
	}
	popts, err := loadgen.ProducerOpts(c.fill.Manifest.Compression)
	if err != nil {
		return 0, nil, err
	}
	cl, err := cluster.NewClient(c.env.Cluster, popts...)
	if err != nil {
		return 0, nil, err
	}
	return from, cl, nil
}

// Append writes n more records of the fill's generator to the topic at
// perSecond records a second (0: as fast as it goes), as an application
// still writing its changelog would, and returns how many it wrote. Closing
// stop (nil: never) ends the writing early; the manifest then records what
// was written.
func (c *Changer) Append(ctx context.Context, by string, n int64, perSecond float64, stop <-chan struct{}) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	// Unsettled until the write is done: an interrupted one leaves the
	// topic holding part of it, which the next fill then refills.
	from, cl, err := c.startAppend(by, n)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	tot, err := loadgen.ProduceAt(ctx, cl, c.fill.Manifest.Topic, c.Spec(), from, perSecond, stop, nil)
	if err != nil {
		return tot.Records, fmt.Errorf("append to %s: %w", c.fill.Manifest.Topic, err)
	}
	short := n - tot.Records
	if err := c.mark(by, func(ch *loadgen.Changes) { ch.Appended -= max(short, 0); ch.Unsettled = false }); err != nil {
		return tot.Records, err
	}
	return tot.Records, nil
}

// DeletePrefix deletes, in every partition, the records below the given
// offsets (as retention or DeleteRecords would), so that a store whose
// committed offset lies below them must restore from the new log start.
// The topic's cleanup policy is widened to compact,delete for the call:
// Kafka deletes records only from topics whose policy includes delete.
func (c *Changer) DeletePrefix(ctx context.Context, by string, below map[int32]int64) (err error) {
	adm, closeAdm, err := c.env.Admin()
	if err != nil {
		return err
	}
	defer closeAdm()
	topic := c.fill.Manifest.Topic
	if err := c.mark(by, func(ch *loadgen.Changes) {
		if ch.Starts == nil {
			ch.Starts = map[int32]int64{}
		}
		for p, o := range below {
			ch.Starts[p] = max(ch.Starts[p], o)
		}
		ch.Unsettled = true
	}); err != nil {
		return err
	}
	defer func() {
		if err == nil {
			err = c.mark(by, func(ch *loadgen.Changes) { ch.Unsettled = false })
		}
	}()
	if err := setCleanupPolicy(ctx, adm, topic, "compact,delete"); err != nil {
		return err
	}
	var os kadm.Offsets
	for p, o := range below {
		os.AddOffset(topic, p, o, -1)
	}
	derr := deleteRecordsOnceAllowed(ctx, adm, os)
	if err := setCleanupPolicy(ctx, adm, topic, "compact"); err != nil {
		return errors.Join(derr, err)
	}
	if derr != nil {
		return fmt.Errorf("delete records of %s: %w", topic, derr)
	}
	return nil
}

// policyPropagation bounds how long DeleteRecords waits for a changed
// cleanup.policy to reach the partitions' leaders: the broker applies a
// config change asynchronously (in KRaft through the metadata log), so a
// request right after AlterConfigs can still meet the old policy.
const policyPropagation = 15 * time.Second

// deleteRecordsOnceAllowed deletes the records below os, retrying while the
// brokers still answer POLICY_VIOLATION (the widened cleanup.policy not yet
// applied), for at most policyPropagation.
func deleteRecordsOnceAllowed(ctx context.Context, adm *kadm.Client, os kadm.Offsets) error {
	deadline := time.Now().Add(policyPropagation)
	for {
		resp, err := adm.DeleteRecords(ctx, os)
		if err == nil {
			err = resp.Error()
		}
		if err == nil || !errors.Is(err, kerr.PolicyViolation) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func setCleanupPolicy(ctx context.Context, adm *kadm.Client, topic, policy string) error {
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "cleanup.policy", Value: kadm.StringPtr(policy)}}, topic)
	if err == nil {
		for _, r := range resp {
			if r.Err != nil {
				err = r.Err
			}
		}
	}
	if err != nil {
		return fmt.Errorf("set cleanup.policy=%s on %s: %w", policy, topic, err)
	}
	return nil
}
