// Package fleet is where a scenario's instances run and what they are
// given and asked, for every scenario alike: what a scenario is given
// (Env, Target, Request), the processes of Kafka Streams instances a Host
// starts (this machine, or agents on other hosts commanded
// through Kafka topics: AgentHost) and the query loads sent from where a
// process runs (Process.StartQueries), the single instance of a cold restore
// or warm restart (KSSingle), an instance's properties, JVM flags, hello,
// digest and entries, its events watched into restores and a timeline of
// its tasks, what restorebench owns on the broker (its groups, input
// topics and source-table offsets), and the verification of a restore
// against the expected state (VerifyInto). The scenario package and the
// query loads (queryload) stand on it, and it runs no scenario itself. It
// knows of one: the failover's, whose ledger topology runs under an
// application id of its own unless the case runs the kv topology
// (owned.go: UsesApplication, RunsKVFailover), so that what restorebench
// checks and owns of a user's application follows the topology a case
// runs; the ledger's balances an instance writes are read here too
// (balances.go).
package fleet
