// Package audit reads a running Kafka Streams application as it is now,
// strictly read-only: its changelog topics (partitions, records, bytes on
// disk, shape) and its consumer group on the classic protocol, whose
// members' Kafka Streams userdata (AssignmentInfo, SubscriptionInfo) say
// which instance holds which tasks active and standby and how far each
// standby is behind; from those it answers, per instance, what its loss
// would cost to restore (`restorebench audit`). It never joins or commits
// a group and never creates, writes or alters a topic or a config.
package audit
