// Package scenario drives instances of an engine through what a case
// measures (cold restore, warm restart, standby catch-up, compaction,
// failover, scale-out and rolling restarts, each on the engines that run it;
// see For) and records each run's phases and figures as results.json
// restore records. A sequence of steps is written once against an
// engine-neutral instance (warmInstance, standbyInstance); the scenarios of
// several Kafka Streams instances share one fleet (fleet*.go), whose
// processes a Host starts: local JVMs (localHost), or agents on other
// hosts commanded through Kafka topics (agentHost, with Env.Agents).
//
// Each runner registers itself from its file's init (register) for its
// scenario and engine, checked against config's descriptor; a test holds
// every scenario config registers to a runner on each engine it names.
package scenario
