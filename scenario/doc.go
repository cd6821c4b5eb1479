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
// The package is three rooms, each reaching only down (a test holds it):
//   - the fleet and the JVM plumbing every scenario runs on: Env, Target
//     and Request (scenario.go), hosts and processes (fleet*.go,
//     ks_single.go), what an instance is given and asked (kstreams_*.go),
//     what the tool owns on the broker (owned.go, source_table.go) and the
//     verification of a restore (verify_restore.go);
//   - the query loads on top of it (queries*.go);
//   - the scenarios on top of both, a file or a few per scenario.
//
// Each runner registers itself from its file's init (register) for its
// scenario and engine, checked against config's descriptor; a test holds
// every scenario config registers to a runner on each engine it names.
package scenario
