package fleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/warmup"
)

// What a fleet's application leaves on the cluster: its consumer group and
// its input topic's records, cleared before and after a run.

// admin runs fn with an admin client of the env's cluster (the run's
// shared one).
func (f *Fleet) admin(fn func(*kadm.Client) error) error { return f.env.WithAdmin(fn) }

// ResetGroup makes the application start clean: no committed offsets or
// members left from an earlier run (a streams group could not be joined
// by classic members and vice versa), and an input topic with no records
// anyone has yet to process (a later run must not re-apply them).
// Static members left behind are removed; a group other members still use
// is an error after the session timeout.
func (f *Fleet) ResetGroup(ctx context.Context, input string, staticIDs []string) error {
	return f.admin(func(adm *kadm.Client) error {
		if err := truncateTopic(ctx, adm, input); err != nil {
			return err
		}
		if len(staticIDs) > 0 {
			adm.LeaveGroup(ctx, kadm.LeaveGroup(f.t.AppID).InstanceIDs(staticIDs...).Reason("restorebench: end of run"))
		}
		err := DeleteGroup(ctx, adm, f.t.AppID, warmup.DefaultSessionTimeout+15*time.Second, 2*time.Second)
		if err != nil && !errors.Is(err, ctx.Err()) {
			return fmt.Errorf("deleting consumer group %s before the run: %w (is another instance of application %s running?)", f.t.AppID, err, f.t.AppID)
		}
		return err
	})
}

// ResetAfterRun resets the group once a run is over (resetGroup); a
// failure only warns, in the log of the scenario named scenario.
func (f *Fleet) ResetAfterRun(ctx context.Context, scenario, input string, staticIDs []string) {
	if err := f.ResetGroup(ctx, input, staticIDs); err != nil {
		f.env.Logf("%s: warning: cleaning up after the run: %v", scenario, err)
	}
}

// DeleteGroup deletes a consumer group; a missing one is not an error. A
// group with members waits for them to leave or time out (a killed member
// stays until its session times out), and a coordinator still loading (a
// broker just started) is asked again: every poll until within has passed.
func DeleteGroup(ctx context.Context, adm *kadm.Client, group string, within, poll time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		resp, err := adm.DeleteGroup(ctx, group)
		if err == nil {
			err = resp.Err
		}
		if err == nil || errors.Is(err, kerr.GroupIDNotFound) {
			return nil
		}
		if !errors.Is(err, kerr.NonEmptyGroup) && !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
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

// StaticInstanceIDs are the consumer group.instance.ids Kafka Streams
// derives from an instance's group.instance.id: one per stream thread,
// "<id>-<thread>" from 1.
func StaticInstanceIDs(groupInstanceID string, threads int) []string {
	out := make([]string, threads)
	for i := range out {
		out[i] = groupInstanceID + "-" + strconv.Itoa(i+1)
	}
	return out
}
