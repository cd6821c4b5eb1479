// Package integration holds the tests that need a real Apache Kafka broker:
// they run when RESTOREBENCH_BROKERS names one (make test starts it with
// scripts/kafka.sh) and fail under CI=true when it is missing.
//
// Most tests here run two at a time (t.Parallel; go test's -parallel is
// GOMAXPROCS, 2 on CI's machine): measured one by one, half of them kept
// the machine less than half busy (waiting for JVMs to start and stop,
// session timeouts, a probing rebalance), and the package run one test
// after another reached its 28-minute timeout on a slow day. Each test
// names its own topics, groups and application ids (testkafka.TopicName),
// so none sees another's. The tests that stay sequential (they run first,
// alone) are those whose assertions compare two timings taken on this
// machine (the user applications' restores against the engines', Kafka
// Streams' restore metrics against ours, the measurement tests) and the
// one that freezes the shared broker.
package integration
