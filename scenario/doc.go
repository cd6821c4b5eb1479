// Package scenario drives instances of an engine through what a case
// measures (cold restore, warm restart, standby catch-up, compaction,
// failover, scale-out and rolling restarts, each on the engines that run it;
// see For) and records each run's phases and figures as results.json
// restore records. A sequence of steps is written once against an
// engine-neutral instance (warmInstance, standbyInstance); the scenarios of
// several Kafka Streams instances share one fleet.Fleet, whose processes a
// fleet.Host starts: local JVMs, or agents on other hosts commanded
// through Kafka topics (with Env.Agents). A model-engine instance's place
// is chosen once the same way (modelPlace: this process, or an agent).
//
// The scenarios stand on two packages below them, and nothing there
// reaches up: fleet (where instances run, what they are given and asked,
// the verification of a restore) and queryload (the query loads beside a
// restore, on top of fleet).
//
// Each runner registers itself from its file's init (Register) for its
// scenario and engine, checked against config's descriptor; a test holds
// every scenario config registers to a runner on each engine it names. A
// big scenario has a package of its own below this one (scenario/failover),
// which imports scenario and registers the same way; scenario/all imports
// each such package, and whatever calls For imports scenario/all.
package scenario
