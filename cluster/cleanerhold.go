package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// HoldLag is the min.compaction.lag.ms a cleaner hold sets: Kafka's
// largest (math.MaxInt64). The log cleaner leaves a segment alone while its
// newest record is younger than now − min.compaction.lag.ms, and with this
// lag every segment is, whatever its records' timestamps.
const HoldLag = "9223372036854775807"

// CleanerHold is a changelog topic whose log cleaner is held
// (HoldCleaner): Kafka compacts none of its segments until Release.
type CleanerHold struct {
	Topic string
	// Previous is the topic's own min.compaction.lag.ms before the hold,
	// or "" when the topic had none (the broker's default applied), and
	// so Release removes the hold's setting instead of restoring one.
	Previous string
	adm      *kadm.Client
}

// HoldCleaner stops Kafka's log cleaner from changing topic until
// Release, by setting the topic's min.compaction.lag.ms to HoldLag
// (an incremental alter: the topic's other settings stay). Restores made
// during the hold read the same records, which compares them fairly; a
// compaction already under way when the hold is set still completes.
//
// A topic already at HoldLag (created held for its fill, or left held by a
// run killed before its Release) is left as it is and taken as having no
// setting of its own, so this hold's Release clears it.
func HoldCleaner(ctx context.Context, adm *kadm.Client, topic string) (*CleanerHold, error) {
	prev, err := TopicOverride(ctx, adm, topic, "min.compaction.lag.ms")
	if err != nil {
		return nil, fmt.Errorf("hold the log cleaner on %s: %w", topic, err)
	}
	h := &CleanerHold{Topic: topic, Previous: prev, adm: adm}
	if prev == HoldLag {
		// Created held, or left held: nothing to set, and nothing of the
		// topic's own to put back.
		h.Previous = ""
		return h, nil
	}
	if err := h.alter(ctx, kadm.SetConfig, HoldLag); err != nil {
		return nil, fmt.Errorf("hold the log cleaner on %s: %w", topic, err)
	}
	return h, nil
}

// Release puts the topic's min.compaction.lag.ms back as it was before
// the hold, and the cleaner compacts the topic again.
func (h *CleanerHold) Release(ctx context.Context) error {
	var err error
	if h.Previous == "" {
		err = h.alter(ctx, kadm.DeleteConfig, "")
	} else {
		err = h.alter(ctx, kadm.SetConfig, h.Previous)
	}
	if err != nil {
		return fmt.Errorf("release the log cleaner hold on %s (set min.compaction.lag.ms back by hand): %w", h.Topic, err)
	}
	return nil
}

func (h *CleanerHold) alter(ctx context.Context, op kadm.IncrementalOp, value string) error {
	c := kadm.AlterConfig{Op: op, Name: "min.compaction.lag.ms"}
	if op == kadm.SetConfig {
		c.Value = kadm.StringPtr(value)
	}
	resp, err := h.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{c}, h.Topic)
	if err != nil {
		return err
	}
	for _, r := range resp {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// TopicOverride returns topic's own setting of name (set on the topic,
// not inherited from the broker), or "" when it has none.
func TopicOverride(ctx context.Context, adm *kadm.Client, topic, name string) (string, error) {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return "", err
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		return "", err
	}
	if rc.Err != nil {
		return "", rc.Err
	}
	for _, c := range rc.Configs {
		if c.Key == name && c.Source == kmsg.ConfigSourceDynamicTopicConfig && c.Value != nil {
			return *c.Value, nil
		}
	}
	return "", nil
}
