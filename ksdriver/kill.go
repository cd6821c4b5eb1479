package ksdriver

// NowMonoNs is CLOCK_MONOTONIC in nanoseconds: the clock of every event's
// MonoNs (System.nanoTime() on Linux), so the Go side can time its own
// actions (a kill, a producer start) against an instance's events.
func NowMonoNs() int64 { return monoNow() }

// KillNow is a crash on purpose, for failover measurements: SIGKILL to the
// instance's process group, which gives Kafka Streams no chance to commit,
// checkpoint or leave its group (the group notices only when
// session.timeout.ms expires). It returns CLOCK_MONOTONIC just before the
// signal, the moment gaps and detection times are measured from, once the
// process is reaped and every event it wrote is read.
func (in *Instance) KillNow() int64 {
	at := monoNow()
	in.kill("on purpose, a scenario's crash (SIGKILL)")
	return at
}
