// Package ksdriver launches, feeds, watches and stops Kafka Streams instance
// processes: the Java driver in kstreams/ (the contract is
// kstreams/PROTOCOL.md), one real Kafka Streams client per JVM.
//
// Start writes an instance's CONFIG.properties, runs
// `java FLAGS -cp LIB/* restorebench.kstreams.Driver CONFIG`, LIB the
// driver built for the instance's Kafka Streams version (FindLibFor:
// .cache/kstreams/<version>/lib), with its stderr in a log file beside
// the config, and reads its stdout as
// typed events (Hello, StateChange, RestoreStart, ...), each stamped with the
// Go side's receipt time on the same monotonic clock the instance uses, and
// kept in order per instance so scenarios can build timelines from them.
// Commands go to stdin (Send, Request); Stop stops cleanly and escalates to
// SIGTERM and SIGKILL; the JVM runs in its own process group, dies with the
// tool (Linux parent-death signal; the driver also stops at the end of its
// stdin) and is killed when the context it was started with ends. Any way an
// instance fails is one *ExitError quoting the end of its log.
//
// Restores folds restore events into per-partition restore state, spans and
// a per-second series.
package ksdriver
