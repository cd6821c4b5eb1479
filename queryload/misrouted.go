package queryload

import (
	"fmt"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// A lookup is misrouted when the store partition that answered it is not
// the one its key lives in: the fill placed the key by Kafka's murmur2 of
// its bytes over the topic's partitions, and the API layer read the
// partition KafkaStreams.queryMetadataForKey named. Kafka Streams 4.x
// under group.protocol=streams (KIP-1071) names the wrong one while part
// of the source topic's partitions are assigned to no member, as during a
// rolling restart: it sizes the topic by the partitions its heartbeat's
// endpoint map names active (StreamThread builds StreamsMetadataState's
// cluster view from them alone), so it computes murmur2 modulo fewer
// partitions than the topic has (kstreams/PROTOCOL.md, "The API layer").
// Such an answer says nothing of the key's store, so it is judged wrong
// whatever it holds, counted apart (runs.QueryFigures.Misrouted) and its
// note names Kafka Streams' routing, not the store, as its cause.

// misrouted judges and counts an answer to a lookup of key id, sent in
// second n, that the store partition got read instead of want, the key's
// own: wrong, with a note saying so (from describes the copy that
// answered). Its latency is recorded as any answer's.
func (t *queryTally) misrouted(n int, id int64, want, got int32, lat time.Duration, restoredAll bool, from string) {
	t.Answered(n)
	t.latency(lat, restoredAll)
	t.rec.Misrouted++
	t.verdict(n, loadgen.ReadWrong, 0, func() string {
		key, _ := t.check.Key(id)
		return fmt.Sprintf("key %s: misrouted: Kafka Streams' queryMetadataForKey named partition %d, the key is in partition %d%s; read from %s",
			key, got, want, fewerPartitions(key, got, t.check.Partitions()), from)
	})
}

// fewerPartitions says which partition counts below the topic's, parts,
// place key in partition got by murmur2 (" (murmur2 modulo 3 partitions,
// not the topic's 4)"), the trace of a router that counted fewer
// partitions than the topic has; "" when none does.
func fewerPartitions(key []byte, got, parts int32) string {
	var ns []string
	for n := int32(1); n < parts; n++ {
		if loadgen.PartitionFor(key, n) == got {
			ns = append(ns, fmt.Sprint(n))
		}
	}
	if len(ns) == 0 {
		return ""
	}
	return fmt.Sprintf(" (murmur2 modulo %s partitions, not the topic's %d)", strings.Join(ns, " or "), parts)
}

// WrongReadsText is the summary of q's wrong answers that fails a run:
// how many, how many of them Kafka Streams misrouted, and the first one.
func WrongReadsText(wrong, answered, misrouted int64, first string) string {
	s := fmt.Sprintf("queries: %d of %d answers wrong", wrong, answered)
	if misrouted > 0 {
		s += fmt.Sprintf(" (%d of them misrouted: Kafka Streams' queryMetadataForKey named a partition the key is not in)", misrouted)
	}
	return s + ", e.g. " + first
}

// SetRouteProps has the driver's API layer route keys by the fill's
// partition count when req's query load asks for queries.partitioner:
// topic (config.PartitionerTopic), the workaround for Kafka Streams'
// misrouting; nothing otherwise, Kafka Streams routing as it does.
func SetRouteProps(props map[string]string, req fleet.Request) {
	q := req.Case.Queries
	if q == nil || q.PartitionBy() != config.PartitionerTopic || req.Spec == nil {
		return
	}
	props[ksdriver.PropAPIPartitions] = fmt.Sprint(req.Spec.Partitions)
}
