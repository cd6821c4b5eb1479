package config

import "time"

// ScenarioFailover kills an active instance mid-stream and measures how
// long its tasks are not processed until a survivor takes over, then
// verifies every account's balance in the ledger of transactions (or, with
// a query load or a store kind beyond key-value, the survivor's stores
// against the fill plus the write load).
const ScenarioFailover Scenario = "failover"

func init() { registerScenario(failoverDef) }

// failoverDef registers the failover scenario.
var failoverDef = ScenarioDef{
	Queries:           true,
	KafkaStreamsNeeds: []KSFeature{FeatureStandbyListener},
	Name:              ScenarioFailover,
	KindNeeds:         []KindCap{CapReopenLater, CapWriteLoad},
	Order:             40,
	Engines:           []Engine{EngineKafkaStreams},
	EnginesWhy:        "it measures the real client's group and assignor",
	PutOnly:           true,
	Broker:            BrokerReal,
	BrokerWhy:         "Kafka Streams creates the ledger topology's changelog itself, which the embedded broker refuses",
	// It makes its own input and changelog topics; the fill's name does
	// not matter to it.
	KafkaStreamsAnyTopic: true,
	OnAgents:             true,
	Settings: settingsOf[FailoverSettings]{
		key:      "failover",
		field:    func(c *Case) **FailoverSettings { return &c.Failover },
		defaults: DefaultFailover,
		check:    checkFailover,
	},
}

// Bounds on the failover scenario's counts: what one host can run in one run.
const (
	// maxKills bounds failover.kills; each kill waits for a recovery.
	maxKills = 1000
	// maxAccounts bounds failover.accounts, the ledger's keys held in memory.
	maxAccounts = 10_000_000
	// maxScenarioPartitions bounds failover.partitions, as fill.partitions is.
	maxScenarioPartitions = 10_000
)

// FailoverSettings are the failover scenario's (kafka-streams engine, a ledger
// of transactions, balances per account): an active instance and optionally a
// standby run while a producer writes deposits and withdrawals; the active is
// killed with SIGKILL mid-stream and a survivor takes over. With a queries
// block, or a store kind beyond key-value (those kindRunsScenario lets run
// it), the instances run the kv topology over the profile's fill instead, the
// producer continuing the fill's generator, so that every lookup's answer and
// the survivor's store of the case's kind can be judged against the fill.
type FailoverSettings struct {
	// Rate is the transactions written a second (with a queries block or a
	// store kind beyond key-value, the fill's generator records written to
	// the kv topology's input topic a second). Default 1000.
	Rate float64 `json:"rate" yaml:"rate"`
	// Accounts is the number of accounts the transactions spread over.
	// Default 1000. Not used over the fill (a queries block, a store kind
	// beyond key-value: the fill's keys are).
	Accounts int `json:"accounts" yaml:"accounts"`
	// Kills is how many times an active instance is killed, at random
	// moments, in one measurement. Default 5.
	Kills int `json:"kills" yaml:"kills"`
	// Standby runs a standby instance beside the active one (with
	// num.standby.replicas=1). Default true.
	Standby bool `json:"standby" yaml:"standby"`
	// Persistent keeps a killed instance's state directory when it comes
	// back (a persistent volume); false wipes it (ephemeral storage).
	// Default true.
	Persistent bool `json:"persistent" yaml:"persistent"`
	// Run bounds the wait before each kill: once the group is stable (both
	// instances RUNNING, every task assigned), the kill comes after a random
	// time between Run/2 and Run. Default 10s.
	Run Duration `json:"run" yaml:"run"`
	// Partitions is the ledger input topic's partition count, i.e. the
	// number of tasks (and store partitions). Default 4. Over the fill (a
	// queries block, a store kind beyond key-value) the fill's partitions
	// are.
	Partitions int `json:"partitions" yaml:"partitions"`
	// Seed makes the transactions and the kill moments reproducible; each
	// repeat derives its own from it. Default 1.
	Seed int64 `json:"seed" yaml:"seed"`
}

// SetDefaults fills s with the defaults: a profile's settings start from
// them, so what it does not say keeps its default.
func (s *FailoverSettings) SetDefaults() { *s = *DefaultFailover() }

// DefaultFailover returns the failover scenario's defaults.
func DefaultFailover() *FailoverSettings {
	return &FailoverSettings{Rate: 1000, Accounts: 1000, Kills: 5, Standby: true, Persistent: true, Run: Duration(10 * time.Second),
		Partitions: 4, Seed: 1}
}

// checkFailover validates a failover case's settings.
func checkFailover(_ Case, f *FailoverSettings) error {
	switch {
	case !(f.Rate > 0):
		return fieldErr("failover.rate", "%v must be positive", f.Rate)
	case f.Accounts <= 0:
		return fieldErr("failover.accounts", "%d must be positive", f.Accounts)
	case f.Kills <= 0:
		return fieldErr("failover.kills", "%d must be positive", f.Kills)
	case f.Kills > maxKills:
		return fieldErr("failover.kills", "%d is over %d", f.Kills, maxKills)
	case f.Accounts > maxAccounts:
		return fieldErr("failover.accounts", "%d is over %d", f.Accounts, maxAccounts)
	case f.Run < Duration(time.Second):
		return fieldErr("failover.run", "%s is under 1s", f.Run)
	case f.Partitions <= 0:
		return fieldErr("failover.partitions", "%d must be positive", f.Partitions)
	case f.Partitions > maxScenarioPartitions:
		return fieldErr("failover.partitions", "%d is over %d", f.Partitions, maxScenarioPartitions)
	}
	return firstErr(checkRate("failover.rate", f.Rate), checkDuration("failover.run", f.Run))
}
