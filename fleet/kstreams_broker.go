package fleet

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
)

// DescribeTopicPartitionsKey is Kafka's DescribeTopicPartitions API (KIP-966).
const DescribeTopicPartitionsKey = 75

// brokersChecked remembers the clusters (by bootstrap list) found fit for
// Kafka Streams, so the probe runs once per process and cluster.
var brokersChecked sync.Map

// CheckBrokerForKafkaStreams probes the one broker behaviour known to stop
// Kafka Streams 4.4 before it restores anything: its admin client reads every
// partition's eligibleLeaderReplicas from a DescribeTopicPartitions answer
// without a null check, so a broker that advertises that API and answers it
// with a null list (franz-go's kfake, the embedded broker, does) fails the
// instance with a NullPointerException while it validates its changelog
// topic. Real Kafka answers with a list. The probe asks the same question
// about the changelog and names the problem instead of starting a JVM that
// cannot work; brokers that do not offer the API (Kafka Streams then uses
// Metadata) pass.
func CheckBrokerForKafkaStreams(ctx context.Context, cfg cluster.Config, topic string) error {
	key := strings.Join(cfg.Brokers, ",")
	if _, ok := brokersChecked.Load(key); ok {
		return nil
	}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	if offersDescribeTopicPartitions(ctx, kadm.NewClient(cl)) {
		req := kmsg.NewPtrDescribeTopicPartitionsRequest()
		rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
		rt.Topic = topic
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return nil // not conclusive: let Kafka Streams speak for itself
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if p.EligibleLeaderReplicas == nil {
					return fmt.Errorf("the kafka-streams engine cannot run on the broker at %s: it answers DescribeTopicPartitions "+
						"(KIP-966) for %s with a null eligibleLeaderReplicas list, which Kafka Streams' admin client "+
						"dereferences (a NullPointerException while it validates its changelog topic). The embedded "+
						"broker (kfake) does this unless started without that API; use a real broker: make kafka-up, "+
						"then --brokers 127.0.0.1:19092",
						key, topic)
				}
			}
		}
	}
	brokersChecked.Store(key, true)
	return nil
}

// offersDescribeTopicPartitions reports whether any broker advertises the API.
func offersDescribeTopicPartitions(ctx context.Context, adm *kadm.Client) bool {
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return false
	}
	offered := false
	vs.Each(func(v kadm.BrokerApiVersions) {
		if _, ok := v.KeyMaxVersion(DescribeTopicPartitionsKey); ok && v.Err == nil {
			offered = true
		}
	})
	return offered
}
