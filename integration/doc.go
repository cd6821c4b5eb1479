// Package integration holds the tests that need a real Apache Kafka broker:
// they run when RESTOREBENCH_BROKERS names one (make test starts it with
// scripts/kafka.sh) and fail under CI=true when it is missing.
package integration
