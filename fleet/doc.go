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
// against the expected state (VerifyInto). It knows no scenario: the
// scenario package and the query loads (queryload) stand on it.
package fleet
