// Package failover is the failover scenario on the kafka-streams engine
// (FailoverKafkaStreams, whose doc says what it runs and measures): two
// instances, one killed mid-stream failover.kills times while the other
// takes its tasks over, each kill's gaps read from the instances' events
// (failover_events.go), then the survivor's ledger balances checked against
// the acknowledged transactions (failover_verify.go), or, with a query load
// or a store kind beyond key-value, its stores verified against the fill
// and the write load (failover_kv.go, failover_kinds.go). It registers
// itself in package scenario's runner table from its init (scenario.Register);
// package scenario/all links it into the programs that run scenarios.
package failover
