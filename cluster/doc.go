// Package cluster connects restorebench to Kafka: client options, the
// embedded broker, topic administration and offsets, partitions' sizes as
// the brokers' log dirs report them (PartitionSizes), copies of a topic's
// partitions into a topic of restorebench's (CopyPartitions), and the
// record on the cluster itself of the topics restorebench created there
// (OwnedTopicsTopic), which any restorebench reaching the cluster reads.
package cluster
