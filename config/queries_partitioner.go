package config

// Partitioners of QueryLoad.Partitioner: how an instance's API layer finds
// the partition of a looked-up key, whose owner it then asks
// KafkaStreams.queryMetadataForKey for.
const (
	// PartitionerKafkaStreams (the default; "" means it too) is Kafka
	// Streams' own: queryMetadataForKey(store, key, keySerializer), which
	// hashes the key (murmur2, as the default producer) modulo the
	// partitions its group metadata names. Under group.protocol=streams
	// (Kafka Streams 4.x) those are only the partitions some member holds
	// active: while a partition is assigned to no member, as during a
	// rolling restart, it names the wrong partition for some keys, and
	// the answer, from a store that cannot hold the key, is counted
	// misrouted (runs.QueryFigures.Misrouted).
	PartitionerKafkaStreams = "kafka-streams"
	// PartitionerTopic passes queryMetadataForKey a StreamPartitioner
	// that hashes the key the same way modulo the source topic's
	// partition count (the fill's): an application's workaround for the
	// above, with which a key whose partition is unassigned is refused
	// (no host holds it) instead of looked up in another partition.
	// Driver property restorebench.api.partitions.
	PartitionerTopic = "topic"
)

// PartitionBy is Partitioner with "" read as PartitionerKafkaStreams.
func (q QueryLoad) PartitionBy() string {
	if q.Partitioner == "" {
		return PartitionerKafkaStreams
	}
	return q.Partitioner
}
