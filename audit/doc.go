// Package audit reads a running Kafka Streams application as it is now,
// strictly read-only: its changelog topics (partitions, records, bytes on
// disk, shape) and its group: on the classic protocol the members' Kafka
// Streams userdata (AssignmentInfo, SubscriptionInfo) say which instance
// holds which tasks active and standby and how far each copy was behind at
// the last rebalance; on the streams protocol (KIP-1071)
// StreamsGroupDescribe says the tasks and the topology's changelogs, but
// no lags. From those it answers, per instance, what its loss would cost
// to restore (`restorebench audit`). It never joins or commits a group and
// never creates, writes or alters a topic or a config.
package audit
