// Package agent runs Kafka Streams instances on other hosts: `restorebench
// agent` (Agent) starts and stops driver processes there on command, and
// the coordinator's side (Coordinator) commands them and reads their
// events back, both only through two Kafka topics on the cluster under
// test (ControlTopic, EventsTopic; formats in kstreams/PROTOCOL.md), so a
// host needs nothing but outbound access to Kafka.
package agent
