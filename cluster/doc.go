// Package cluster connects restorebench to Kafka: client options, the
// embedded broker, topic administration and offsets.
package cluster
