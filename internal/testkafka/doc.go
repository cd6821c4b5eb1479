// Package testkafka gives tests a broker: an in-memory embedded one for
// hermetic tests, or the real cluster named by RESTOREBENCH_BROKERS for
// integration tests.
package testkafka
